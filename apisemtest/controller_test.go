package apisemtest_test

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/apisem/apisem/apisemtest"
)

var widgetGVK = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

// childReconciler gives every widget not labelled child=true a child
// widget it controls; it signals each pass on reconciled.
type childReconciler struct {
	client.Client
	reconciled chan struct{}
}

func (r *childReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	defer func() {
		select {
		case r.reconciled <- struct{}{}:
		default:
		}
	}()
	parent := &unstructured.Unstructured{}
	parent.SetGroupVersionKind(widgetGVK)
	if err := r.Get(ctx, req.NamespacedName, parent); err != nil || parent.GetLabels()["child"] == "true" {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	child := &unstructured.Unstructured{}
	child.SetGroupVersionKind(widgetGVK)
	child.SetNamespace(parent.GetNamespace())
	child.SetName(parent.GetName() + "-child")
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, child, func() error {
		child.SetLabels(map[string]string{"child": "true"})
		if err := unstructured.SetNestedField(child.Object, int64(1), "spec", "replicas"); err != nil {
			return err
		}
		return controllerutil.SetControllerReference(parent, child, r.Scheme())
	})
	return reconcile.Result{}, err
}

// The envtest recipe with apisemtest: a controller-runtime manager whose
// reconciler creates an owned object; deleting the owner deletes it
// through the garbage collector, which envtest does not have.
func TestControllerRuntime(t *testing.T) {
	start := time.Now()
	env := apisemtest.Start(t, apisemtest.Options{CRDDirectoryPaths: []string{"testdata/crds"}})
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Metrics:    metricsserver.Options{BindAddress: "0"},          // no metrics listener
		Controller: config.Controller{SkipNameValidation: ptr(true)}, // one controller name per process otherwise
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &childReconciler{Client: mgr.GetClient(), reconciled: make(chan struct{}, 1)}
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(widgetGVK)
	if err := ctrl.NewControllerManagedBy(mgr).For(w).Owns(w.DeepCopy()).Complete(rec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a guard, not a speed goal
	defer cancel()
	mctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()

	c, err := client.New(env.Config, client.Options{}) // reads the server, not the cache
	if err != nil {
		t.Fatal(err)
	}
	parent := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"replicas": int64(1)}}}
	parent.SetGroupVersionKind(widgetGVK)
	parent.SetNamespace("default")
	parent.SetName("w")
	if err := c.Create(ctx, parent); err != nil {
		t.Fatal(err)
	}
	childKey := types.NamespacedName{Namespace: "default", Name: "w-child"}
	waitFor := func(what string, cond func(error) bool) {
		t.Helper()
		for {
			child := &unstructured.Unstructured{}
			child.SetGroupVersionKind(widgetGVK)
			if cond(c.Get(ctx, childKey, child)) {
				return
			}
			select {
			case <-rec.reconciled:
			case <-time.After(10 * time.Millisecond): // the collector acts outside the reconciler
			case <-ctx.Done():
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("the reconciler to create the child", func(err error) bool { return err == nil })
	t.Logf("test start to the child's creation: %v", time.Since(start))
	if err := c.Delete(ctx, parent); err != nil {
		t.Fatal(err)
	}
	waitFor("the garbage collector to delete the child", apierrors.IsNotFound)
}
