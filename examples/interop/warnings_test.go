package interop

import (
	"context"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// warningsSeen is a client-go WarningHandler that keeps what it is given.
type warningsSeen struct {
	mu   sync.Mutex
	seen []string
}

func (w *warningsSeen) HandleWarningHeader(code int, agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, agent+" "+text)
	if code != 299 {
		w.seen = append(w.seen, "code other than 299")
	}
}

func (w *warningsSeen) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.seen
	w.seen = nil
	return s
}

// A warning from an admission hook reaches client-go's WarningHandler as
// kube-apiserver's do: code 299, agent "-", the text as the hook wrote it
// (quotes, backslashes and non-ASCII text survive the header's escaping),
// each text once. Deletions are admitted too; and the server's own
// warnings (a custom resource's finalizer names, as Kubernetes warns of
// them) arrive the same way.
func TestWarningsReachClientGo(t *testing.T) {
	const odd = `the "quoted" \ text – ünïcode`
	admission := server.Admission{
		Validate: func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
			if a.Resource.Kind != "ConfigMap" {
				return nil
			}
			server.AddWarning(ctx, string(a.Operation)+" "+a.Name+" by "+a.Verb)
			server.AddWarning(ctx, odd)
			server.AddWarning(ctx, odd) // sent once
			return nil
		},
	}
	s, err := demo.New(demo.Options{Admission: admission})
	if err != nil {
		t.Fatal(err)
	}
	handler := &warningsSeen{}
	cfg := &rest.Config{Host: servertest.Start(t, s), QPS: -1, WarningHandler: handler}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	check := func(step string, want ...string) {
		t.Helper()
		if got := handler.take(); !slices.Equal(got, want) {
			t.Errorf("%s: the WarningHandler got %q; want %q", step, got, want)
		}
	}
	check("namespace create")
	cms := cs.CoreV1().ConfigMaps("ns")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("create", "- CREATE cm by create", "- "+odd)
	cm.Data["k"] = "w"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	check("update", "- UPDATE cm by update", "- "+odd)
	if err := cms.Delete(ctx, "cm", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	check("delete", "- DELETE cm by delete", "- "+odd)

	// A custom resource's finalizer that is not domain-qualified.
	gcfg := startGizmos(t)
	gcfg.WarningHandler = handler
	dyn, err := dynamic.NewForConfig(gcfg)
	if err != nil {
		t.Fatal(err)
	}
	g := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "demo.io/v1", "kind": "Gizmo",
		"metadata": map[string]any{"name": "g", "finalizers": []any{"cleanup"}},
	}}
	if _, err := dyn.Resource(gizmos).Namespace("ns").Create(ctx, g, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	check("custom resource create", `- metadata.finalizers: "cleanup": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`)
}
