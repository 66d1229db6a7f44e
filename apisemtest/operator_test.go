package apisemtest_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/apisem/apisem/apisemtest"
)

// appReconciler runs every widget as a Deployment and a Service, both
// controlled by the widget; it signals each pass on reconciled.
type appReconciler struct {
	client.Client
	reconciled chan struct{}
}

func (r *appReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	defer func() {
		select {
		case r.reconciled <- struct{}{}:
		default:
		}
	}()
	owner := &unstructured.Unstructured{}
	owner.SetGroupVersionKind(widgetGVK)
	if err := r.Get(ctx, req.NamespacedName, owner); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	labels := map[string]string{"app": owner.GetName()}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: owner.GetNamespace(), Name: owner.GetName()}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, dep, func() error {
		dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		dep.Spec.Template.Labels = labels
		dep.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Image: "nginx"}}
		return controllerutil.SetControllerReference(owner, dep, r.Scheme())
	}); err != nil {
		return reconcile.Result{}, err
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: owner.GetNamespace(), Name: owner.GetName()}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		svc.Spec.Selector = labels
		svc.Spec.Ports = []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}
		return controllerutil.SetControllerReference(owner, svc, r.Scheme())
	})
	return reconcile.Result{}, err
}

// startOperator starts a manager with leader election, as an operator
// runs, with appReconciler for widgets, until the test ends.
func startOperator(t testing.TB, cfg *rest.Config) *appReconciler {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Metrics:                       metricsserver.Options{BindAddress: "0"},          // no metrics listener
		Controller:                    config.Controller{SkipNameValidation: ptr(true)}, // one controller name per process otherwise
		LeaderElection:                true,
		LeaderElectionID:              "widgets.example.com",
		LeaderElectionNamespace:       "kube-system",
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &appReconciler{Client: mgr.GetClient(), reconciled: make(chan struct{}, 1)}
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(widgetGVK)
	if err := ctrl.NewControllerManagedBy(mgr).For(w).Owns(&appsv1.Deployment{}).Owns(&corev1.Service{}).Complete(rec); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return rec
}

// The example: an operator whose manager elects its leader
// through a Lease and whose reconciler creates a Deployment and a
// Service owned by a custom resource; deleting the custom resource
// deletes them through the garbage collector.
func TestOperator(t *testing.T) {
	start := time.Now()
	env := apisemtest.Start(t, apisemtest.Options{CRDDirectoryPaths: []string{"testdata/crds"}})
	rec := startOperator(t, env.Config)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a guard, not a speed goal
	defer cancel()
	c, err := client.New(env.Config, client.Options{}) // reads the server, not the cache
	if err != nil {
		t.Fatal(err)
	}
	owner := widget("web", 1, 2)
	owner.SetNamespace("default")
	if err := c.Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "default", Name: "web"}
	dep, svc := &appsv1.Deployment{}, &corev1.Service{}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case <-rec.reconciled:
			case <-time.After(10 * time.Millisecond): // the collector acts outside the reconciler
			case <-ctx.Done():
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("the Deployment and the Service", func() bool {
		return c.Get(ctx, key, dep) == nil && c.Get(ctx, key, svc) == nil
	})
	t.Logf("test start to the reconciler's Deployment and Service: %v", time.Since(start))

	// What a cluster stores: Kubernetes' defaults and allocations.
	if s := dep.Spec.Strategy; s.Type != appsv1.RollingUpdateDeploymentStrategyType || s.RollingUpdate == nil ||
		s.RollingUpdate.MaxSurge.String() != "25%" || s.RollingUpdate.MaxUnavailable.String() != "25%" {
		t.Errorf("Deployment strategy %+v; want the cluster's default RollingUpdate 25%%/25%%", s)
	}
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != 1 || dep.Spec.RevisionHistoryLimit == nil || *dep.Spec.RevisionHistoryLimit != 10 {
		t.Errorf("Deployment replicas %v, revisionHistoryLimit %v; want 1 and 10", dep.Spec.Replicas, dep.Spec.RevisionHistoryLimit)
	}
	if svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.ClusterIP == "" || svc.Spec.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("Service type %q, clusterIP %q, protocol %q; want ClusterIP, an address, TCP", svc.Spec.Type, svc.Spec.ClusterIP, svc.Spec.Ports[0].Protocol)
	}
	// The leader's Lease.
	lease := &coordinationv1.Lease{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "kube-system", Name: "widgets.example.com"}, lease); err != nil {
		t.Errorf("leader election Lease: %v", err)
	} else if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("Lease has no holder: %+v", lease.Spec)
	}

	if err := c.Delete(ctx, owner); err != nil {
		t.Fatal(err)
	}
	waitFor("the garbage collector to delete the Deployment and the Service", func() bool {
		return apierrors.IsNotFound(c.Get(ctx, key, &appsv1.Deployment{})) && apierrors.IsNotFound(c.Get(ctx, key, &corev1.Service{}))
	})
}

// A Foreground deletion keeps the owner, with the foregroundDeletion
// finalizer, until its dependents that block it are gone: here one held
// by a finalizer of its own.
func TestForegroundDeletion(t *testing.T) {
	env := apisemtest.Start(t, apisemtest.Options{CRDDirectoryPaths: []string{"testdata/crds"}})
	ctx := t.Context()
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	owner := widget("owner", 1, 2)
	owner.SetNamespace("default")
	if err := c.Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	const hold = "example.com/hold"
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "dependent", Finalizers: []string{hold},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "example.com/v1", Kind: "Widget", Name: "owner",
				UID: owner.GetUID(), BlockOwnerDeletion: ptr(true)}}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}},
		},
	}
	if err := c.Create(ctx, dep); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, owner, client.PropagationPolicy(metav1.DeletePropagationForeground)); err != nil {
		t.Fatal(err)
	}
	depKey := client.ObjectKeyFromObject(dep)
	ownerKey := client.ObjectKeyFromObject(owner)
	// The collector deletes the dependent, which its finalizer keeps.
	eventually(t, "the dependent's deletion", func() bool {
		d := &appsv1.Deployment{}
		return c.Get(ctx, depKey, d) == nil && d.DeletionTimestamp != nil
	})
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(widgetGVK)
	if err := c.Get(ctx, ownerKey, got); err != nil {
		t.Fatalf("owner while a blocking dependent exists: %v", err)
	}
	if got.GetDeletionTimestamp() == nil || !controllerutil.ContainsFinalizer(got, metav1.FinalizerDeleteDependents) {
		t.Fatalf("owner deletionTimestamp %v, finalizers %q; want it deleting with %q",
			got.GetDeletionTimestamp(), got.GetFinalizers(), metav1.FinalizerDeleteDependents)
	}
	// Releasing the dependent releases the owner.
	d := &appsv1.Deployment{}
	if err := c.Get(ctx, depKey, d); err != nil {
		t.Fatal(err)
	}
	controllerutil.RemoveFinalizer(d, hold)
	if err := c.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the owner's deletion", func() bool {
		return apierrors.IsNotFound(c.Get(ctx, ownerKey, got.DeepCopy()))
	})
}

// Test start to the first reconcile of an operator with leader
// election: what each test of a controller waits before its reconciler
// runs (controller-runtime's cache sync is part of it).
func BenchmarkFirstReconcile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		func() {
			sub := &cleanupTB{TB: b}
			defer sub.cleanup()
			env := apisemtest.Start(sub, apisemtest.Options{CRDDirectoryPaths: []string{"testdata/crds"}})
			rec := startOperator(sub, env.Config)
			c, err := client.New(env.Config, client.Options{})
			if err != nil {
				b.Fatal(err)
			}
			owner := widget("web", 1, 2)
			owner.SetNamespace("default")
			if err := c.Create(context.Background(), owner); err != nil {
				b.Fatal(err)
			}
			<-rec.reconciled
		}()
	}
}
