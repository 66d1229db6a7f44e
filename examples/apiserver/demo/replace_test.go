package demo

import (
	"context"
	"strings"
	"testing"

	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

// cmOf is a ConfigMap of another Go type than api.ConfigMap, as module
// builtin's are: the demo's Create converts through JSON.
type cmOf struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

func (c *cmOf) Meta() *meta.ObjectMeta { return &c.ObjectMeta }
func (c *cmOf) Types() *meta.TypeMeta  { return &c.TypeMeta }
func (c *cmOf) DeepCopyObject() server.Object {
	o := *c
	o.ObjectMeta = *c.ObjectMeta.DeepCopy()
	if c.Data != nil {
		o.Data = map[string]string{}
		for k, v := range c.Data {
			o.Data[k] = v
		}
	}
	return &o
}

// Options.Resources replace the demo's of the same group and plural: one
// configmaps resource is served, the replacement, and the demo's Create
// stores through it.
func TestOptionsResourcesReplace(t *testing.T) {
	repl := &server.Resource{Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList",
		Plural: "configmaps", Singular: "configmap", Namespaced: true,
		New: func() server.Object { return &cmOf{} },
		Default: func(o server.Object) {
			m := o.Meta()
			m.Labels = map[string]string{"served-by": "replacement"}
		}}
	s, url := newTestServer(t, Options{Resources: []*server.Resource{repl}})
	if err := s.Namespaces().CreateSystemNamespaces(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err := s.Create(context.Background(), &api.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "c", Namespace: "default"},
		Data: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := got.(*cmOf); !ok || c.Data["k"] != "v" || c.Labels["served-by"] != "replacement" {
		t.Fatalf("created %#v; want the replacement's type, data and default", got)
	}
	body := must(t, 200, url, "GET", "/api/v1", "").body
	if n := strings.Count(body, `"name":"configmaps"`); n != 1 {
		t.Errorf("/api/v1 lists configmaps %d times:\n%s", n, body)
	}
	if !strings.Contains(must(t, 200, url, "GET", "/api/v1/namespaces/default/configmaps/c", "").body, `"served-by":"replacement"`) {
		t.Error("GET does not serve the replacement's object")
	}
}
