package namespace_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/store"
)

// Deleting a namespace: a dry run changes nothing, the real DELETE answers
// the Terminating namespace (200, not a Status), and the namespace goes
// once its contents and every finalizer are gone, including a
// metadata.finalizers entry a client set and later removes.
func TestNamespaceDeletion(t *testing.T) {
	s, _, base := testServer(t, namespace.Options{})
	const ns = "/api/v1/namespaces/ns1"
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1","finalizers":["kubernetes"]}}`)
	must(t, 201, base, "POST", ns+"/configmaps", `{"metadata":{"name":"cm"}}`)
	must(t, 201, base, "POST", ns+"/secrets", `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`)
	before := must(t, 200, base, "GET", ns, "").body

	r := must(t, 200, base, "DELETE", ns+"?dryRun=All", "")
	if field(t, r.body, "kind") != "Namespace" || field(t, r.body, "status.phase") != "Terminating" ||
		field(t, r.body, "metadata.deletionTimestamp") == nil {
		t.Errorf("dry-run delete: %s", r.body)
	}
	if after := must(t, 200, base, "GET", ns, "").body; after != before {
		t.Errorf("a dry-run delete changed the namespace:\n%s\nwas\n%s", after, before)
	}

	r = must(t, 200, base, "DELETE", ns, "")
	if field(t, r.body, "kind") != "Namespace" || field(t, r.body, "status.phase") != "Terminating" ||
		field(t, r.body, "metadata.deletionTimestamp") == nil {
		t.Errorf("delete: %s", r.body)
	}
	// The held secret stays; the namespace says so, as Kubernetes does.
	want := map[string]string{
		"NamespaceContentRemaining":    "Some resources are remaining: secrets has 1 resource instances",
		"NamespaceFinalizersRemaining": "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
	}
	waitStore(t, s, "the namespace to report the held secret", func() bool {
		conds, _ := field(t, must(t, 200, base, "GET", ns, "").body, "status.conditions").([]any)
		found := 0
		for _, c := range conds {
			c := c.(map[string]any)
			if c["status"] == "True" && c["message"] == want[c["type"].(string)] {
				found++
			}
		}
		return found == 2 && call(t, base, "GET", ns+"/configmaps/cm", "").code == 404
	})
	must(t, 200, base, "PATCH", ns+"/secrets/held", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	waitStore(t, s, "the namespace's contents to go", func() bool {
		r := must(t, 200, base, "GET", ns, "")
		return call(t, base, "GET", ns+"/secrets/held", "").code == 404 && field(t, r.body, "spec.finalizers") == nil
	})
	// Only the client's finalizer holds the namespace now; removing it
	// lets the namespace go.
	must(t, 200, base, "PATCH", ns, `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	must(t, 404, base, "GET", ns, "")
}

// The namespace controller deletes the objects of resources added after
// the server started (custom resources) too, and counts the objects of a
// resource served in two versions once.
func TestNamespaceDeletionDeletesCustomResources(t *testing.T) {
	s, _, base := testServer(t, namespace.Options{})
	for _, v := range []string{"v1", "v2"} {
		if err := s.AddResource(server.UnstructuredResource(server.Resource{Group: "example.com", Version: v,
			Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget", Namespaced: true})); err != nil {
			t.Fatal(err)
		}
	}
	const ns = "/api/v1/namespaces/ns1"
	const widgets = "/apis/example.com/v1/namespaces/ns1/widgets"
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	must(t, 201, base, "POST", widgets, `{"metadata":{"name":"w1"}}`)
	must(t, 201, base, "POST", widgets, `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`)
	must(t, 200, base, "DELETE", ns, "")
	const want = "Some resources are remaining: widgets.example.com has 1 resource instances"
	waitStore(t, s, "the namespace to report the held widget", func() bool {
		conds, _ := field(t, must(t, 200, base, "GET", ns, "").body, "status.conditions").([]any)
		for _, c := range conds {
			if c := c.(map[string]any); c["type"] == "NamespaceContentRemaining" && c["message"] == want {
				return call(t, base, "GET", widgets+"/w1", "").code == 404
			}
		}
		return false
	})
	must(t, 200, base, "PATCH", widgets+"/held", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	waitStore(t, s, "the namespace to go", func() bool { return call(t, base, "GET", ns, "").code == 404 })
}

// The controller deletes each object as an API DELETE does, through the
// resource's own deletion where it has one (Resource.Delete: a Service's
// frees its cluster IP, a Pod's is graceful), as kube-apiserver's
// namespace controller deletes through the API.
func TestNamespaceDeletionUsesResourceDelete(t *testing.T) {
	s, _, base := testServer(t, namespace.Options{})
	var mu sync.Mutex
	var hooked []string
	res := server.UnstructuredResource(server.Resource{Group: "example.com", Version: "v1",
		Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget", Namespaced: true})
	res.Delete = func(ctx context.Context, st store.Backend[server.Object], namespace, name string, opts store.DeleteOptions) (server.Object, bool, error) {
		mu.Lock()
		hooked = append(hooked, namespace+"/"+name)
		mu.Unlock()
		return st.Delete(ctx, namespace, name, opts)
	}
	if err := s.AddResource(res); err != nil {
		t.Fatal(err)
	}
	const ns = "/api/v1/namespaces/ns1"
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	must(t, 201, base, "POST", "/apis/example.com/v1/namespaces/ns1/widgets", `{"metadata":{"name":"w1"}}`)
	must(t, 200, base, "DELETE", ns, "")
	waitStore(t, s, "the namespace to go", func() bool { return call(t, base, "GET", ns, "").code == 404 })
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(hooked, []string{"ns1/w1"}) {
		t.Errorf("Resource.Delete deleted %q; want ns1/w1", hooked)
	}
}
