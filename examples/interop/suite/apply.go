package suite

import (
	"context"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// client-go's typed Apply with an apply configuration: create on apply,
// shared and taken ownership, the conflict as apierrors.IsConflict with
// one cause per field, force, and the managedFields a client reads back.
// Over JSON and protobuf alike (apply bodies are JSON either way).
func (e env) typedApplyConfigMap(t *testing.T) {
	for _, protobuf := range []bool{false, true} {
		ts := e.start(t, demo.Options{})
		cs := ts.clientset(t, protobuf)
		ctx := context.Background()
		namespace(t, cs, "ns1")
		cms := cs.CoreV1().ConfigMaps("ns1")

		cm, err := cms.Apply(ctx, corev1ac.ConfigMap("app", "ns1").WithData(map[string]string{"a": "1", "b": "2"}),
			metav1.ApplyOptions{FieldManager: "deployer"})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Data["a"] != "1" || len(cm.ManagedFields) != 1 {
			t.Fatalf("created %+v", cm)
		}
		if e := cm.ManagedFields[0]; e.Manager != "deployer" || e.Operation != metav1.ManagedFieldsOperationApply ||
			e.APIVersion != "v1" || e.FieldsType != "FieldsV1" || e.Time == nil ||
			string(e.FieldsV1.Raw) != `{"f:data":{"f:a":{},"f:b":{}}}` {
			t.Errorf("entry %+v %s", e, e.FieldsV1.Raw)
		}

		// A second manager may set the same value (shared), not another.
		_, err = cms.Apply(ctx, corev1ac.ConfigMap("app", "ns1").WithData(map[string]string{"a": "1"}),
			metav1.ApplyOptions{FieldManager: "helper"})
		if err != nil {
			t.Fatalf("shared apply: %v", err)
		}
		_, err = cms.Apply(ctx, corev1ac.ConfigMap("app", "ns1").WithData(map[string]string{"a": "9", "b": "9"}),
			metav1.ApplyOptions{FieldManager: "rival"})
		if !apierrors.IsConflict(err) {
			t.Fatalf("conflicting apply: %v; want a conflict", err)
		}
		st := err.(apierrors.APIStatus).Status()
		want := "Apply failed with 3 conflicts: conflicts with \"deployer\":\n- .data.a\n- .data.b\nconflicts with \"helper\":\n- .data.a"
		if st.Message != want {
			t.Errorf("message %q; want %q", st.Message, want)
		}
		if st.Details == nil || len(st.Details.Causes) != 3 || st.Details.Causes[0].Type != metav1.CauseTypeFieldManagerConflict ||
			st.Details.Causes[0].Field != ".data.a" || st.Details.Causes[0].Message != `conflict with "deployer"` {
			t.Errorf("details %+v", st.Details)
		}

		// An update by kubectl edit owns what it changed; force takes it.
		cm, err = cms.Get(ctx, "app", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data["c"] = "3"
		if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
			t.Fatal(err)
		}
		cm, err = cms.Apply(ctx, corev1ac.ConfigMap("app", "ns1").WithData(map[string]string{"c": "4"}),
			metav1.ApplyOptions{FieldManager: "rival", Force: true})
		if err != nil {
			t.Fatalf("forced apply: %v", err)
		}
		managers := map[string]string{}
		for _, e := range cm.ManagedFields {
			managers[e.Manager] = string(e.FieldsV1.Raw)
		}
		if cm.Data["c"] != "4" || managers["kubectl-edit"] != "" || managers["rival"] != `{"f:data":{"f:c":{}}}` {
			t.Errorf("after force: data %v, managers %v", cm.Data, managers)
		}

		// Dropping a field one applied removes it unless someone else
		// owns it.
		cm, err = cms.Apply(ctx, corev1ac.ConfigMap("app", "ns1").WithData(map[string]string{"b": "2"}),
			metav1.ApplyOptions{FieldManager: "deployer"})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Data["a"] != "1" || cm.Data["b"] != "2" {
			t.Errorf("a is still helper's: data %v", cm.Data)
		}
		cm, err = cms.Apply(ctx, corev1ac.ConfigMap("app", "ns1"), metav1.ApplyOptions{FieldManager: "deployer"})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cm.Data["b"]; ok {
			t.Errorf("b was deployer's alone and should be gone: %v", cm.Data)
		}

		// Dry run answers the merge and stores nothing.
		dry, err := cms.Apply(ctx, corev1ac.ConfigMap("app", "ns1").WithData(map[string]string{"d": "5"}),
			metav1.ApplyOptions{FieldManager: "deployer", DryRun: []string{metav1.DryRunAll}})
		if err != nil || dry.Data["d"] != "5" {
			t.Fatalf("dry run: %v %v", dry, err)
		}
		if got, _ := cms.Get(ctx, "app", metav1.GetOptions{}); got.Data["d"] != "" {
			t.Errorf("dry run stored %v", got.Data)
		}
		if _, err := cms.Apply(ctx, corev1ac.ConfigMap("new", "ns1"), metav1.ApplyOptions{FieldManager: "x", DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Fatal(err)
		}
		if _, err := cms.Get(ctx, "new", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("dry-run create on apply stored it: %v", err)
		}

		// A create without fieldManager is owned by the User-Agent's
		// program (the test binary's name).
		program, _, _ := strings.Cut(rest.DefaultKubernetesUserAgent(), "/")
		c2, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ua"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(c2.ManagedFields) != 1 || c2.ManagedFields[0].Manager != program || c2.ManagedFields[0].Operation != metav1.ManagedFieldsOperationUpdate {
			t.Errorf("create entries %+v", c2.ManagedFields)
		}
	}
}

// The dynamic client's Apply on the custom resource, whose schema makes
// the merge typed; a conflict carries its causes through.
func (e env) dynamicApplyWidget(t *testing.T) {
	ts := e.start(t, demo.Options{})
	ctx := context.Background()
	namespace(t, ts.clientset(t, false), "ns1")
	dyn, err := dynamic.NewForConfig(ts.config(false))
	if err != nil {
		t.Fatal(err)
	}
	ws := dyn.Resource(widgets).Namespace("ns1")
	w, err := ws.Apply(ctx, "w", widget("w", "red", 3), metav1.ApplyOptions{FieldManager: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.GetManagedFields(); len(got) != 1 || string(got[0].FieldsV1.Raw) != `{"f:spec":{"f:color":{},"f:size":{}}}` {
		t.Errorf("entries %+v", got)
	}
	if g := w.GetGeneration(); g != 1 {
		t.Errorf("generation %d", g)
	}
	_, err = ws.Apply(ctx, "w", widget("w", "blue", 3), metav1.ApplyOptions{FieldManager: "autoscaler"})
	if !apierrors.IsConflict(err) {
		t.Fatalf("got %v; want a conflict", err)
	}
	if st := err.(apierrors.APIStatus).Status(); st.Message != `Apply failed with 1 conflict: conflict with "ops": .spec.color` ||
		len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != ".spec.color" {
		t.Errorf("conflict %+v", st)
	}
	w, err = ws.Apply(ctx, "w", widget("w", "blue", 3), metav1.ApplyOptions{FieldManager: "autoscaler", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, _ := unstructured.NestedString(w.Object, "spec", "color"); c != "blue" || w.GetGeneration() != 2 {
		t.Errorf("forced: color %q generation %d", c, w.GetGeneration())
	}
	// A field the schema does not declare fails the apply, as on a
	// cluster: a 500 naming the configuration's namespace (none) and name.
	bad := widget("w", "blue", 3)
	unstructured.SetNestedField(bad.Object, "x", "spec", "shape")
	if _, err := ws.Apply(ctx, "w", bad, metav1.ApplyOptions{FieldManager: "ops"}); apierrors.ReasonForError(err) != metav1.StatusReasonUnknown || err.(apierrors.APIStatus).Status().Code != 500 ||
		err.Error() != `failed to create typed patch object (/w; example.apisem.dev/v1, Kind=Widget): .spec.shape: field not declared in schema` {
		t.Errorf("undeclared field: %v", err)
	}
}

// The status subresource: an apply to status owns status alone, under its
// own entry (subresource "status"); the object's apply owns nothing of
// status, which it cannot change.
func (e env) applyStatusSubresource(t *testing.T) {
	ts := e.start(t, demo.Options{})
	ctx := context.Background()
	namespace(t, ts.clientset(t, false), "ns1")
	dyn, err := dynamic.NewForConfig(ts.config(false))
	if err != nil {
		t.Fatal(err)
	}
	ws := dyn.Resource(widgets).Namespace("ns1")
	w := widget("w", "red", 3)
	unstructured.SetNestedField(w.Object, true, "status", "ready")
	if w, err = ws.Apply(ctx, "w", w, metav1.ApplyOptions{FieldManager: "ops"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := unstructured.NestedFieldNoCopy(w.Object, "status", "ready"); ok {
		t.Errorf("the object's apply set status: %v", w.Object["status"])
	}
	st := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.apisem.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w"}, "status": map[string]any{"ready": true}, "spec": map[string]any{"color": "blue"}}}
	if w, err = ws.ApplyStatus(ctx, "w", st, metav1.ApplyOptions{FieldManager: "controller"}); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := unstructured.NestedString(w.Object, "spec", "color"); c != "red" {
		t.Errorf("the status apply changed spec.color to %q", c)
	}
	got := map[string]string{}
	for _, e := range w.GetManagedFields() {
		got[e.Manager+"/"+e.Subresource] = string(e.FieldsV1.Raw)
	}
	want := map[string]string{"ops/": `{"f:spec":{"f:color":{},"f:size":{}}}`, "controller/status": `{"f:status":{"f:ready":{}}}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries %v; want %v", got, want)
	}
}
