package apisemtest_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/apisem/apisem/apisemtest"
	"github.com/apisem/apisem/internal/recorded"
	"github.com/apisem/apisem/server/servertest"
)

// The stored object's uid where a message names it.
var storedUID = regexp.MustCompile(`(UID in object meta: |UID in record \()[0-9a-f-]+`)

// TestRecordedForeignUID replays testdata/reference/uid.json, recorded
// from kube-apiserver 1.37.1 (record-uid.go): writes whose body names
// another metadata.uid. An update, of the object or of its status or
// scale, and a dry run of one, fail the storage's uid precondition with a
// 409 Conflict before anything else is checked (an old resourceVersion,
// a missing one, validation), the dry run's key without the storage
// prefix; a patch or apply of the object answers the 422 of an immutable
// field, one of a Deployment's scale the scale's own 409, one of a
// custom resource's scale keeps the uid; another name is the URL's 400.
func TestRecordedForeignUID(t *testing.T) {
	env := apisemtest.Start(t, apisemtest.Options{CRDDirectoryPaths: []string{"testdata/uid-crds"}})
	b, err := os.ReadFile("testdata/reference/uid.json")
	if err != nil {
		t.Fatal(err)
	}
	var steps []struct {
		Name, Method, Path, ContentType, Body string
		Code                                  int
		Answer                                json.RawMessage
	}
	if err := json.Unmarshal(b, &steps); err != nil {
		t.Fatal(err)
	}
	normalize := func(s string) string {
		return storedUID.ReplaceAllString(recorded.Normalize(strings.TrimSuffix(s, "\n")), "${1}-")
	}
	hdr := []string{"Accept", "application/json", "User-Agent", "recorded"}
	for _, s := range steps {
		body := s.Body
		if strings.Contains(body, "SELF") { // the object's own uid
			p, _, _ := strings.Cut(s.Path, "?")
			p = strings.TrimSuffix(strings.TrimSuffix(p, "/scale"), "/status")
			var o struct{ Metadata struct{ UID string } }
			if err := json.Unmarshal([]byte(servertest.Do(t, "GET", env.Config.Host+p, "", hdr...).Body), &o); err != nil {
				t.Fatal(err)
			}
			body = strings.ReplaceAll(body, "SELF", o.Metadata.UID)
		}
		h := hdr
		if body != "" {
			h = append(h[:len(h):len(h)], "Content-Type", s.ContentType)
		}
		r := servertest.Do(t, s.Method, env.Config.Host+s.Path, body, h...)
		if got, want := normalize(r.Body), normalize(string(s.Answer)); r.Code != s.Code || got != want {
			t.Errorf("%s: %s %s\n%s\n= %d %s\nwant %d %s", s.Name, s.Method, s.Path, body, r.Code, got, s.Code, want)
		}
	}
}
