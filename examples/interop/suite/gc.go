package suite

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// garbageCollection runs the garbage collector's tests, each on a server
// of its own with Options.GarbageCollection.
func (e env) garbageCollection(t *testing.T) {
	for _, tc := range []struct {
		name string
		test func(*gcEnv)
	}{
		{"Background", gcBackground},
		{"Foreground", gcForeground},
		{"Orphan", gcOrphan},
		{"CustomResource", gcCustomResource},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(e.newGCEnv(t)) })
	}
}

// gcEnv is the example server with its garbage collector, as client-go
// sees it.
type gcEnv struct {
	t   *testing.T
	cs  *kubernetes.Clientset
	dyn *dynamic.DynamicClient
	cfg *rest.Config
	ns  string
}

func (env env) newGCEnv(t *testing.T) *gcEnv {
	cfg := env.start(t, demo.Options{GarbageCollection: true}).config(false)
	e := &gcEnv{t: t, cfg: cfg, ns: "gc"}
	var err error
	if e.cs, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if e.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return e
}

// ownedBy is an owner reference to o.
func ownedBy(apiVersion, kind string, o metav1.Object, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: o.GetName(), UID: o.GetUID(), BlockOwnerDeletion: &block}
}

func (e *gcEnv) configMap(name string, owners ...metav1.OwnerReference) *corev1.ConfigMap {
	e.t.Helper()
	cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(e.t.Context(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners}}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return cm
}

func (e *gcEnv) secret(name string, finalizers []string, owners ...metav1.OwnerReference) *corev1.Secret {
	e.t.Helper()
	s, err := e.cs.CoreV1().Secrets(e.ns).Create(e.t.Context(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners, Finalizers: finalizers}}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *gcEnv) deleteConfigMap(name string, policy metav1.DeletionPropagation) {
	e.t.Helper()
	if err := e.cs.CoreV1().ConfigMaps(e.ns).Delete(e.t.Context(), name, metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		e.t.Fatal(err)
	}
}

// eventually polls cond until it holds; the deadline guards against a
// broken collector, it is not a speed goal.
func (e *gcEnv) eventually(what string, cond func() bool) {
	e.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatalf("gave up waiting for %s", what)
		}
	}
}

func (e *gcEnv) gone(get func() error) func() bool {
	return func() bool { return apierrors.IsNotFound(get()) }
}

func (e *gcEnv) secretGone(name string) func() bool {
	return e.gone(func() error {
		_, err := e.cs.CoreV1().Secrets(e.ns).Get(e.t.Context(), name, metav1.GetOptions{})
		return err
	})
}

func (e *gcEnv) configMapGone(name string) func() bool {
	return e.gone(func() error {
		_, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(e.t.Context(), name, metav1.GetOptions{})
		return err
	})
}

// Background deletion: the owner goes at once, its dependents after it;
// a dependent with another owner left stays, without the reference to
// the deleted one.
func gcBackground(e *gcEnv) {
	t := e.t
	owner := e.configMap("owner")
	other := e.configMap("other")
	e.secret("dep", nil, ownedBy("v1", "ConfigMap", owner, false))
	e.secret("shared", nil, ownedBy("v1", "ConfigMap", owner, false), ownedBy("v1", "ConfigMap", other, false))
	e.deleteConfigMap("owner", metav1.DeletePropagationBackground)
	if !e.configMapGone("owner")() {
		t.Error("a Background deletion left the owner")
	}
	e.eventually("the dependent to go", e.secretGone("dep"))
	e.eventually("the shared dependent to lose the reference", func() bool {
		s, err := e.cs.CoreV1().Secrets(e.ns).Get(t.Context(), "shared", metav1.GetOptions{})
		return err == nil && len(s.OwnerReferences) == 1 && s.OwnerReferences[0].UID == other.UID
	})
}

// Foreground deletion: the owner stays with the foregroundDeletion
// finalizer, its dependents are deleted, and it goes once no dependent
// with blockOwnerDeletion is left.
func gcForeground(e *gcEnv) {
	t := e.t
	ctx := t.Context()
	owner := e.configMap("owner")
	e.secret("held", []string{"example.com/hold"}, ownedBy("v1", "ConfigMap", owner, true))
	e.secret("free", nil, ownedBy("v1", "ConfigMap", owner, false))
	e.deleteConfigMap("owner", metav1.DeletePropagationForeground)

	e.eventually("the dependents to be deleted", func() bool {
		s, err := e.cs.CoreV1().Secrets(e.ns).Get(ctx, "held", metav1.GetOptions{})
		return err == nil && s.DeletionTimestamp != nil && e.secretGone("free")()
	})
	cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, "owner", metav1.GetOptions{})
	if err != nil || cm.DeletionTimestamp == nil || !slices.Equal(cm.Finalizers, []string{metav1.FinalizerDeleteDependents}) {
		t.Fatalf("owner while a blocking dependent is held: %v %+v; want it marked with the foregroundDeletion finalizer", err, cm)
	}
	if _, err := e.cs.CoreV1().Secrets(e.ns).Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`),
		metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("the owner to go", e.configMapGone("owner"))
	if !e.secretGone("held")() {
		t.Error("the blocking dependent outlived its owner")
	}
}

// Orphan deletion: the owner goes, its dependents stay without the
// reference to it.
func gcOrphan(e *gcEnv) {
	t := e.t
	owner := e.configMap("owner")
	e.secret("a", nil, ownedBy("v1", "ConfigMap", owner, true))
	e.secret("b", nil, ownedBy("v1", "ConfigMap", owner, false))
	e.deleteConfigMap("owner", metav1.DeletePropagationOrphan)
	e.eventually("the owner to go", e.configMapGone("owner"))
	for _, name := range []string{"a", "b"} {
		s, err := e.cs.CoreV1().Secrets(e.ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil || len(s.OwnerReferences) != 0 {
			t.Errorf("orphaned %s: %v %v; want it kept without owner references", name, err, s.OwnerReferences)
		}
	}
}

// Owners and dependents across a custom resource: a ConfigMap owned by a
// Gadget, and a Gadget owned by a ConfigMap.
func gcCustomResource(e *gcEnv) {
	t := e.t
	ctx := t.Context()
	extCfg := *e.cfg
	extCfg.ContentType = "application/json" // definitions are served as JSON only
	ext, err := apiextensionsclient.NewForConfig(&extCfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, gadgetsCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("the definition to be established", func() bool {
		d, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "gadgets.stable.example.com", metav1.GetOptions{})
		return err == nil && IsEstablished(d)
	})
	gvr := schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "gadgets"}
	gadgets := e.dyn.Resource(gvr).Namespace(e.ns)
	newGadget := func(name string, owners ...metav1.OwnerReference) *unstructured.Unstructured {
		w := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": int64(1)}}}
		w.SetAPIVersion("stable.example.com/v1")
		w.SetKind("Gadget")
		w.SetName(name)
		w.SetOwnerReferences(owners)
		out, err := gadgets.Create(ctx, w, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	owner := newGadget("owner")
	e.configMap("owned-by-gadget", ownedBy("stable.example.com/v1", "Gadget", owner, true))
	cm := e.configMap("owner-of-gadget")
	newGadget("owned-by-configmap", ownedBy("v1", "ConfigMap", cm, true))

	policy := metav1.DeletePropagationForeground
	if err := gadgets.Delete(ctx, "owner", metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		t.Fatal(err)
	}
	e.eventually("the gadget and its configmap to go", func() bool {
		_, err := gadgets.Get(ctx, "owner", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && e.configMapGone("owned-by-gadget")()
	})
	e.deleteConfigMap("owner-of-gadget", metav1.DeletePropagationBackground)
	e.eventually("the configmap's gadget to go", e.gone(func() error {
		_, err := gadgets.Get(ctx, "owned-by-configmap", metav1.GetOptions{})
		return err
	}))
}
