package tracing

import (
	"context"
	"log/slog"
)

// Tracer starts spans. Implementations must be safe for concurrent use.
type Tracer interface {
	// Start starts a span named name, a child of the span in ctx (or of
	// the remote span there, see ContextWithRemote, for a span of kind
	// Server), and returns ctx with the new span in it. The caller ends
	// the span.
	Start(ctx context.Context, name string, kind Kind, attrs ...slog.Attr) (context.Context, Span)
}

// Span is one started span. Its methods may be called from any
// goroutine, but End only once, last.
type Span interface {
	// SetAttributes adds attributes, or replaces those of the same key.
	SetAttributes(attrs ...slog.Attr)
	// AddEvent records a named point in the span's time.
	AddEvent(name string, attrs ...slog.Attr)
	// End ends the span; a non-nil err marks it failed, with the error
	// recorded.
	End(err error)
}

// IsRecording reports whether s records what it is given: false if it
// has an IsRecording method (as OpenTelemetry's spans do) that says so,
// for a span its sampler dropped. Instrumented code skips building the
// attributes of a span that does not record.
func IsRecording(s Span) bool {
	r, ok := s.(interface{ IsRecording() bool })
	return !ok || r.IsRecording()
}

// Traceparent returns the W3C traceparent header of s's own span, for
// the services s calls (etcdstore sends it to etcd, as OpenTelemetry's
// gRPC instrumentation does, so that etcd's spans join the trace): the
// result of its Traceparent method (OpenTelemetry's spans, through
// tracing/otel, have one), "" if it has none or its span context is not
// valid.
func Traceparent(s Span) string {
	if p, ok := s.(interface{ Traceparent() string }); ok {
		return p.Traceparent()
	}
	return ""
}

// Kind is the role of a span in its trace, as OpenTelemetry's SpanKind.
type Kind uint8

const (
	// Internal is an operation inside the process.
	Internal Kind = iota
	// Server is the handling of a request from a caller.
	Server
	// Client is a request to another service (etcd).
	Client
)

// remoteKey is the context key of a request's remote parent.
type remoteKey struct{}

// remote is the value under remoteKey.
type remote struct {
	sc      SpanContext
	trusted bool
}

// ContextWithRemote returns ctx carrying sc, the caller's span, for the
// Server span that a Tracer starts next in it: trusted means the caller
// may choose the trace (the span is sc's child); otherwise the span begins
// a new trace with a link to sc, so that a caller cannot make the server
// sample, or graft its spans onto a trace it does not own.
func ContextWithRemote(ctx context.Context, sc SpanContext, trusted bool) context.Context {
	return context.WithValue(ctx, remoteKey{}, remote{sc, trusted})
}

// RemoteFrom returns the caller's span that ContextWithRemote put in ctx.
func RemoteFrom(ctx context.Context) (sc SpanContext, trusted, ok bool) {
	r, ok := ctx.Value(remoteKey{}).(remote)
	return r.sc, r.trusted, ok
}
