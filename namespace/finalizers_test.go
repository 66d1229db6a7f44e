package namespace_test

import (
	"encoding/json"
	"slices"
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
