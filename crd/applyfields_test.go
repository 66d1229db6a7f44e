package crd

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/server/servertest"
)

// fieldsRecord is one request of testdata/applyfields/answers.json and what
// kube-apiserver 1.37.1 answered it: a server-side apply, POST or PUT
// (in YAML) of a body with a field the schema lacks or a key given twice,
// under each fieldValidation.
type fieldsRecord struct {
	Name        string          `json:"name"`
	Before      string          `json:"before"` // applied (PATCH) or created (PUT) first, by the same manager
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	ContentType string          `json:"contentType"`
	Body        string          `json:"body"` // RV stands for the resourceVersion before's answer gave
	Code        int             `json:"code"`
	Warnings    []string        `json:"warnings"`
	Answer      json.RawMessage `json:"answer"`
}

// What differs per object and run: identities, versions and times.
var volatileJSON = regexp.MustCompile(`"(uid|resourceVersion|creationTimestamp|time)":"[^"]*"`)

// objectName finds the object's name in a recorded YAML body.
var objectName = regexp.MustCompile(`\n  name: (\S+)\n`)

func normalizeJSON(b string) string { return volatileJSON.ReplaceAllString(b, `"$1":"-"`) }

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
	var records []fieldsRecord
	if b, err = os.ReadFile("testdata/applyfields/answers.json"); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &records); err != nil {
		t.Fatal(err)
	}
	for _, rec := range records {
		replayFields(t, url, rec)
	}
}

func replayFields(t *testing.T, url string, rec fieldsRecord) {
	t.Helper()
	obj, _, _ := strings.Cut(rec.Path, "?")
	if rec.Method == "POST" {
		obj += "/" + objectName.FindStringSubmatch(rec.Body)[1]
	}
	hdr := []string{"Accept", "application/json", "User-Agent", "recorded"}
	body := rec.Body
	if rec.Before != "" {
		var r servertest.Reply
		if rec.Method == "PUT" {
			r = servertest.Do(t, "POST", url+obj[:strings.LastIndexByte(obj, '/')]+"?fieldManager=test", rec.Before, append(hdr, "Content-Type", "application/yaml")...)
		} else {
			r = servertest.Do(t, "PATCH", url+obj+"?fieldManager=test", rec.Before, append(hdr, "Content-Type", "application/apply-patch+yaml")...)
		}
		if r.Code != 201 {
			t.Fatalf("%s: before: %d %s", rec.Name, r.Code, r.Body)
		}
		var o struct {
			Metadata struct{ ResourceVersion string }
		}
		if err := json.Unmarshal([]byte(r.Body), &o); err != nil {
			t.Fatal(err)
		}
		body = strings.Replace(body, `"RV"`, `"`+o.Metadata.ResourceVersion+`"`, 1)
	}
	pre := servertest.Do(t, "GET", url+obj, "", hdr...)
	r := servertest.Do(t, rec.Method, url+rec.Path, body, append(hdr, "Content-Type", rec.ContentType)...)
	got, want := normalizeJSON(strings.TrimSuffix(r.Body, "\n")), normalizeJSON(string(rec.Answer))
	if r.Code != rec.Code || got != want || !slices.Equal(r.Header.Values("Warning"), rec.Warnings) {
		t.Errorf("%s:\n%s %s\n%s\n= %d %q\n  %s\nwant %d %q\n  %s", rec.Name, rec.Method, rec.Path, body,
			r.Code, r.Header.Values("Warning"), got, rec.Code, rec.Warnings, want)
	}
	post := servertest.Do(t, "GET", url+obj, "", hdr...)
	if r.Code < 300 && post.Body != r.Body || r.Code >= 300 && post.Body != pre.Body {
		t.Errorf("%s: stored %s\nbefore the request %s\nanswered %s", rec.Name, post.Body, pre.Body, r.Body)
	}
	servertest.Do(t, "DELETE", url+obj, "", hdr...)
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
