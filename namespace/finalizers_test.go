package namespace_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/namespace"
)

// A new namespace keeps the spec.finalizers it names, with kubernetes
// added when missing, as Kubernetes' strategy does; a name that is not a
// finalizer's is the cluster's 422 (recorded from kube-apiserver v1.37).
func TestCreateKeepsTheClientsFinalizers(t *testing.T) {
	_, _, base := testServer(t, namespace.Options{})
	for _, tt := range []struct {
		name       string
		finalizers string
		code       int
		want       []string // spec.finalizers stored
		msg        string
	}{
		{"none", `[]`, 201, []string{"kubernetes"}, ""},
		{"another", `["example.com/hold"]`, 201, []string{"example.com/hold", "kubernetes"}, ""},
		{"kubernetes first", `["kubernetes","example.com/hold"]`, 201, []string{"kubernetes", "example.com/hold"}, ""},
		{"not qualified", `["cleanup"]`, 422, nil,
			`Namespace "not-qualified" is invalid: spec.finalizers: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`},
		{"not a name", `["a b/c"]`, 422, nil,
			`Namespace "not-a-name" is invalid: spec.finalizers: Invalid value: "a b/c": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
	} {
		name := map[string]string{"none": "none", "another": "another", "kubernetes first": "kubernetes-first",
			"not qualified": "not-qualified", "not a name": "not-a-name"}[tt.name]
		r := call(t, base, "POST", "/api/v1/namespaces",
			`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+name+`"},"spec":{"finalizers":`+tt.finalizers+`}}`,
			"Content-Type", "application/json")
		if r.code != tt.code {
			t.Errorf("%s: %d %s; want %d", tt.name, r.code, r.body, tt.code)
			continue
		}
		if tt.code != 201 {
			if got := field(t, r.body, "message"); got != tt.msg {
				t.Errorf("%s: message\n%v\nwant\n%s", tt.name, got, tt.msg)
			}
			continue
		}
		var ns namespace.Namespace
		if err := json.Unmarshal([]byte(r.body), &ns); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ns.Spec.Finalizers, tt.want) {
			t.Errorf("%s: spec.finalizers %q, want %q", tt.name, ns.Spec.Finalizers, tt.want)
		}
	}
}

// PUT namespaces/<name>/finalize sets spec.finalizers and nothing else
// (the status stays), with indexed errors for a name that is not a
// finalizer's; it serves no other verb. Taking the last finalizer of a
// terminating namespace removes it, as in a cluster, where something
// other than the namespace controller clears its own finalizer so.
func TestFinalize(t *testing.T) {
	s, _, base := testServer(t, namespace.Options{})
	const path = "/api/v1/namespaces/f"
	disc := must(t, 200, base, "GET", "/api/v1", "")
	if !strings.Contains(disc.body, `{"name":"namespaces/finalize","singularName":"","namespaced":false,"kind":"Namespace","verbs":["update"]}`) {
		t.Errorf("discovery lists no namespaces/finalize: %s", disc.body)
	}
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"f"},"spec":{"finalizers":["example.com/hold"]}}`)
	for _, m := range []string{"GET", "PATCH", "DELETE"} {
		if r := call(t, base, m, path+"/finalize", `{}`, "Content-Type", "application/merge-patch+json"); r.code != 405 {
			t.Errorf("%s finalize: %d %s; want 405", m, r.code, r.body)
		}
	}
	r := call(t, base, "PUT", path+"/finalize",
		`{"metadata":{"name":"f"},"spec":{"finalizers":["example.com/hold","cleanup"]}}`)
	if want := `Namespace "f" is invalid: spec.finalizers[1]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`; r.code != 422 || field(t, r.body, "message") != want {
		t.Errorf("PUT finalize of a bad name: %d %s; want 422 %s", r.code, r.body, want)
	}
	r = must(t, 200, base, "PUT", path+"/finalize",
		`{"metadata":{"name":"f"},"spec":{"finalizers":["example.com/hold"]},"status":{"phase":"Terminating"}}`)
	if fins, _ := field(t, r.body, "spec.finalizers").([]any); len(fins) != 1 || fins[0] != "example.com/hold" || field(t, r.body, "status.phase") != "Active" {
		t.Errorf("after PUT finalize: %s; want spec.finalizers [example.com/hold], phase Active", r.body)
	}
	// The namespace controller empties it and takes kubernetes (gone
	// already here); example.com/hold keeps it Terminating until a
	// finalize takes it.
	must(t, 200, base, "DELETE", path, "")
	if r := must(t, 200, base, "GET", path, ""); field(t, r.body, "status.phase") != "Terminating" {
		t.Fatalf("after DELETE: %s", r.body)
	}
	must(t, 200, base, "PUT", path+"/finalize", `{"metadata":{"name":"f"},"spec":{}}`)
	waitStore(t, s, "the namespace gone", func() bool { return call(t, base, "GET", path, "").code == 404 })
}
