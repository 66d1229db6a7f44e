package serverstore

import (
	"testing"

	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

// BenchmarkEncodeCustomResource measures the codec's encoding of a
// custom resource's value: as before Resource.StoredAs (no label, one
// version), and labelled with its storage version, as every custom
// resource's value now is.
func BenchmarkEncodeCustomResource(b *testing.B) {
	obj := &server.Unstructured{
		ObjectMeta: meta.ObjectMeta{Name: "w", Namespace: "ns", UID: "u", Generation: 1, Labels: map[string]string{"app": "a"}},
		Content:    map[string]any{"spec": map[string]any{"color": "red", "size": int64(3)}, "status": map[string]any{"ready": true}},
	}
	stored := meta.TypeMeta{APIVersion: "example.com/v2", Kind: "Widget"}
	for _, tc := range []struct {
		name     string
		storedAs func(server.Object) meta.TypeMeta
	}{
		{"unlabelled", nil},
		{"storage-version", func(server.Object) meta.TypeMeta { return stored }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			res := server.UnstructuredResource(server.Resource{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets"})
			res.StoredAs = tc.storedAs
			s := &storage{versions: map[string][]*server.Resource{"widgets.example.com": {res}}}
			c := codec{res: res, s: s, key: "widgets.example.com"}
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				if _, err := c.Encode(obj); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
