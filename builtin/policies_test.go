package builtin

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/internal/recorded"
	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// policyServer starts a server of every built-in kind, with namespaces
// and the enforcement of ValidatingAdmissionPolicies (unless enforce is
// false), and returns its URL.
func policyServer(t *testing.T, enforce bool) string {
	t.Helper()
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := namespace.New(namespace.Options{})
	opts := server.Options{Resources: append(res, l.Resource())}
	opts.Admission = l.Admission(opts.Admission)
	p := NewPolicies()
	if enforce {
		opts.Admission = p.Admission(opts.Admission)
	}
	s, url := servertest.New(t, opts)
	l.Bind(s)
	p.Bind(s)
	return url
}

// step is one request of a recorded sequence (record-policies.go).
type step struct {
	Name        string          `json:"name"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	ContentType string          `json:"contentType"`
	Body        string          `json:"body"`
	Code        int             `json:"code"`
	Warnings    []string        `json:"warnings"`
	Answer      json.RawMessage `json:"answer"`
}

// TestRecordedPolicies replays testdata/reference/policies.json, recorded
// from kube-apiserver 1.37.1 (record-policies.go): policies and bindings
// are created, then writes pass or are refused as there, with the same
// status, message and Warning headers. Without the enforcement the
// refused writes pass, and the test fails.
func TestRecordedPolicies(t *testing.T) {
	b, err := os.ReadFile("testdata/reference/policies.json")
	if err != nil {
		t.Fatal(err)
	}
	var steps []step
	if err := json.Unmarshal(b, &steps); err != nil {
		t.Fatal(err)
	}
	url := policyServer(t, true)
	hdr := []string{"Accept", "application/json", "User-Agent", "recorded"}
	for _, s := range steps {
		h := hdr
		if s.Body != "" {
			h = append(slices.Clone(hdr), "Content-Type", s.ContentType)
		}
		r := servertest.Do(t, s.Method, url+s.Path, s.Body, h...)
		got, want := recorded.Normalize(strings.TrimSuffix(r.Body, "\n")), recorded.Normalize(string(s.Answer))
		if r.Code != s.Code || got != want || !slices.Equal(r.Header.Values("Warning"), s.Warnings) {
			t.Errorf("%s: %s %s\n= %d %q\n  %s\nwant %d %q\n  %s", s.Name, s.Method, s.Path,
				r.Code, r.Header.Values("Warning"), got, s.Code, s.Warnings, want)
		}
	}
}
