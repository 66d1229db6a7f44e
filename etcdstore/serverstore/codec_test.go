package serverstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apisem/apisem/envelope"
)

// Values are stored as Kubernetes stores them: a type with a protobuf form
// (ConfigMap) in the "k8s\x00" envelope with its apiVersion and kind, one
// without (the demo's Widget) as JSON; a JSON value written before (or by
// hand) still reads, and the next write stores it in the envelope.
func TestStoredValues(t *testing.T) {
	_, c := newEtcd(t)
	_, base := newServer(t, c)
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	must(t, 201, base, "POST", cms, `{"metadata":{"name":"p","labels":{"l":"v"}},"data":{"k":"1"}}`)
	must(t, 201, base, "POST", "/apis/example.apisem.dev/v1/namespaces/ns1/widgets", `{"metadata":{"name":"w"},"spec":{"color":"red","size":1}}`)
	if _, err := c.Put(context.Background(), "/registry/configmaps/ns1/j", `{"metadata":{"name":"j","namespace":"ns1","uid":"uj"},"data":{"k":"old"}}`); err != nil {
		t.Fatal(err)
	}
	raw := func(key string) string {
		t.Helper()
		resp, err := c.Get(context.Background(), key)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("etcd get %s: %v %v", key, resp, err)
		}
		return string(resp.Kvs[0].Value)
	}
	proto := func(key string) {
		t.Helper()
		v := raw(key)
		e, err := envelope.ConsumeEnvelope([]byte(v))
		if !strings.HasPrefix(v, envelope.Magic) || err != nil || e.APIVersion != "v1" || e.Kind != "ConfigMap" {
			t.Errorf("%s: %q (%v); want a v1 ConfigMap in the protobuf envelope", key, v, err)
		}
	}
	proto("/registry/configmaps/ns1/p")
	if v := raw("/registry/example.apisem.dev/widgets/ns1/w"); !strings.HasPrefix(v, "{") {
		t.Errorf("widget value %q; want JSON", v)
	}
	got := must(t, 200, base, "GET", cms+"/p", "").body
	if str(t, got, "data.k") != "1" || str(t, got, "metadata.labels.l") != "v" || str(t, got, "metadata.uid") == "" {
		t.Errorf("configmap read back from protobuf: %s", got)
	}
	if got := must(t, 200, base, "GET", cms+"/j", "").body; str(t, got, "data.k") != "old" || str(t, got, "metadata.uid") != "uj" {
		t.Errorf("configmap stored as JSON: %s", got)
	}
	must(t, 200, base, "PATCH", cms+"/j", `{"data":{"k":"new"}}`)
	proto("/registry/configmaps/ns1/j")
	if got := must(t, 200, base, "GET", cms+"/j", "").body; str(t, got, "data.k") != "new" || str(t, got, "metadata.uid") != "uj" {
		t.Errorf("configmap rewritten: %s", got)
	}
}
