package builtin

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/internal/recorded"
	"github.com/apisem/apisem/server/servertest"
)

// TestRecordedCreateOnUpdate replays testdata/reference/createonupdate.json,
// recorded from kube-apiserver 1.37.1 (record-createonupdate.go): a PUT of
// a missing Lease or RoleBinding creates it (201, managedFields of an
// Update, a dry run stores nothing, a resourceVersion is ignored, a uid is
// the storage's precondition 409, validation and the namespace's existence
// are the create's), of a missing ConfigMap is a 404.
func TestRecordedCreateOnUpdate(t *testing.T) {
	_, url := allocServer(t, NewServiceAllocator(), nil)
	r := servertest.Do(t, "POST", url+"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}}`,
		"Content-Type", "application/json")
	if r.Code != 201 && r.Code != 409 {
		t.Fatalf("namespace: %d %s", r.Code, r.Body)
	}
	b, err := os.ReadFile("testdata/reference/createonupdate.json")
	if err != nil {
		t.Fatal(err)
	}
	var steps []step
	if err := json.Unmarshal(b, &steps); err != nil {
		t.Fatal(err)
	}
	hdr := []string{"Accept", "application/json", "User-Agent", "recorded"}
	for _, s := range steps {
		h := hdr
		if s.Body != "" {
			h = append(slices.Clone(hdr), "Content-Type", s.ContentType)
		}
		r := servertest.Do(t, s.Method, url+s.Path, s.Body, h...)
		got := recorded.Normalize(strings.TrimSuffix(r.Body, "\n"))
		want := recorded.Normalize(string(s.Answer))
		if r.Code != s.Code || got != want || !slices.Equal(r.Header.Values("Warning"), s.Warnings) {
			t.Errorf("%s: %s %s\n= %d %q\n  %s\nwant %d %q\n  %s", s.Name, s.Method, s.Path,
				r.Code, r.Header.Values("Warning"), got, s.Code, s.Warnings, want)
		}
	}
}
