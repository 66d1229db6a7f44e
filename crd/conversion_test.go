package crd

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apisem/apisem/server/servertest"
)

// recordedStep is one request of a recorded-answers file and what
// kube-apiserver answered: the code, the Warning headers, and the
// answer's apiVersion and spec (labels and generation), or a list's
// items, or a Status' reason, message and details.
type recordedStep struct {
	Mode        string          `json:"mode"`
	Name        string          `json:"name"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	Body        json.RawMessage `json:"body"`
	ContentType string          `json:"contentType"`
	Code        int             `json:"code"`
	Warnings    []string        `json:"warnings"`
	APIVersion  string          `json:"apiVersion"`
	Spec        any             `json:"spec"`
	Labels      any             `json:"labels"`
	Generation  any             `json:"generation"`
	Items       []any           `json:"items"`
	Status      map[string]any  `json:"status"`
}

// answer sends s's request to url and returns the answer in s's recorded
// form: items and Status members as recorded, the rest only where the
// recording has them.
func (s recordedStep) answer(t *testing.T, url string, itemFields ...string) recordedStep {
	t.Helper()
	ct := s.ContentType
	if ct == "" {
		ct = "application/json"
	}
	var body string
	if s.Body != nil {
		body = string(s.Body)
	}
	r := servertest.Do(t, s.Method, url+s.Path, body, "Content-Type", ct)
	got := recordedStep{Mode: s.Mode, Name: s.Name, Method: s.Method, Path: s.Path, Body: s.Body, ContentType: s.ContentType,
		Code: r.Code, Warnings: r.Header.Values("Warning")}
	var out map[string]any
	if err := json.Unmarshal([]byte(r.Body), &out); err != nil {
		t.Fatalf("%s: %v: %s", s.Name, err, r.Body)
	}
	md, _ := out["metadata"].(map[string]any)
	switch {
	case out["kind"] == "Status":
		got.Status = map[string]any{}
		for _, k := range []string{"reason", "message", "details"} {
			if v, ok := out[k]; ok && v != "" {
				got.Status[k] = v
			}
		}
		if d, ok := got.Status["details"].(map[string]any); ok {
			delete(d, "uid")
		}
	case out["items"] != nil:
		for _, it := range out["items"].([]any) {
			it := it.(map[string]any)
			imd := it["metadata"].(map[string]any)
			item := map[string]any{"name": imd["name"], "apiVersion": it["apiVersion"], "spec": it["spec"]}
			for _, f := range itemFields {
				item[f] = imd[f]
			}
			got.Items = append(got.Items, item)
		}
	default:
		got.APIVersion, _ = out["apiVersion"].(string)
		got.Spec = out["spec"]
		if s.Labels != nil || s.Generation != nil {
			got.Labels, got.Generation = md["labels"], md["generation"]
		}
	}
	return got
}

// TestStorageVersionPruning replays requests to a definition whose two
// versions name different members, and checks the answers against
// kube-apiserver 1.37's to the same requests
// (testdata/storage-version-pruning.json): a member written through v1
// that the storage version v2 lacks is dropped (v1's required member
// too, so that the next write through v1 must give it again), the
// request version's defaults are pruned with it, and a read defaults by
// the storage version's schema and prunes by its own version's.
func TestStorageVersionPruning(t *testing.T) {
	var rec struct {
		Definition *CustomResourceDefinition `json:"definition"`
		Steps      []recordedStep            `json:"steps"`
	}
	b, err := os.ReadFile("testdata/storage-version-pruning.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	_, c, url := newServer(t)
	if err := c.Install(context.Background(), rec.Definition); err != nil {
		t.Fatal(err)
	}
	for _, s := range rec.Steps {
		// In order: each request sees the writes before it.
		if diff := cmp.Diff(s, s.answer(t, url)); diff != "" {
			t.Errorf("%s: answer differs from kube-apiserver's (-cluster +here):\n%s", s.Name, diff)
		}
	}
}
