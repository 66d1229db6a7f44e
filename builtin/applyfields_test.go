package builtin

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// fieldsRecord is one request of testdata/reference/applyfields.json and
// what kube-apiserver 1.37.1 answered it: a server-side apply, POST or
// PUT (in YAML) of a ConfigMap or Deployment with a field the type lacks
// or a key given twice, under each fieldValidation.
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

var (
	// What differs per object and run: identities, versions and times.
	volatileJSON = regexp.MustCompile(`"(uid|resourceVersion|creationTimestamp|time)":"[^"]*"`)
	// The object's name in a recorded YAML body.
	objectName = regexp.MustCompile(`\n  name: (\S+)\n`)
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
	var records []fieldsRecord
	b, err := os.ReadFile("testdata/reference/applyfields.json")
	if err != nil {
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
	got := volatileJSON.ReplaceAllString(strings.TrimSuffix(r.Body, "\n"), `"$1":"-"`)
	want := volatileJSON.ReplaceAllString(string(rec.Answer), `"$1":"-"`)
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
