package serverstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/server/servertest"
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
	// A JSON value names its apiVersion and kind, without which
	// kube-apiserver cannot read it ("Object 'Kind' is missing"; recorded
	// in testdata/reference-v1.37.1-etcd-values.txt).
	if v := raw("/registry/example.apisem.dev/widgets/ns1/w"); !strings.HasPrefix(v, "{") ||
		str(t, v, "apiVersion") != "example.apisem.dev/v1" || str(t, v, "kind") != "Widget" {
		t.Errorf("widget value %q; want JSON with apiVersion example.apisem.dev/v1, kind Widget", v)
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

// With Options.JSON every value is JSON, and names its apiVersion and
// kind, as kube-apiserver's are with --storage-media-type=application/json,
// and ends with a newline, as theirs do (its JSON serializer's encoder
// writes one; testdata/reference-v1.37.1-etcd-values.txt).
func TestStoredValuesJSON(t *testing.T) {
	_, c := newEtcd(t)
	s, err := demo.New(demo.Options{Storage: serverstore.Storage(serverstore.Options{Client: c, JSON: true})})
	if err != nil {
		t.Fatal(err)
	}
	base := servertest.Start(t, s)
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	must(t, 201, base, "POST", cms, `{"metadata":{"name":"p"},"data":{"k":"1"}}`)
	resp, err := c.Get(context.Background(), "/registry/configmaps/ns1/p")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("etcd get: %v %v", resp, err)
	}
	if v := string(resp.Kvs[0].Value); str(t, v, "apiVersion") != "v1" || str(t, v, "kind") != "ConfigMap" || str(t, v, "data.k") != "1" ||
		!strings.HasSuffix(v, "}\n") {
		t.Errorf("configmap value %q; want JSON with apiVersion v1, kind ConfigMap, and a newline after, as kube-apiserver's", v)
	}
	if got := must(t, 200, base, "GET", cms+"/p", "").body; str(t, got, "data.k") != "1" {
		t.Errorf("configmap read back: %s", got)
	}
}
