package builtin

import (
	"slices"
	"testing"

	"github.com/apisem/apisem/internal/recorded"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// TestRecordedApplyUnknownFields replays testdata/reference/
// applyfields.json: a field a built-in type lacks fails a server-side
// apply with structured-merge-diff's 500 whatever fieldValidation says,
// where a POST or PUT drops it, warns, or answers 400; a key given twice
// is a warning, or a 400 under Strict. A success stores what it
// answers, a failure nothing.
func TestRecordedApplyUnknownFields(t *testing.T) {
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, url := servertest.New(t, server.Options{Resources: res})
	for _, e := range recorded.Load(t, "testdata/reference/applyfields.json") {
		recorded.Replay(t, url, e)
	}
}

// A JSON body, as kubectl sends one, is read as YAML: its duplicate keys
// are YAML's, on line 1; a configuration without a namespace is named
// "/name" in the 500 (kube-apiserver 1.37.1, PATCH .../configmaps/jd?
// fieldManager=t&dryRun=All&fieldValidation=Strict or =Warn).
func TestRecordedApplyJSONBody(t *testing.T) {
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, url := servertest.New(t, server.Options{Resources: res})
	const (
		path = "/api/v1/namespaces/default/configmaps/jd?fieldManager=t&dryRun=All&fieldValidation="
		dup  = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"jd"},"data":{"a":"1","a":"2"}}`
	)
	for _, e := range []recorded.Exchange{
		{Name: "duplicate, Strict", Method: "PATCH", Path: path + "Strict", Body: dup, Code: 400,
			Answer: []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"error strict decoding patch: error converting YAML to JSON: yaml: unmarshal errors:\n  line 1: key \"a\" already set in map","reason":"BadRequest","code":400}`)},
		{Name: "unknown and duplicate, Strict", Method: "PATCH", Path: path + "Strict", Code: 500,
			Body:   `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"jd"},"extra":1,"data":{"a":"1","a":"2"}}`,
			Answer: []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"failed to create typed patch object (/jd; /v1, Kind=ConfigMap): .extra: field not declared in schema","code":500}`)},
	} {
		e.ContentType = "application/apply-patch+yaml"
		recorded.Replay(t, url, e)
	}
	r := servertest.Do(t, "PATCH", url+path+"Warn", dup, "Content-Type", "application/apply-patch+yaml")
	if want := []string{`299 - "line 1: key \"a\" already set in map"`}; r.Code != 201 || !slices.Equal(r.Header.Values("Warning"), want) {
		t.Errorf("duplicate, Warn: %d %q; want 201 %q", r.Code, r.Header.Values("Warning"), want)
	}
}
