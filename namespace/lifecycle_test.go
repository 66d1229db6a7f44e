package namespace_test

import (
	"context"
	"slices"
	"testing"

	"github.com/apisem/apisem/namespace"
)

// A cluster's NamespaceLifecycle admission refuses to delete default,
// kube-system and kube-public with its 403 (kubectl delete ns default:
// `namespaces "default" is forbidden: this namespace may not be
// deleted`); kube-node-lease and other namespaces may go.
func TestSystemNamespaces(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts namespace.Options
		ns   string
		code int
		msg  string
	}{
		{"default", namespace.Options{}, "default", 403, `namespaces "default" is forbidden: this namespace may not be deleted`},
		{"kube-system", namespace.Options{}, "kube-system", 403, `namespaces "kube-system" is forbidden: this namespace may not be deleted`},
		{"kube-public", namespace.Options{}, "kube-public", 403, `namespaces "kube-public" is forbidden: this namespace may not be deleted`},
		{"kube-node-lease may go", namespace.Options{}, "kube-node-lease", 200, ""},
		{"AllowDeletingSystem", namespace.Options{AllowDeletingSystem: true}, "default", 200, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, l, base := testServer(t, tt.opts)
			if err := l.CreateSystemNamespaces(context.Background()); err != nil {
				t.Fatal(err)
			}
			r := call(t, base, "DELETE", "/api/v1/namespaces/"+tt.ns, "")
			if r.code != tt.code || tt.msg != "" && (field(t, r.body, "message") != tt.msg ||
				field(t, r.body, "reason") != "Forbidden" || field(t, r.body, "details.kind") != "namespaces" ||
				field(t, r.body, "details.name") != tt.ns) {
				t.Errorf("DELETE %s = %d %s; want %d %q", tt.ns, r.code, r.body, tt.code, tt.msg)
			}
		})
	}
}

// CreateSystemNamespaces makes the four namespaces a cluster starts with,
// Active, and may run again (a server on storage that outlives it).
func TestCreateSystemNamespaces(t *testing.T) {
	_, l, base := testServer(t, namespace.Options{})
	for range 2 {
		if err := l.CreateSystemNamespaces(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		r := must(t, 200, base, "GET", "/api/v1/namespaces/"+ns, "")
		if field(t, r.body, "status.phase") != "Active" {
			t.Errorf("%s: %s", ns, r.body)
		}
	}
}

// Namespaces have no deletecollection: the router's 405, and discovery
// does not list the verb.
func TestNoDeleteCollection(t *testing.T) {
	_, _, base := testServer(t, namespace.Options{})
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"a"}}`)
	r := must(t, 405, base, "DELETE", "/api/v1/namespaces", "")
	if field(t, r.body, "message") != "the server does not allow this method on the requested resource" {
		t.Errorf("deletecollection: %s", r.body)
	}
	must(t, 200, base, "GET", "/api/v1/namespaces/a", "")
	res, _ := field(t, must(t, 200, base, "GET", "/api/v1", "").body, "resources").([]any)
	for _, x := range res {
		x := x.(map[string]any)
		if x["name"] != "namespaces" {
			continue
		}
		var verbs []string
		for _, v := range x["verbs"].([]any) {
			verbs = append(verbs, v.(string))
		}
		if want := []string{"create", "delete", "get", "list", "patch", "update", "watch"}; !slices.Equal(verbs, want) {
			t.Errorf("namespaces' verbs = %v; want %v", verbs, want)
		}
		return
	}
	t.Error("discovery does not list namespaces")
}

// A write to a namespace's status through the namespace itself changes
// nothing, as in a cluster (the strategy resets status, and its field
// manager drops the reset fields): the same resourceVersion and no
// managedFields entry for the writer. The status subresource writes it.
func TestStatusThroughMainResourceIsNoOp(t *testing.T) {
	_, _, base := testServer(t, namespace.Options{})
	created := must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"a"}}`).body
	rv := field(t, created, "metadata.resourceVersion")
	for _, w := range []struct{ method, query, body, ctype string }{
		{"PATCH", "?fieldManager=patcher", `{"status":{"phase":"Terminating"}}`, "application/merge-patch+json"},
		{"PUT", "?fieldManager=putter", `{"metadata":{"name":"a","resourceVersion":"` + rv.(string) + `"},"status":{"phase":"Terminating"}}`, "application/json"},
		{"PATCH", "?fieldManager=applier", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"},"status":{"phase":"Terminating"}}`, "application/apply-patch+yaml"},
	} {
		r := must(t, 200, base, w.method, "/api/v1/namespaces/a"+w.query, w.body, "Content-Type", w.ctype)
		if got := field(t, r.body, "metadata.resourceVersion"); got != rv {
			t.Errorf("%s %s: resourceVersion %v; want %v unchanged", w.method, w.ctype, got, rv)
		}
		if mf, _ := field(t, r.body, "metadata.managedFields").([]any); len(mf) != 1 || field(t, r.body, "status.phase") != "Active" {
			t.Errorf("%s %s: %s; want one managedFields entry and phase Active", w.method, w.ctype, r.body)
		}
	}
	r := must(t, 200, base, "PATCH", "/api/v1/namespaces/a/status", `{"status":{"conditions":[{"type":"X","status":"True"}]}}`,
		"Content-Type", "application/merge-patch+json")
	if field(t, r.body, "metadata.resourceVersion") == rv {
		t.Errorf("a status subresource write made no new resourceVersion: %s", r.body)
	}
}

// A new namespace is Active with the name label, whatever status the
// client sent, and has the kubernetes finalizer after its own;
// spec.finalizers cannot be changed through the namespace itself.
func TestCreate(t *testing.T) {
	_, _, base := testServer(t, namespace.Options{})
	r := must(t, 201, base, "POST", "/api/v1/namespaces",
		`{"metadata":{"name":"a"},"spec":{"finalizers":["example.com/x"]},"status":{"phase":"Terminating"}}`)
	if fins, _ := field(t, r.body, "spec.finalizers").([]any); len(fins) != 2 || fins[0] != "example.com/x" || fins[1] != "kubernetes" ||
		field(t, r.body, "status.phase") != "Active" {
		t.Errorf("created: %s", r.body)
	}
	labels, _ := field(t, r.body, "metadata.labels").(map[string]any)
	if labels["kubernetes.io/metadata.name"] != "a" {
		t.Errorf("labels = %v; want the name label", labels)
	}
	r = must(t, 200, base, "PATCH", "/api/v1/namespaces/a", `{"spec":{"finalizers":[]}}`, "Content-Type", "application/merge-patch+json")
	if fins, _ := field(t, r.body, "spec.finalizers").([]any); len(fins) != 2 {
		t.Errorf("spec.finalizers changed through the namespace: %s", r.body)
	}
	// A bad label is one cause, as kube-apiserver 1.37.1 answers, though
	// the metadata rules of a create and of an update both check it.
	r = must(t, 422, base, "PATCH", "/api/v1/namespaces/a", `{"metadata":{"labels":{"x":"-"}}}`, "Content-Type", "application/merge-patch+json")
	if causes, _ := field(t, r.body, "details.causes").([]any); len(causes) != 1 {
		t.Errorf("causes of a bad label: %s", r.body)
	}
}

// Content may be created only in a namespace that exists (404) and is
// not terminating (403, with Kubernetes' cause); a create with no
// namespace (namespaces//configmaps) is left to validation's 422, as
// NamespaceLifecycle lets it through.
func TestContentAdmission(t *testing.T) {
	s, _, base := testServer(t, namespace.Options{})
	r := must(t, 404, base, "POST", "/api/v1/namespaces/nope/configmaps", `{"metadata":{"name":"c"}}`)
	if field(t, r.body, "message") != `namespaces "nope" not found` {
		t.Errorf("missing namespace: %s", r.body)
	}
	r = must(t, 422, base, "POST", "/api/v1/namespaces//configmaps", `{"metadata":{"name":"c"}}`)
	if field(t, r.body, "message") != `ConfigMap "c" is invalid: metadata.namespace: Required value` {
		t.Errorf("no namespace: %s", r.body)
	}
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"a"}}`)
	must(t, 201, base, "POST", "/api/v1/namespaces/a/secrets", `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`)
	must(t, 200, base, "DELETE", "/api/v1/namespaces/a", "")
	r = must(t, 403, base, "POST", "/api/v1/namespaces/a/configmaps", `{"metadata":{"generateName":"c-"}}`)
	if field(t, r.body, "message") != `configmaps "c-" is forbidden: unable to create new content in namespace a because it is being terminated` {
		t.Errorf("terminating namespace: %s", r.body)
	}
	causes, _ := field(t, r.body, "details.causes").([]any)
	if len(causes) != 1 || causes[0].(map[string]any)["reason"] != "NamespaceTerminating" {
		t.Errorf("causes: %v", causes)
	}
	must(t, 200, base, "PATCH", "/api/v1/namespaces/a/secrets/held", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	waitStore(t, s, "the namespace to go", func() bool { return call(t, base, "GET", "/api/v1/namespaces/a", "").code == 404 })
}
