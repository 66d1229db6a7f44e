package serverstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/metrics"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// On etcd, a create's namespace admission reads the namespace from the
// replica, as kube-apiserver's NamespaceLifecycle reads its informer's
// cache: no etcd read of the namespace's key per create. A namespace
// created just before is found, and one being deleted refuses content.
func TestNamespaceAdmissionReadsNoEtcdKey(t *testing.T) {
	_, c := newEtcd(t)
	rec := &metrics.Recorder{}
	s, err := demo.New(demo.Options{Storage: serverstore.Storage(serverstore.Options{Client: c, Metrics: rec}), Hooks: server.HookOptions{Metrics: rec}})
	if err != nil {
		t.Fatal(err)
	}
	rec.Source = s
	base := servertest.Start(t, s)
	gets := func() int {
		const line = `etcd_requests_total{operation="get",group="",resource="namespaces"} `
		for l := range strings.Lines(string(rec.AppendText(context.Background(), nil))) {
			if v, ok := strings.CutPrefix(l, line); ok {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil {
					t.Fatalf("%q: %v", l, err)
				}
				return n
			}
		}
		return 0
	}
	for i := range 5 {
		// Each namespace is new: its first create may find it only in etcd.
		ns := fmt.Sprintf("/api/v1/namespaces/n%d", i)
		must(t, 201, base, "POST", "/api/v1/namespaces", fmt.Sprintf(`{"metadata":{"name":"n%d"}}`, i))
		must(t, 201, base, "POST", ns+"/configmaps", `{"metadata":{"name":"first"}}`)
		before := gets()
		for j := range 10 {
			must(t, 201, base, "POST", ns+"/configmaps", fmt.Sprintf(`{"metadata":{"name":"cm-%d"}}`, j))
		}
		if n := gets() - before; n != 0 {
			t.Errorf("10 creates in n%d read its key from etcd %d times; want 0", i, n)
		}
	}
	must(t, 404, base, "POST", "/api/v1/namespaces/none/configmaps", `{"metadata":{"name":"a"}}`)
	// A finalizer holds n0 Terminating while the controller empties it.
	must(t, 201, base, "POST", "/api/v1/namespaces/n0/configmaps", `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`)
	must(t, 200, base, "DELETE", "/api/v1/namespaces/n0", "")
	r := must(t, 403, base, "POST", "/api/v1/namespaces/n0/configmaps", `{"metadata":{"name":"late"}}`)
	if !strings.Contains(r.body, "unable to create new content in namespace n0 because it is being terminated") {
		t.Errorf("create in a deleted namespace: %s", r.body)
	}
}
