package interop

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

// gizmo is a Go type served without a Schema: its fields say with tags
// what gadgetSchema says with a Schema.
type gizmo struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            gizmoSpec `json:"spec,omitzero"`
}

type gizmoSpec struct {
	Replicas *int64            `json:"replicas,omitempty"`
	Image    string            `json:"image,omitempty" doc:"image"`
	Ports    []gizmoPort       `json:"ports,omitempty" apisem:"listType=map,listMapKeys=name"`
	Env      []gizmoEnv        `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Tags     []string          `json:"tags,omitempty" apisem:"listType=set"`
	Args     []string          `json:"args,omitempty" apisem:"listType=atomic"`
	Labels   map[string]string `json:"labels,omitempty"`
	Selector map[string]string `json:"selector,omitempty" apisem:"mapType=atomic"`
	Config   *struct {
		A      string         `json:"a,omitempty"`
		B      string         `json:"b,omitempty"`
		Nested map[string]any `json:"nested,omitempty"`
	} `json:"config,omitempty"`
}

type gizmoPort struct {
	Name     string `json:"name"`
	Port     *int64 `json:"port,omitempty"`
	Protocol string `json:"protocol,omitempty"`
}

type gizmoEnv struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

func (g *gizmo) Types() *meta.TypeMeta { return &g.TypeMeta }

// DeepCopyObject copies through JSON: this is a test.
func (g *gizmo) DeepCopyObject() server.Object {
	c := &gizmo{}
	b, _ := json.Marshal(g)
	json.Unmarshal(b, c)
	return c
}

// The differential test of a schema derived from a Go type: Kubernetes'
// own field manager, typed by the OpenAPI document the server publishes
// for gizmos (converted by Kubernetes' schemaconv), and the server, typed
// by its own conversion of the same schema, agree on every apply and
// update of the written scenarios. Values are never empty, so that the Go
// type's omitempty (a cluster's types have it too) changes nothing.
func TestApplyDifferentialGoType(t *testing.T) {
	s, err := server.New(server.Options{Resources: []*server.Resource{{
		Group: "diff.apisem.dev", Version: "v1", Kind: "Gizmo", ListKind: "GizmoList",
		Plural: "gizmos", Singular: "gizmo", Namespaced: true, TypedListItems: true,
		New: func() server.Object { return &gizmo{} }}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() { s.Shutdown(context.Background()); hs.Close() })
	gvr := schema.GroupVersionResource{Group: "diff.apisem.dev", Version: "v1", Resource: "gizmos"}
	spec := func(kv ...any) map[string]any {
		s := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			s[kv[i].(string)] = kv[i+1]
		}
		return map[string]any{"spec": s}
	}
	port := func(name string, p int64) map[string]any { return map[string]any{"name": name, "port": p} }
	env := func(name, v string) map[string]any { return map[string]any{"name": name, "value": v} }
	for _, sc := range []struct {
		name  string
		steps []step
	}{
		{"a second manager conflicts, then forces", []step{
			{apply: true, manager: "a", obj: spec("image", "x", "replicas", int64(1))},
			{apply: true, manager: "b", obj: spec("image", "y")},
			{apply: true, manager: "b", force: true, obj: spec("image", "y", "replicas", int64(2))},
			{apply: true, manager: "a", obj: spec("tags", []any{"t"})},
		}},
		{"list map keys and patch merge keys are owned per element", []step{
			{apply: true, manager: "a", obj: spec("ports", []any{port("http", 80)}, "env", []any{env("A", "1")})},
			{apply: true, manager: "b", obj: spec("ports", []any{port("grpc", 90)}, "env", []any{env("B", "2")})},
			{apply: true, manager: "a", obj: spec("ports", []any{port("https", 443)})},
			{apply: true, manager: "b", obj: spec("ports", []any{port("https", 8443)})},
			{apply: true, manager: "b", force: true, obj: spec("env", []any{env("A", "3")})},
		}},
		{"update then apply", []step{
			{manager: "kubectl-create", obj: spec("image", "x", "labels", map[string]any{"a": "1"})},
			{apply: true, manager: "a", obj: spec("image", "x")},
			{apply: true, manager: "a", obj: spec("image", "z", "config", map[string]any{"a": "1", "nested": map[string]any{"p": map[string]any{"r": "1"}}})},
			{manager: "editor", obj: spec("image", "w", "labels", map[string]any{"a": "1"}, "config", map[string]any{"b": "2"})},
			{apply: true, manager: "a", obj: spec("image", "q")},
		}},
		{"atomic map and list, a set", []step{
			{apply: true, manager: "a", obj: spec("selector", map[string]any{"k": "v"}, "tags", []any{"x", "y"}, "args", []any{"1"})},
			{apply: true, manager: "b", obj: spec("selector", map[string]any{"k": "v"}, "tags", []any{"y", "z"}, "args", []any{"1"})},
			{apply: true, manager: "a", obj: spec("tags", []any{"x"})},
			{apply: true, manager: "b", obj: spec("selector", map[string]any{"k": "w"}, "args", []any{"2"})},
		}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			m := newModel(t, hs.URL, gvr, "Gizmo")
			m.dyn.Delete(context.Background(), "g", metav1.DeleteOptions{})
			for _, s := range sc.steps {
				m.run(s)
			}
			// Both sides typed the lists by the tags, not as the deduced
			// type's atomic lists.
			var fields string
			for _, e := range entries(m.live.GetManagedFields()) {
				fields += e.Fields
			}
			if want := map[string]string{"list map keys and patch merge keys are owned per element": `"k:{\"name\":\"https\"}"`,
				"atomic map and list, a set": `"v:\"x\""`}[sc.name]; !strings.Contains(fields, want) {
				t.Errorf("managedFields %s; want %s in them", fields, want)
			}
		})
	}
}
