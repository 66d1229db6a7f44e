package interop

import (
	"context"
	"errors"
	"net/http"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/crd/cel"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/examples/interop/suite"
	"github.com/apisem/apisem/server/servertest"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

var widgetGVK = schema.GroupVersionKind{Group: "apps.example.com", Version: "v1", Kind: "Widget"}

const widgetFinalizer = "apps.example.com/cleanup"

// widgetsCRD has a schema, the status and scale subresources, a printer
// column and a CEL rule.
func widgetsCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.apps.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "apps.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
				},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
				},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"replicas":    {Type: "integer", Minimum: suite.Ptr(0.0)},
							"maxReplicas": {Type: "integer"},
						}, XValidations: apiextensionsv1.ValidationRules{{
							Rule:    "!has(self.maxReplicas) || self.replicas <= self.maxReplicas",
							Message: "replicas must not exceed maxReplicas",
						}}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"observedGeneration": {Type: "integer"},
							"replicas":           {Type: "integer"},
						}},
					},
				}},
			}},
		},
	}
}

// widgetReconciler keeps a finalizer on widgets, mirrors spec.replicas
// and the generation it saw into the status, and releases deleted
// widgets. It signals every pass on reconciled.
type widgetReconciler struct {
	client.Client
	reconciled chan struct{}
}

func (r *widgetReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	defer func() {
		select {
		case r.reconciled <- struct{}{}:
		default:
		}
	}()
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(widgetGVK)
	if err := r.Get(ctx, req.NamespacedName, w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !w.GetDeletionTimestamp().IsZero() {
		if controllerutil.RemoveFinalizer(w, widgetFinalizer) {
			return reconcile.Result{}, r.Update(ctx, w)
		}
		return reconcile.Result{}, nil
	}
	if controllerutil.AddFinalizer(w, widgetFinalizer) {
		if err := r.Update(ctx, w); err != nil {
			return reconcile.Result{}, err
		}
	}
	replicas, _, _ := unstructured.NestedInt64(w.Object, "spec", "replicas")
	if err := unstructured.SetNestedField(w.Object, map[string]any{
		"observedGeneration": w.GetGeneration(), "replicas": replicas,
	}, "status"); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, r.Status().Update(ctx, w)
}

// A controller-runtime manager runs against the demo server: the CRD is
// installed with the apiextensions clientset, widgets are written with
// client.Apply (server-side apply), the reconciler maintains a finalizer
// and the status, the CEL rule refuses a bad spec, and deletion waits for
// the finalizer; the manager then stops.
func TestControllerRuntimeManager(t *testing.T) {
	s, err := demo.NewWith(demo.Options{}, crd.Options{Rules: cel.Compiler{}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &rest.Config{Host: servertest.Start(t, s), QPS: -1}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// Install the definition and wait for it to be established.
	// The clientset sends protobuf unless told otherwise; definitions
	// are served as JSON only.
	extCfg := *cfg
	extCfg.ContentType = "application/json"
	ext, err := apiextensionsclient.NewForConfig(&extCfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, widgetsCRD(), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wi, err := ext.ApiextensionsV1().CustomResourceDefinitions().Watch(ctx, metav1.ListOptions{
		FieldSelector: "metadata.name=" + d.Name, ResourceVersion: d.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	for !suite.IsEstablished(d) {
		ev, ok := <-wi.ResultChan()
		if !ok {
			t.Fatal("watch ended before the definition was established")
		}
		if ev.Type == watch.Modified {
			d = ev.Object.(*apiextensionsv1.CustomResourceDefinition)
		}
	}
	wi.Stop()

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: suite.Ptr(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &widgetReconciler{Client: mgr.GetClient(), reconciled: make(chan struct{}, 1)}
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(widgetGVK)
	if err := ctrl.NewControllerManagedBy(mgr).For(w).Complete(rec); err != nil {
		t.Fatal(err)
	}
	mctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	stopped := false
	stopManager := func() {
		if stopped {
			return
		}
		stopped = true
		stop()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}
	defer stopManager()

	// A client that reads the server directly, not the manager's cache.
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "default", Name: "w1"}
	apply := func(spec map[string]any) error {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": widgetGVK.GroupVersion().String(), "kind": widgetGVK.Kind,
			"metadata": map[string]any{"name": key.Name, "namespace": key.Namespace},
			"spec":     spec,
		}}
		return c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("test"), client.ForceOwnership)
	}
	// waitFor waits, pass by pass of the reconciler, until cond holds for
	// the widget as stored (nil once it is gone).
	waitFor := func(what string, cond func(*unstructured.Unstructured) bool) *unstructured.Unstructured {
		t.Helper()
		for {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(widgetGVK)
			err := c.Get(ctx, key, got)
			if apierrors.IsNotFound(err) {
				got = nil
			} else if err != nil {
				t.Fatal(err)
			}
			if cond(got) {
				return got
			}
			select {
			case <-rec.reconciled:
			case <-ctx.Done():
				t.Fatalf("timed out waiting for %s; widget %v", what, got)
			}
		}
	}
	observed := func(gen int64) func(*unstructured.Unstructured) bool {
		return func(u *unstructured.Unstructured) bool {
			if u == nil {
				return false
			}
			g, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
			return g == gen && u.GetGeneration() == gen && controllerutil.ContainsFinalizer(u, widgetFinalizer)
		}
	}

	if err := apply(map[string]any{"replicas": int64(2), "maxReplicas": int64(5)}); err != nil {
		t.Fatal(err)
	}
	got := waitFor("the status of generation 1", observed(1))
	if r, _, _ := unstructured.NestedInt64(got.Object, "status", "replicas"); r != 2 {
		t.Errorf("status.replicas = %d; want 2", r)
	}

	// The CEL rule refuses a spec over its maximum, with its message.
	err = apply(map[string]any{"replicas": int64(9), "maxReplicas": int64(5)})
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.Status().Code != http.StatusUnprocessableEntity ||
		!strings.Contains(se.Error(), "spec: Invalid value: replicas must not exceed maxReplicas") {
		t.Fatalf("apply over maxReplicas: %v; want a 422 with the rule's message", err)
	}

	if err := apply(map[string]any{"replicas": int64(4), "maxReplicas": int64(5)}); err != nil {
		t.Fatal(err)
	}
	got = waitFor("the status of generation 2", observed(2))
	if r, _, _ := unstructured.NestedInt64(got.Object, "status", "replicas"); r != 4 {
		t.Errorf("status.replicas = %d; want 4", r)
	}

	// Deletion waits for the reconciler to remove its finalizer.
	if err := c.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	waitFor("the widget to be gone", func(u *unstructured.Unstructured) bool { return u == nil })

	// Once Start has returned, the manager's goroutines end: its stop
	// procedure finishes in goroutines of its own, so wait for them.
	stopManager()
	var left string
	suite.Eventually(t, "the manager's goroutines to end", func() bool {
		var stacks strings.Builder
		if err := pprof.Lookup("goroutine").WriteTo(&stacks, 2); err != nil {
			t.Fatal(err)
		}
		left = ""
		for _, g := range strings.Split(stacks.String(), "\n\n") {
			if strings.Contains(g, "sigs.k8s.io/controller-runtime") {
				left += g + "\n\n"
			}
		}
		return left == ""
	})
	if left != "" {
		t.Errorf("goroutines left after the manager stopped:\n%s", left)
	}
}
