package builtin

import (
	"testing"

	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// mutatingServer starts a server of every built-in kind, with
// namespaces, the ValidatingAdmissionPolicies and, if mutate, the
// MutatingAdmissionPolicies applied, and returns its URL.
func mutatingServer(t testing.TB, mutate bool) string {
	t.Helper()
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := namespace.New(namespace.Options{})
	opts := server.Options{Resources: append(res, l.Resource())}
	opts.Admission = l.Admission(opts.Admission)
	v := NewPolicies(PolicyOptions{})
	opts.Admission = v.Admission(opts.Admission)
	m := NewMutatingPolicies(PolicyOptions{})
	if mutate {
		opts.Admission = m.Admission(opts.Admission)
	}
	s, url := servertest.New(t, opts)
	l.Bind(s)
	v.Bind(s)
	m.Bind(s)
	return url
}

// TestRecordedMutatingPolicies replays testdata/reference/mutating.json,
// recorded from kube-apiserver 1.37.1 (record-mutating.go): mutating
// policies and their bindings are created, then creates, updates,
// patches, server-side applies and dry runs are mutated as there (the
// answers' objects, managedFields included, and errors the same), ahead
// of a ValidatingAdmissionPolicy that only the mutated objects pass.
// Without the mutating policies the writes are stored as sent, or
// refused by the validating policy, and the test fails.
func TestRecordedMutatingPolicies(t *testing.T) {
	replay(t, mutatingServer(t, true), "testdata/reference/mutating.json")
}
