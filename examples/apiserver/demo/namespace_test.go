package demo

import (
	"testing"
	"time"
)

// eventually polls cond until it holds, failing the test after 10 seconds
// (a deadline for a broken server, not a speed goal).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// Deleting a namespace: a dry run changes nothing, the real DELETE answers
// the Terminating namespace (200, not a Status), and the namespace goes
// once its contents and every finalizer are gone, including a
// metadata.finalizers entry a client set and later removes.
func TestNamespaceDeletion(t *testing.T) {
	_, base := newTestServer(t, Options{})
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
	eventually(t, "the namespace to report the held secret", func() bool {
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
	eventually(t, "the namespace's contents to go", func() bool {
		r := must(t, 200, base, "GET", ns, "")
		return call(t, base, "GET", ns+"/secrets/held", "").code == 404 && field(t, r.body, "spec.finalizers") == nil
	})
	// Only the client's finalizer holds the namespace now; removing it
	// lets the namespace go.
	must(t, 200, base, "PATCH", ns, `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	must(t, 404, base, "GET", ns, "")
}

// deletecollection of namespaces starts the deletion of each, as DELETE
// does, and returns them.
func TestNamespaceDeleteCollection(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "a")
	seed(t, base, "b")
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"c","labels":{"keep":"yes"}}}`)
	r := must(t, 200, base, "DELETE", "/api/v1/namespaces?labelSelector=keep%21%3Dyes", "")
	if items, _ := field(t, r.body, "items").([]any); field(t, r.body, "kind") != "NamespaceList" || len(items) != 2 {
		t.Fatalf("deletecollection: %s", r.body)
	}
	eventually(t, "the namespaces to go", func() bool {
		return call(t, base, "GET", "/api/v1/namespaces/a", "").code == 404 && call(t, base, "GET", "/api/v1/namespaces/b", "").code == 404
	})
	must(t, 200, base, "GET", "/api/v1/namespaces/c", "")
}

// waitStore waits until cond holds, looking again after every write to
// the server's store.
func waitStore(t testing.TB, s *Server, what string, cond func() bool) {
	t.Helper()
	timeout := time.NewTimer(10 * time.Second) // a guard for a broken server, not a sync
	defer timeout.Stop()
	for {
		rev := s.Revision()
		if cond() {
			return
		}
		select {
		case <-s.Store().Changed(rev):
		case <-timeout.C:
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// The namespace controller deletes the custom resources of a terminating
// namespace too, whatever the resources defined after the server
// started, and counts the objects of a resource served in two versions
// once.
func TestNamespaceDeletionDeletesCustomResources(t *testing.T) {
	s, base := newTestServer(t, Options{})
	version := func(name string, storage bool) string {
		return `{"name":"` + name + `","served":true,"storage":` + map[bool]string{true: "true", false: "false"}[storage] +
			`,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`
	}
	must(t, 201, base, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
		`{"metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",`+
			`"names":{"plural":"widgets","kind":"Widget"},"versions":[`+version("v1", true)+`,`+version("v2", false)+`]}}`)
	if _, err := s.CustomResourceDefinitions().WaitEstablished(t.Context(), "widgets.example.com"); err != nil {
		t.Fatal(err)
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
