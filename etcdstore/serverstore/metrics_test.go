package serverstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/metrics"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// The etcd requests of each write, and the replica's first list, are
// reported with kube-apiserver's operation names and labels
// (etcd_request_duration_seconds{operation, group, resource}).
func TestEtcdRequestMetrics(t *testing.T) {
	_, c := newEtcd(t)
	rec := &metrics.Recorder{}
	s, err := demo.New(demo.Options{Storage: serverstore.Storage(serverstore.Options{Client: c, Metrics: rec}), Hooks: server.HookOptions{Metrics: rec}})
	if err != nil {
		t.Fatal(err)
	}
	rec.Source = s
	base := servertest.Start(t, s)
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	must(t, 201, base, "POST", cms, `{"metadata":{"name":"a"}}`)
	must(t, 200, base, "PATCH", cms+"/a", `{"data":{"k":"v"}}`)
	must(t, 200, base, "DELETE", cms+"/a", "")
	text := string(rec.AppendText(context.Background(), nil))
	for _, want := range []string{
		`etcd_request_duration_seconds_bucket{operation="create",group="",resource="configmaps",le="+Inf"} 1`,
		`etcd_request_duration_seconds_count{operation="update",group="",resource="configmaps"} 1`,
		`etcd_request_duration_seconds_count{operation="delete",group="",resource="configmaps"} 1`,
		`etcd_requests_total{operation="create",group="",resource="namespaces"} 1`,
		`etcd_request_duration_seconds_count{operation="list",group="",resource="configmaps"}`,
		`etcd_request_errors_total{operation="create",group="",resource="configmaps"} 0`,
		`apiserver_storage_objects{resource="namespaces"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %s in\n%s", want, grep(text, "etcd_request"))
		}
	}
}

func grep(text, prefix string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, prefix) && !strings.Contains(line, "_bucket") {
			b.WriteString(line)
		}
	}
	return b.String()
}
