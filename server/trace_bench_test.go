package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apisem/apisem/tracing"
)

// BenchmarkTracing is the cost of tracing on a GET of one object: "off"
// (no Options.Hooks.Tracer, the default) is BenchmarkServeHTTPFront/get,
// the filter absent; "noop" is the filter with a Tracer that records
// nothing, with a caller's traceparent: the cost of the span's name,
// attributes and context before any tracing library's own.
func BenchmarkTracing(b *testing.B) {
	for _, bc := range []struct {
		name   string
		tracer tracing.Tracer
	}{{"off", nil}, {"noop", noopTracer{}}} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := New(Options{Resources: testResources(), Hooks: HookOptions{Tracer: bc.tracer}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			g := &gadget{}
			g.Name, g.Namespace = "g", "ns"
			if _, err := s.Create(context.Background(), s.opts.Resources[1], g); err != nil {
				b.Fatal(err)
			}
			r := httptest.NewRequest(http.MethodGet, "/apis/test.apisem.dev/v1/namespaces/ns/gadgets/g", nil)
			r.Header.Set("Accept", "application/json")
			r.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				s.ServeHTTP(w, r)
			}
		})
	}
}

type noopTracer struct{}

func (noopTracer) Start(ctx context.Context, _ string, _ tracing.Kind, _ ...slog.Attr) (context.Context, tracing.Span) {
	return ctx, noopTracer{}
}
func (noopTracer) SetAttributes(...slog.Attr)    {}
func (noopTracer) AddEvent(string, ...slog.Attr) {}
func (noopTracer) End(error)                     {}
