package otel_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/tracing/otel"
)

// A server traced with OpenTelemetry: a request that carries a sampled
// traceparent is recorded in the caller's trace. A real server reads its
// provider from a configuration file (FromConfigFile); here spans go to
// memory.
func ExampleNewTracer() {
	rec := tracetest.NewSpanRecorder()
	cfg := &otel.Configuration{} // sample only what callers sample
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(cfg.Sampler()), sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())

	s, err := server.New(server.Options{Resources: []*server.Resource{gizmos}, Hooks: server.HookOptions{Tracer: otel.NewTracer(tp)}})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())

	r := httptest.NewRequest("GET", "/apis/demo.io/v1/namespaces/ns/gizmos?limit=10", nil)
	r.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	s.ServeHTTP(httptest.NewRecorder(), r)
	s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/version", nil)) // no traceparent: not sampled

	for _, span := range rec.Ended() {
		fmt.Println(span.Name(), span.SpanKind(), span.SpanContext().TraceID(), span.Parent().SpanID())
	}
	// Output:
	// GET /apis/demo.io/v1/namespaces/{:namespace}/gizmos server 4bf92f3577b34da6a3ce929d0e0e4736 00f067aa0ba902b7
}
