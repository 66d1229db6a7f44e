package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkServeHTTPFront measures the server in-process, without the
// network, where the HTTP benchmarks (examples/apiserver/demo) are
// dominated by loopback and the client: parsing, the filters (deadline,
// in-flight), routing and a small response. The rows are a GET of one
// object, a list of a one-object collection with a query, and a 404
// (nothing served after the filters).
func BenchmarkServeHTTPFront(b *testing.B) {
	s, err := New(Options{Resources: testResources()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	g := &gadget{}
	g.Name, g.Namespace = "g", "ns"
	if _, err := s.Create(context.Background(), s.opts.Resources[1], g); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, target string }{
		{"get", "/apis/test.apisem.dev/v1/namespaces/ns/gadgets/g"},
		{"list", "/apis/test.apisem.dev/v1/namespaces/ns/gadgets?limit=10&labelSelector=a%21%3Db"},
		{"notfound", "/apis/test.apisem.dev/v1/namespaces/ns/doohickeys/d"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, bc.target, nil)
			r.Header.Set("Accept", "application/json")
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				s.ServeHTTP(w, r)
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
