package server_test

import (
	"strings"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// Kubernetes checks an update's metadata by the rules of a create and
// of an update, so a bad label is two causes, and two labels with the
// same bad value two more; a resource with DistinctErrors reports each
// once, in the order of first occurrence, as kube-apiserver 1.37 answers
// for its built-in kinds (a ConfigMap: one cause per distinct error).
func TestDistinctErrors(t *testing.T) {
	distinct := *gizmos
	distinct.DistinctErrors = true
	distinct.Plural, distinct.Singular, distinct.Kind, distinct.ListKind = "distinctgizmos", "distinctgizmo", "DistinctGizmo", "DistinctGizmoList"
	_, base := newServer(t, server.Options{Resources: []*server.Resource{gizmos, &distinct}})
	const bad = `Invalid value: "-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
	for _, tc := range []struct {
		plural string
		create bool // else an update
		want   []string
	}{
		{"gizmos", true, []string{"metadata.labels", "metadata.labels", "spec.color"}},
		{"distinctgizmos", true, []string{"metadata.labels", "spec.color"}},
		{"gizmos", false, []string{"metadata.labels", "metadata.labels", "metadata.uid", "metadata.labels", "metadata.labels", "spec.color"}},
		{"distinctgizmos", false, []string{"metadata.labels", "metadata.uid", "spec.color"}},
	} {
		url := base + "/apis/demo.io/v1/namespaces/ns/" + tc.plural
		meta := `{"name":"g","labels":{"a":"-","b":"-"}}`
		method, ct := "POST", "application/json"
		if !tc.create {
			if code := send(t, "POST", url, "application/json", `{"metadata":{"name":"g"}}`, nil); code != 201 {
				t.Fatalf("create: %d", code)
			}
			// A patch: the uid of a PUT's body is its precondition, a 409.
			url += "/g"
			method, ct, meta = "PATCH", "application/merge-patch+json", `{"name":"g","uid":"other","labels":{"a":"-","b":"-"}}`
		}
		var st status.Status
		if code := send(t, method, url, ct, `{"metadata":`+meta+`,"spec":{"color":"green"}}`, &st); code != 422 || st.Details == nil {
			t.Fatalf("%s %s: %d %+v", method, url, code, st)
		}
		var fields []string
		for _, c := range st.Details.Causes {
			fields = append(fields, c.Field)
			if c.Field == "metadata.labels" && c.Message != bad {
				t.Errorf("%s: cause %q", url, c.Message)
			}
		}
		if strings.Join(fields, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s %s: causes %v; want %v", method, url, fields, tc.want)
		}
	}
}

// apiextensions-apiserver checks a custom resource's update metadata a
// third time (its validator runs the update rules after the generic
// checks), so a bad label and a bad annotation are each three causes in
// that order, before the schema's: kube-apiserver 1.37.1's answer to a
// merge patch of a Widget with the label a=-bad- and the annotation
// -x=y (../shared/reference) lists labels, annotations three times.
func TestCustomUpdateMetaThrice(t *testing.T) {
	custom := *gizmos
	custom.Custom = true
	_, base := newServer(t, server.Options{Resources: []*server.Resource{&custom}})
	url := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	if code := send(t, "POST", url, "application/json", `{"metadata":{"name":"g"}}`, nil); code != 201 {
		t.Fatalf("create: %d", code)
	}
	var st status.Status
	if code := send(t, "PATCH", url+"/g", "application/merge-patch+json", `{"metadata":{"labels":{"a":"-bad-"},"annotations":{"-x":"y"}}}`, &st); code != 422 || st.Details == nil {
		t.Fatalf("patch: %d %+v", code, st)
	}
	var fields []string
	for _, c := range st.Details.Causes {
		fields = append(fields, c.Field)
	}
	want := strings.Repeat("metadata.labels metadata.annotations ", 3)
	if got := strings.Join(fields, " ") + " "; got != want {
		t.Errorf("causes %v; want %s", fields, want)
	}
}
