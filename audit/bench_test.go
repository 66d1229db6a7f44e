package audit_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apisem/apisem/audit"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

// BenchmarkFilter is the cost per request of auditing a GET of one
// ConfigMap at Metadata level (two events: RequestReceived and
// ResponseComplete, encoded and written to io.Discard), against the same
// server without the filter.
func BenchmarkFilter(b *testing.B) {
	policy, err := audit.ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata}]"))
	if err != nil {
		b.Fatal(err)
	}
	f, err := audit.New(audit.Options{Policy: policy, Backend: audit.NewLogBackend(io.Discard)})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		hook func(http.Handler) http.Handler
	}{{"none", nil}, {"metadata", f.Wrap}} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := server.New(server.Options{Resources: []*server.Resource{configMaps},
				Security: referenceSecurity(), Hooks: server.HookOptions{Audit: bc.hook}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			if _, err := s.Create(context.Background(), configMaps, &ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "default"},
				Data: map[string]string{"k": "v"}}); err != nil {
				b.Fatal(err)
			}
			r := httptest.NewRequest("GET", "/api/v1/namespaces/default/configmaps/a", nil)
			r.Header.Set("User-Agent", "kubectl/v1.37.1 (linux/amd64) kubernetes/abcdef")
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				clear(w.h)
				s.ServeHTTP(w, r)
			}
			if w.code != 200 {
				b.Fatalf("code %d", w.code)
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps nothing but the code.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
