package apisemtest_test

import (
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/apisem/apisem/apisemtest"
	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

var widgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

func widget(name string, replicas, maxReplicas int64, owners ...metav1.OwnerReference) *unstructured.Unstructured {
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"spec": map[string]any{"replicas": replicas, "maxReplicas": maxReplicas},
	}}
	w.SetName(name)
	w.SetOwnerReferences(owners)
	return w
}

// eventually polls cond; the deadline guards against a broken server, it
// is not a speed goal.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// One call gives a cluster as a controller's test sees it: the system
// namespaces, the definitions of the directory established with their
// CEL rules evaluated, garbage collection, the namespace rules, and the
// resources of Options.Resources.
func TestStart(t *testing.T) {
	gizmos := server.UnstructuredResource(server.Resource{Group: "test.apisem.dev", Version: "v1", Kind: "Gizmo",
		ListKind: "GizmoList", Plural: "gizmos", Singular: "gizmo", Namespaced: true})
	env := apisemtest.Start(t, apisemtest.Options{
		CRDDirectoryPaths: []string{"testdata/crds", "testdata/missing"},
		Resources:         []*server.Resource{gizmos},
	})
	ctx := t.Context()
	cs := kubernetes.NewForConfigOrDie(env.Config)
	dyn := dynamic.NewForConfigOrDie(env.Config)

	nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range nss.Items {
		names = append(names, n.Name)
	}
	if want := []string{"default", "kube-node-lease", "kube-public", "kube-system"}; !slices.Equal(names, want) {
		t.Errorf("namespaces %v; want %v", names, want)
	}
	err = cs.CoreV1().Namespaces().Delete(ctx, "kube-system", metav1.DeleteOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "this namespace may not be deleted") {
		t.Errorf("deleting kube-system: %v; want the 403", err)
	}

	widgets := dyn.Resource(widgetsGVR).Namespace("default")
	_, err = widgets.Create(ctx, widget("bad", 3, 2), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "replicas must not exceed maxReplicas") {
		t.Errorf("a widget against its CEL rule: %v; want the 422", err)
	}
	parent, err := widgets.Create(ctx, widget("parent", 1, 2), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.Create(ctx, widget("child", 1, 2, metav1.OwnerReference{APIVersion: "example.com/v1",
		Kind: "Widget", Name: "parent", UID: parent.GetUID()}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := widgets.Delete(ctx, "parent", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the garbage collector to delete the child", func() bool {
		_, err := widgets.Get(ctx, "child", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})

	gz := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "test.apisem.dev/v1", "kind": "Gizmo"}}
	gz.SetName("g")
	if _, err := dyn.Resource(schema.GroupVersionResource{Group: "test.apisem.dev", Version: "v1", Resource: "gizmos"}).
		Namespace("kube-public").Create(ctx, gz, metav1.CreateOptions{}); err != nil {
		t.Errorf("a resource of Options.Resources: %v", err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "nope", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a namespace that does not exist: %v", err)
	}
}

// Definitions given as values, and a missing path that must exist.
func TestOptionsCRDs(t *testing.T) {
	def := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr(true)}}}},
		},
	}
	env := apisemtest.Start(t, apisemtest.Options{CRDs: []*apiextensionsv1.CustomResourceDefinition{def}})
	g := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget"}}
	g.SetName("g")
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	if _, err := dynamic.NewForConfigOrDie(env.Config).Resource(gvr).Create(t.Context(), g, metav1.CreateOptions{}); err != nil {
		t.Error(err)
	}
	if def.Kind != "" {
		t.Error("Start changed the caller's definition")
	}
}

func ptr[T any](v T) *T { return &v }

// Every goroutine Start starts ends with the test: the controllers and
// the server's.
func TestStopsWithTheTest(t *testing.T) {
	settle := func(limit int) int {
		g := runtime.NumGoroutine()
		for deadline := time.Now().Add(5 * time.Second); g > limit && time.Now().Before(deadline); g = runtime.NumGoroutine() {
			time.Sleep(10 * time.Millisecond)
		}
		return g
	}
	base := settle(0)
	t.Run("env", func(t *testing.T) {
		env := apisemtest.Start(t, apisemtest.Options{CRDDirectoryPaths: []string{"testdata/crds"}})
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(env.Config.Host + "/api/v1/namespaces?watch=true&timeoutSeconds=30")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close() // a watch open when the test ends
		if g := runtime.NumGoroutine(); g <= base {
			t.Fatalf("%d goroutines with a server running, %d before", g, base)
		}
	})
	if g := settle(base); g > base {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the test, %d before:\n%s", g, base, buf[:runtime.Stack(buf, true)])
	}
}

// Start (and stop) of a fresh environment without definitions: what a
// test pays per server.
func BenchmarkStart(b *testing.B) {
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		sub := &cleanupTB{TB: b}
		apisemtest.Start(sub, apisemtest.Options{})
		sub.cleanup()
	}
	b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// Start of a fresh environment with 40 definitions, established.
func BenchmarkStart40CRDs(b *testing.B) {
	var defs []*apiextensionsv1.CustomResourceDefinition
	for i := range 40 {
		kind := fmt.Sprintf("Kind%d", i)
		plural := strings.ToLower(kind) + "s"
		defs = append(defs, &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: plural + ".bench.example.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "bench.example.com", Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: strings.ToLower(kind), Kind: kind},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
								"replicas": {Type: "integer", Minimum: ptr(0.0)},
								"image":    {Type: "string", MaxLength: ptr(int64(253))},
							}, XValidations: apiextensionsv1.ValidationRules{{Rule: "self.replicas < 100"}}},
						}}}}},
			},
		})
	}
	b.ReportAllocs()
	for b.Loop() {
		func() {
			sub := &cleanupTB{TB: b}
			defer sub.cleanup()
			apisemtest.Start(sub, apisemtest.Options{CRDs: defs})
		}()
	}
}

// cleanupTB runs the Cleanup functions registered through it when its
// cleanup is called, so that a benchmark stops each environment it starts.
type cleanupTB struct {
	testing.TB
	fns []func()
}

func (c *cleanupTB) Cleanup(f func()) { c.fns = append(c.fns, f) }

func (c *cleanupTB) cleanup() {
	for i := len(c.fns) - 1; i >= 0; i-- {
		c.fns[i]()
	}
}

// FailWrites refuses the writes its function picks, with its error,
// until it is turned off.
func TestFailWrites(t *testing.T) {
	env := apisemtest.Start(t, apisemtest.Options{CRDDirectoryPaths: []string{"testdata/crds"}})
	widgets := dynamic.NewForConfigOrDie(env.Config).Resource(widgetsGVR).Namespace("default")
	env.FailWrites(func(a server.Attributes) error {
		if a.Operation == server.OperationCreate && a.Resource.Kind == "Widget" {
			return status.NewServiceUnavailable("injected")
		}
		return nil
	})
	_, err := widgets.Create(t.Context(), widget("w", 1, 2), metav1.CreateOptions{})
	if !apierrors.IsServiceUnavailable(err) || !strings.Contains(err.Error(), "injected") {
		t.Errorf("create while failing: %v; want the injected 503", err)
	}
	env.FailWrites(nil)
	if _, err := widgets.Create(t.Context(), widget("w", 1, 2), metav1.CreateOptions{}); err != nil {
		t.Errorf("create after: %v", err)
	}
}

// Start of a fresh environment without the built-in kinds, as
// BenchmarkStart's share of making them.
func BenchmarkStartWithoutBuiltin(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sub := &cleanupTB{TB: b}
		apisemtest.Start(sub, apisemtest.Options{Resources: []*server.Resource{}})
		sub.cleanup()
	}
}

// Server.ExpireWatches ends an open watch with 410 Gone, as a client sees
// it: client-go's watch gets an ERROR event with an Expired Status.
func TestExpireWatches(t *testing.T) {
	env := apisemtest.Start(t, apisemtest.Options{})
	w, err := kubernetes.NewForConfigOrDie(env.Config).CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	env.Server.ExpireWatches()
	ev, ok := <-w.ResultChan()
	if !ok || ev.Type != "ERROR" || !apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) {
		t.Fatalf("event %v %+v; want an ERROR with 410 Expired", ev.Type, ev.Object)
	}
	if _, ok := <-w.ResultChan(); ok {
		t.Error("the watch goes on after its ERROR")
	}
}
