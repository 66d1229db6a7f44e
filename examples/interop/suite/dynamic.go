package suite

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/restmapper"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

var widgets = schema.GroupVersionResource{Group: "example.apisem.dev", Version: "v1", Resource: "widgets"}

func widget(name, color string, size int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.apisem.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"color": color, "size": size},
	}}
}

// The dynamic client drives the custom resource, which discovery and the
// REST mapper find like a CRD's.
func (e env) dynamicClientCustomResource(t *testing.T) {
	ts := e.start(t, demo.Options{})
	ctx := context.Background()
	namespace(t, ts.clientset(t, false), "ns1")

	dc, err := discovery.NewDiscoveryClientForConfig(ts.config(false))
	if err != nil {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		t.Fatal(err)
	}
	// kubectl resolves names through the shortcut expander.
	mapper := restmapper.NewShortcutExpander(restmapper.NewDiscoveryRESTMapper(groups), dc, nil)
	for _, name := range []string{"widgets", "widget", "wd", "Widget"} {
		gvr, err := mapper.ResourceFor(schema.GroupVersionResource{Resource: name})
		if err != nil || gvr != widgets {
			t.Errorf("ResourceFor(%q) = %v, %v; want %v", name, gvr, err, widgets)
		}
	}
	if gvr, err := mapper.ResourceFor(schema.GroupVersionResource{Resource: "cm"}); err != nil || gvr.Resource != "configmaps" {
		t.Errorf("ResourceFor(cm) = %v, %v", gvr, err)
	}

	dyn, err := dynamic.NewForConfig(ts.config(false))
	if err != nil {
		t.Fatal(err)
	}
	wr := dyn.Resource(widgets).Namespace("ns1")
	created, err := wr.Create(ctx, widget("w1", "red", 3), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.GetGeneration() != 1 || created.GetUID() == "" || created.GetKind() != "Widget" {
		t.Fatalf("created: %v", created.Object)
	}
	if _, err := wr.Create(ctx, widget("w2", "pink", 1), metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("pink widget: err %v; want Invalid", err)
	}

	if err := unstructured.SetNestedField(created.Object, int64(5), "spec", "size"); err != nil {
		t.Fatal(err)
	}
	updated, err := wr.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil || updated.GetGeneration() != 2 {
		t.Fatalf("Update = %v, %v", updated, err)
	}
	patched, err := wr.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{})
	if err != nil || patched.Object["spec"].(map[string]any)["color"] != "blue" {
		t.Fatalf("merge Patch = %v, %v", patched, err)
	}
	if _, err := wr.Patch(ctx, "w1", types.StrategicMergePatchType, []byte(`{"spec":{"color":"red"}}`), metav1.PatchOptions{}); !apierrors.IsUnsupportedMediaType(err) {
		t.Fatalf("strategic Patch of a custom resource: err %v; want 415", err)
	}

	list, err := dyn.Resource(widgets).List(ctx, metav1.ListOptions{FieldSelector: "spec.color=blue"})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "w1" || list.Items[0].GetKind() != "Widget" {
		t.Fatalf("List spec.color=blue = %v, %v", list, err)
	}

	// A custom resource's delete returns the deleted object.
	if err := wr.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := wr.Get(ctx, "w1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("Get after Delete: err %v", err)
	}
}

// The metadata client (controller-runtime's metadata-only informers use
// it) reads PartialObjectMetadata and PartialObjectMetadataList, over
// protobuf.
func (e env) metadataClient(t *testing.T) {
	ts := e.start(t, demo.Options{})
	ctx := context.Background()
	cs := ts.clientset(t, false)
	namespace(t, cs, "ns1")
	dyn, _ := dynamic.NewForConfig(ts.config(false))
	if _, err := dyn.Resource(widgets).Namespace("ns1").Create(ctx, widget("w1", "red", 3), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mc, err := metadata.NewForConfig(ts.config(false))
	if err != nil {
		t.Fatal(err)
	}
	for _, gvr := range []schema.GroupVersionResource{widgets, {Version: "v1", Resource: "namespaces"}} {
		list, err := mc.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) != 1 || list.ResourceVersion == "" {
			t.Fatalf("metadata List %v = %+v, %v", gvr, list, err)
		}
		item := list.Items[0]
		if item.UID == "" || item.CreationTimestamp.IsZero() {
			t.Errorf("metadata item: %+v", item)
		}
	}
	m, err := mc.Resource(widgets).Namespace("ns1").Get(ctx, "w1", metav1.GetOptions{})
	if err != nil || m.Name != "w1" || m.Generation != 1 || m.UID == "" {
		t.Fatalf("metadata Get = %+v, %v", m, err)
	}
	// A metadata watch on the custom resource: protobuf
	// PartialObjectMetadata events, as a CRD serves them.
	w, err := mc.Resource(widgets).Namespace("ns1").Watch(ctx, metav1.ListOptions{ResourceVersion: m.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := dyn.Resource(widgets).Namespace("ns1").Create(ctx, widget("w2", "blue", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-w.ResultChan():
		if p, ok := e.Object.(*metav1.PartialObjectMetadata); e.Type != watch.Added || !ok || p.Name != "w2" {
			t.Errorf("metadata watch event %s %#v", e.Type, e.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no metadata watch event")
	}
	if err := mc.Resource(widgets).Namespace("ns1").Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// The widgets' status subresource, through the dynamic client's
// UpdateStatus, as a controller writes a custom resource's status.
func (e env) dynamicClientStatusSubresource(t *testing.T) {
	ts := e.start(t, demo.Options{})
	ctx := context.Background()
	namespace(t, ts.clientset(t, false), "ns1")
	dyn, err := dynamic.NewForConfig(ts.config(false))
	if err != nil {
		t.Fatal(err)
	}
	wr := dyn.Resource(widgets).Namespace("ns1")
	w := widget("w1", "red", 3)
	w.Object["status"] = map[string]any{"ready": true}
	created, err := wr.Create(ctx, w, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedMap(created.Object, "status"); found {
		t.Errorf("create kept the status: %v", created.Object["status"])
	}
	if err := unstructured.SetNestedField(created.Object, true, "status", "ready"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(created.Object, "blue", "spec", "color"); err != nil {
		t.Fatal(err)
	}
	updated, err := wr.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready, _, _ := unstructured.NestedBool(updated.Object, "status", "ready")
	color, _, _ := unstructured.NestedString(updated.Object, "spec", "color")
	if !ready || color != "red" || updated.GetGeneration() != 1 {
		t.Errorf("after UpdateStatus: ready %v, color %q, generation %d; want true, red, 1", ready, color, updated.GetGeneration())
	}
}
