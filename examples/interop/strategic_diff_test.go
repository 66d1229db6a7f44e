package interop

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/apisem/apisem/patch"
)

// namespacePatchSchema is the strategic merge schema of corev1.Namespace's
// merging lists, as package patch declares it.
var namespacePatchSchema = &patch.Schema{Fields: map[string]*patch.Schema{
	"metadata": {Fields: map[string]*patch.Schema{
		"finalizers":      {MergeList: true},
		"ownerReferences": {MergeList: true, MergeKey: "uid"},
	}},
	"status": {Fields: map[string]*patch.Schema{
		"conditions": {MergeList: true, MergeKey: "type"},
	}},
}}

// TestStrategicMergeDifferential: package patch and Kubernetes'
// strategicpatch (with corev1.Namespace's struct tags) give the same
// result for the same document and patch, list order included, on
// written cases and random ones.
func TestStrategicMergeDifferential(t *testing.T) {
	check := func(doc, p string) {
		t.Helper()
		want, werr := strategicpatch.StrategicMergePatch([]byte(doc), []byte(p), corev1.Namespace{})
		got, gerr := patch.StrategicMergePatch([]byte(doc), []byte(p), namespacePatchSchema)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("patch %s to %s:\nours %s %v\nKubernetes %s %v", p, doc, got, gerr, want, werr)
		}
		if werr != nil {
			return
		}
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(want, &w)
		if diff := cmp.Diff(w, g); diff != "" {
			t.Fatalf("patch %s to %s (-Kubernetes +ours):\n%s", p, doc, diff)
		}
	}
	for _, tt := range []struct{ doc, patch string }{
		{`{"metadata":{"finalizers":["a","b"]}}`, `{"metadata":{"finalizers":["c"]}}`},
		{`{"metadata":{"finalizers":["a","b"]}}`, `{"metadata":{"finalizers":["c","a","c"]}}`},
		{`{"metadata":{"finalizers":["a","b","c"]}}`, `{"metadata":{"finalizers":["c","a"]}}`},
		{`{"status":{"conditions":[{"type":"A","status":"True"}]}}`, `{"status":{"conditions":[{"type":"B","status":"False"},{"type":"A","status":"False"}]}}`},
		{`{"status":{"conditions":[{"type":"A"},{"type":"B"},{"type":"C"}]}}`, `{"status":{"conditions":[{"type":"D"},{"type":"B","status":"x"}]}}`},
		{`{"status":{"conditions":[{"type":"A"},{"type":"B"}]}}`, `{"status":{"conditions":[{"type":"A","$patch":"delete"},{"type":"C"}]}}`},
	} {
		check(tt.doc, tt.patch)
	}
	rng := rand.New(rand.NewPCG(14, 1))
	subset := func(vals ...string) []string {
		rng.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
		return vals[:rng.IntN(len(vals)+1)]
	}
	conds := func(patch bool) []any {
		var out []any
		for _, ty := range subset("A", "B", "C", "D") {
			c := map[string]any{"type": ty, "status": []string{"True", "False"}[rng.IntN(2)]}
			if patch && rng.IntN(5) == 0 {
				c = map[string]any{"type": ty, "$patch": "delete"}
			}
			out = append(out, c)
		}
		return out
	}
	owners := func() []any {
		var out []any
		for _, u := range subset("1", "2", "3") {
			out = append(out, map[string]any{"uid": u, "name": "n" + u, "kind": "K", "apiVersion": "v1"})
		}
		return out
	}
	obj := func(patch bool) string {
		o := map[string]any{
			"metadata": map[string]any{"finalizers": subset("a", "b", "c", "d"), "ownerReferences": owners()},
			"status":   map[string]any{"conditions": conds(patch)},
		}
		b, _ := json.Marshal(o)
		return string(b)
	}
	for i := range 2000 {
		doc, p := obj(false), obj(true)
		t.Run(fmt.Sprint(i), func(t *testing.T) { check(doc, p) })
	}
}
