package interop

import (
	"context"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/table"
	"io"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/server"
)

var gizmos = schema.GroupVersionResource{Group: "demo.io", Version: "v1", Resource: "gizmos"}

// startGizmos serves gizmos.demo.io/v1, a resource defined at run time
// with no Go type, as a CRD defines one.
func startGizmos(t *testing.T) *rest.Config {
	t.Helper()
	color, err := server.JSONPathColumn(table.Column{Name: "Color", Type: "string"}, ".spec.color")
	if err != nil {
		t.Fatal(err)
	}
	field, err := server.JSONPathField(".spec.color")
	if err != nil {
		t.Fatal(err)
	}
	_, url := servertest.New(t, server.Options{Resources: []*server.Resource{server.UnstructuredResource(server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Gizmo", ListKind: "GizmoList",
		Plural: "gizmos", Singular: "gizmo", Namespaced: true,
		Columns: []table.Column{color},
		Fields:  map[string]func(server.Object) string{"spec.color": field},
	})}})
	return &rest.Config{Host: url, QPS: -1}
}

// The dynamic client drives an unstructured resource through every verb,
// and apimachinery's own unstructured encoder writes back exactly the
// bytes the server sent.
func TestDynamicClientUnstructured(t *testing.T) {
	cfg := startGizmos(t)
	ctx := context.Background()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gr := dyn.Resource(gizmos).Namespace("ns")
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "demo.io/v1", "kind": "Gizmo",
		"metadata": map[string]any{"name": "g1", "labels": map[string]any{"app": "x"}},
		"spec":     map[string]any{"color": "red", "size": int64(3), "ratio": 0.5},
		"data":     map[string]any{"k": "v"},
	}}
	created, err := gr.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.GetGeneration() != 1 || created.GetUID() == "" || created.GetKind() != "Gizmo" {
		t.Fatalf("created %v", created.Object)
	}
	if size, _, _ := unstructured.NestedInt64(created.Object, "spec", "size"); size != 3 {
		t.Errorf("spec.size = %d", size)
	}

	w, err := gr.Watch(ctx, metav1.ListOptions{ResourceVersion: created.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	_ = unstructured.SetNestedField(created.Object, "blue", "spec", "color")
	updated, err := gr.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil || updated.GetGeneration() != 2 {
		t.Fatalf("Update = %v, %v", updated, err)
	}
	patched, err := gr.Patch(ctx, "g1", types.MergePatchType, []byte(`{"spec":{"size":4}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(patched.Object, "spec", "size"); size != 4 {
		t.Errorf("patched spec.size = %d", size)
	}
	for _, want := range []string{"blue", "blue"} {
		e := <-w.ResultChan()
		u, ok := e.Object.(*unstructured.Unstructured)
		if e.Type != watch.Modified || !ok {
			t.Fatalf("event %v %T", e.Type, e.Object)
		}
		if c, _, _ := unstructured.NestedString(u.Object, "spec", "color"); c != want {
			t.Errorf("event color %q; want %q", c, want)
		}
	}

	list, err := gr.List(ctx, metav1.ListOptions{FieldSelector: "spec.color=blue"})
	if err != nil || len(list.Items) != 1 || list.GetResourceVersion() == "" {
		t.Fatalf("List = %v, %v", list, err)
	}
	if list, err := gr.List(ctx, metav1.ListOptions{FieldSelector: "spec.color=red"}); err != nil || len(list.Items) != 0 {
		t.Fatalf("List red = %v, %v", list, err)
	}

	// The metadata client asks for protobuf PartialObjectMetadata first.
	mc, err := metadata.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := mc.Resource(gizmos).Namespace("ns").Get(ctx, "g1", metav1.GetOptions{})
	if err != nil || pm.Labels["app"] != "x" || pm.Generation != 3 {
		t.Fatalf("metadata Get = %v, %v", pm, err)
	}

	// apimachinery encodes an unstructured object and list to the very
	// bytes the server wrote.
	for _, path := range []string{"/apis/demo.io/v1/namespaces/ns/gizmos/g1", "/apis/demo.io/v1/namespaces/ns/gizmos"} {
		resp, err := http.Get(cfg.Host + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		decoded, _, err := unstructured.UnstructuredJSONScheme.Decode(body, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		again, err := runtime.Encode(unstructured.UnstructuredJSONScheme, decoded)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(body) {
			t.Errorf("GET %s:\nserver    %s\napimachinery %s", path, body, again)
		}
	}

	if err := gr.Delete(ctx, "g1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if e := <-w.ResultChan(); e.Type != watch.Deleted {
		t.Errorf("event %v; want DELETED", e.Type)
	}
}
