package crd

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/internal/recorded"
)

// TestRecordedApplyUnknownFields replays testdata/applyfields/answers.json: a
// field a structural schema lacks fails a server-side apply with
// structured-merge-diff's 500 whatever fieldValidation says (a POST or
// PUT drops it, warns, or answers 400), while under
// x-kubernetes-preserve-unknown-fields it is kept; a key given twice is
// a warning, or a 400 under Strict. A success stores what it answers, a
// failure stores nothing.
func TestRecordedApplyUnknownFields(t *testing.T) {
	_, c, url := newServer(t)
	b, err := os.ReadFile("testdata/applyfields/definitions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		do(t, "POST", url+crdsURL, string(j), 201)
	}
	for _, name := range []string{"gizmos.example.com", "blobs.example.com"} {
		if _, err := c.WaitEstablished(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range recorded.Load(t, "testdata/applyfields/answers.json") {
		recorded.Replay(t, url, e)
	}
}

// TestRecordedUnknownAfterDuplicate: in a JSON body, kube-apiserver
// 1.37.1 reports a custom resource's duplicate keys and unknown metadata
// (the decoder's) before the fields its schema prunes, wherever they
// stand in the body (POST .../gizmos?fieldValidation=Strict, and with
// =Warn&dryRun=All for the warnings).
func TestRecordedUnknownAfterDuplicate(t *testing.T) {
	_, c, url := newServer(t)
	b, err := os.ReadFile("testdata/applyfields/definitions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(b), "\n---\n")
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	do(t, "POST", url+crdsURL, string(j), 201)
	if _, err := c.WaitEstablished(context.Background(), "gizmos.example.com"); err != nil {
		t.Fatal(err)
	}
	const gizmos = "/apis/example.com/v1/namespaces/default/gizmos"
	for _, tt := range []struct {
		body string
		want []string
	}{
		{`{"apiVersion":"example.com/v1","kind":"Gizmo","metadata":{"name":"j1"},"extra":1,"spec":{"size":1,"size":2}}`,
			[]string{`duplicate field "spec.size"`, `unknown field "extra"`}},
		{`{"apiVersion":"example.com/v1","kind":"Gizmo","metadata":{"name":"j1","name":"j1"},"extra":1,"spec":{"size":1,"zzz":2}}`,
			[]string{`duplicate field "metadata.name"`, `unknown field "extra"`, `unknown field "spec.zzz"`}},
		{`{"apiVersion":"example.com/v1","kind":"Gizmo","metadata":{"name":"j1","foo":1},"extra":1,"spec":{"size":1,"size":2}}`,
			[]string{`duplicate field "spec.size"`, `unknown field "metadata.foo"`, `unknown field "extra"`}},
	} {
		r := do(t, "POST", url+gizmos+"?fieldValidation=Strict", tt.body, 400)
		msg, _ := json.Marshal(`Gizmo in version "v1" cannot be handled as a Gizmo: strict decoding error: ` + strings.Join(tt.want, ", "))
		want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":` + string(msg) + `,"reason":"BadRequest","code":400}` + "\n"
		if r.body != want {
			t.Errorf("POST %s\n= %s\nwant %s", tt.body, r.body, want)
		}
		r = do(t, "POST", url+gizmos+"?fieldValidation=Warn&dryRun=All", tt.body, 201)
		var warnings []string
		for _, w := range tt.want {
			q, _ := json.Marshal(w)
			warnings = append(warnings, `299 - `+string(q))
		}
		if got := r.header.Values("Warning"); !slices.Equal(got, warnings) {
			t.Errorf("POST %s: warnings %q; want %q", tt.body, got, warnings)
		}
	}
}
