package store

import (
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
)

// BenchmarkEstimateSize is the default Options.Size, paid once per write
// under the writer lock: a few hundred nanoseconds and no allocation for
// a small object (labels and annotations take a fast path that skips the
// reflect map iterator's copies).
func BenchmarkEstimateSize(b *testing.B) {
	w := &widget{ObjectMeta: meta.ObjectMeta{Name: "cm-1", Namespace: "demo", UID: "0123", ResourceVersion: "12345",
		Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"note": "x"}},
		Spec: map[string]string{"d": strings.Repeat("x", 4096)}}
	b.ReportAllocs()
	for b.Loop() {
		estimateSize(w)
	}
}
