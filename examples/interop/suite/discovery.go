package suite

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi3"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// pathRecorder records the paths of the requests a client sends.
type pathRecorder struct {
	mu    sync.Mutex
	paths []string
	next  http.RoundTripper
}

func (p *pathRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	p.mu.Lock()
	p.paths = append(p.paths, r.URL.Path)
	p.mu.Unlock()
	return p.next.RoundTrip(r)
}

// client-go's discovery reads the aggregated documents: two requests, not
// one more per group version, and the same groups and resources as the
// unaggregated form gives.
func (e env) aggregatedDiscovery(t *testing.T) {
	ts := e.start(t, demo.Options{})
	rec := &pathRecorder{}
	cfg := ts.config(false)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec }
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/api", "/apis"}; !slices.Equal(rec.paths, want) {
		t.Errorf("requests %v; want %v (aggregated discovery)", rec.paths, want)
	}
	legacy, err := discovery.NewDiscoveryClientForConfig(ts.config(false))
	if err != nil {
		t.Fatal(err)
	}
	legacy.UseLegacyDiscovery = true
	_, legacyLists, err := legacy.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	type res struct {
		gv, name, kind, singular string
		namespaced               bool
		verbs, shortNames        string
	}
	flatten := func(ls []*metav1.APIResourceList) []res {
		var out []res
		for _, l := range ls {
			for _, r := range l.APIResources {
				if strings.Contains(r.Name, "/") {
					// client-go gives an aggregated subresource its
					// parent's singular name; the unaggregated
					// document, as kube-apiserver's, has none.
					r.SingularName = ""
				}
				out = append(out, res{l.GroupVersion, r.Name, r.Kind, r.SingularName, r.Namespaced,
					r.Verbs.String(), strings.Join(r.ShortNames, ",")})
			}
		}
		return out
	}
	// client-go orders the lists by its own map and goroutine timing.
	agg, old := flatten(lists), flatten(legacyLists)
	byName := func(a, b res) int { return strings.Compare(a.gv+"/"+a.name, b.gv+"/"+b.name) }
	slices.SortFunc(agg, byName)
	slices.SortFunc(old, byName)
	if len(agg) != 10 || !slices.Equal(agg, old) { // namespaces/status and namespaces/finalize among them
		t.Errorf("aggregated discovery gives\n%v\nunaggregated\n%v", agg, old)
	}
}

// client-go's OpenAPI v3 client parses the documents, and finds each
// served kind's schema by its x-kubernetes-group-version-kind.
func (e env) openAPIV3Client(t *testing.T) {
	ts := e.start(t, demo.Options{})
	dc, err := discovery.NewDiscoveryClientForConfig(ts.config(false))
	if err != nil {
		t.Fatal(err)
	}
	root := openapi3.NewRoot(dc.OpenAPIV3())
	for _, gvk := range []schema.GroupVersionKind{
		{Version: "v1", Kind: "ConfigMap"},
		{Version: "v1", Kind: "Namespace"},
		{Group: "example.apisem.dev", Version: "v1", Kind: "Widget"},
	} {
		doc, err := root.GVSpec(gvk.GroupVersion())
		if err != nil {
			t.Fatalf("%v: %v", gvk, err)
		}
		var found bool
		for name, s := range doc.Components.Schemas {
			var gvks []map[string]string
			if err := s.Extensions.GetObject("x-kubernetes-group-version-kind", &gvks); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, g := range gvks {
				if g["group"] == gvk.Group && g["version"] == gvk.Version && g["kind"] == gvk.Kind {
					found = true
					if s.Properties["metadata"].AllOf[0].Ref.String() != "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" {
						t.Errorf("%s: metadata %v", name, s.Properties["metadata"])
					}
				}
			}
		}
		if !found {
			t.Errorf("%v: no schema", gvk)
		}
	}
	if _, err := root.GVSpec(schema.GroupVersion{Group: "apps", Version: "v1"}); err == nil {
		t.Error("apps/v1: found a document")
	}
}
