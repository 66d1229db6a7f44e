package suite

import (
	"context"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// Ptr returns a pointer to v.
func Ptr[T any](v T) *T { return &v }

// gadgetsCRD defines gadgets.stable.example.com/v1 with a schema, the
// status subresource and printer columns.
func gadgetsCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ShortNames: []string{"gd"}},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
				},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Required: []string{"size"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer", Minimum: Ptr(1.0)},
							"mode": {Type: "string", Default: &apiextensionsv1.JSON{Raw: []byte(`"auto"`)}},
						}},
						"status": {Type: "object", XPreserveUnknownFields: Ptr(true)},
					},
				}},
			}},
		},
	}
}

// The apiextensions clientset installs a CustomResourceDefinition, waits
// for it to be established by watching it, and the dynamic client uses
// the resource it defines; deleting the definition deletes its objects.
func (e env) customResourceDefinition(t *testing.T) {
	ts := e.start(t, demo.Options{})
	ctx := context.Background()
	namespace(t, ts.clientset(t, false), "ns1")
	// The clientset sends protobuf by default; the definitions have no
	// protobuf form here, so it is told to speak JSON.
	cfg := ts.config(false)
	cfg.ContentType = "application/json"
	ax, err := apiextensions.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	crds := ax.ApiextensionsV1().CustomResourceDefinitions()
	created, err := crds.Create(ctx, gadgetsCRD(), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.Names.ListKind != "GadgetList" || created.Spec.Conversion == nil || created.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("defaults: listKind %q, conversion %+v", created.Spec.Names.ListKind, created.Spec.Conversion)
	}
	w, err := crds.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", created.Name).String(),
		ResourceVersion: created.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	established := created
	for !IsEstablished(established) {
		ev := Next(t, w, "the definition to be established")
		established = ev.Object.(*apiextensionsv1.CustomResourceDefinition)
	}
	w.Stop()
	if got := established.Status.AcceptedNames.Kind; got != "Gadget" {
		t.Errorf("acceptedNames.kind = %q", got)
	}

	gvr := schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "gadgets"}
	dc, err := dynamic.NewForConfig(ts.config(false))
	if err != nil {
		t.Fatal(err)
	}
	gadgets := dc.Resource(gvr).Namespace("ns1")
	// Established means served: by every replica when the server is
	// several (their controllers wait for each other, as Kubernetes' HA
	// apiservers delay Established by seconds), so the client uses the
	// API at once, whichever replica it reaches.
	for i := range 2 {
		if _, err := gadgets.List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatalf("list %d once the definition is established: %v", i+1, err)
		}
	}
	g := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g1"},
		"spec":     map[string]any{"size": int64(2), "extra": true},
	}}
	out, err := gadgets.Create(ctx, g, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mode, _, _ := unstructured.NestedString(out.Object, "spec", "mode"); mode != "auto" {
		t.Errorf("spec.mode = %q; want the default", mode)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(out.Object, "spec", "extra"); found {
		t.Errorf("spec.extra was not pruned: %v", out.Object)
	}
	// Strict field validation refuses the unknown field.
	g.SetName("g2")
	_, err = gadgets.Create(ctx, g, metav1.CreateOptions{FieldValidation: "Strict"})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `strict decoding error: unknown field "spec.extra"`) {
		t.Errorf("Strict create: %v", err)
	}
	// The schema's minimum.
	unstructured.SetNestedField(g.Object, int64(0), "spec", "size")
	_, err = gadgets.Create(ctx, g, metav1.CreateOptions{})
	if want := `Gadget.stable.example.com "g2" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`; !apierrors.IsInvalid(err) || err.Error() != want {
		t.Errorf("invalid create: %v\nwant %s", err, want)
	}

	list, err := gadgets.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %v, %v", list, err)
	}
	gw, err := gadgets.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Stop()

	// The status subresource.
	out.Object["status"] = map[string]any{"observedGeneration": out.GetGeneration()}
	st, err := gadgets.UpdateStatus(ctx, out, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ev := Next(t, gw, "the status update's event"); ev.Type != watch.Modified {
		t.Errorf("watch event %s", ev.Type)
	}
	if og, _, _ := unstructured.NestedInt64(st.Object, "status", "observedGeneration"); og != 1 || st.GetGeneration() != 1 {
		t.Errorf("status update: %v", st.Object)
	}

	// Deleting the definition removes its objects and its API. The watch
	// starts before the deletion, so that it sees its end.
	cur, err := crds.Get(ctx, created.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cw, err := crds.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", created.Name).String(),
		ResourceVersion: cur.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer cw.Stop()
	if err := crds.Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for Next(t, cw, "the definition's deletion").Type != watch.Deleted {
	}
	// Every replica stops serving the API once it has seen the deletion
	// (in memory, at once): two 404s in a row.
	inARow := 0
	Eventually(t, "404 for a list after the definition's deletion", func() bool {
		if _, err := gadgets.List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
			inARow = 0
			return false
		}
		inARow++
		return inARow == 2
	})
}

// IsEstablished reports whether d has condition Established True.
func IsEstablished(d *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}
