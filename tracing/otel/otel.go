package otel

import (
	"context"
	"log/slog"
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/apisem/apisem/tracing"
)

// instrumentationName names apisem's tracer to the provider.
const instrumentationName = "github.com/apisem/apisem"

// Tracer is a tracing.Tracer that starts OpenTelemetry spans. Create it
// with NewTracer.
type Tracer struct {
	t trace.Tracer
}

var _ tracing.Tracer = (*Tracer)(nil)

// NewTracer returns a Tracer of tp's spans.
func NewTracer(tp trace.TracerProvider) *Tracer {
	return &Tracer{t: tp.Tracer(instrumentationName)}
}

var kinds = [...]trace.SpanKind{
	tracing.Internal: trace.SpanKindInternal,
	tracing.Server:   trace.SpanKindServer,
	tracing.Client:   trace.SpanKindClient,
}

// Start implements tracing.Tracer. A Server span without a parent in ctx
// starts from the caller's span that tracing.ContextWithRemote put there:
// as its child if the caller is trusted, else as the root of a new trace
// linked to it, as otelhttp does for a public endpoint.
func (t *Tracer) Start(ctx context.Context, name string, kind tracing.Kind, attrs ...slog.Attr) (context.Context, tracing.Span) {
	opts := make([]trace.SpanStartOption, 0, 4)
	if int(kind) < len(kinds) {
		opts = append(opts, trace.WithSpanKind(kinds[kind]))
	}
	if kind == tracing.Server && !trace.SpanContextFromContext(ctx).IsValid() {
		if sc, trusted, ok := tracing.RemoteFrom(ctx); ok {
			remote := spanContext(sc)
			if trusted {
				ctx = trace.ContextWithRemoteSpanContext(ctx, remote)
			} else {
				opts = append(opts, trace.WithNewRoot(), trace.WithLinks(trace.Link{SpanContext: remote}))
			}
		}
	}
	if len(attrs) > 0 {
		opts = append(opts, trace.WithAttributes(keyValues(attrs)...))
	}
	ctx, s := t.t.Start(ctx, name, opts...)
	return ctx, span{s}
}

// spanContext is sc as OpenTelemetry's remote span context; a tracestate
// OpenTelemetry cannot parse is dropped, as its propagator drops it.
func spanContext(sc tracing.SpanContext) trace.SpanContext {
	state, err := trace.ParseTraceState(sc.State)
	if err != nil {
		state = trace.TraceState{}
	}
	return trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    sc.TraceID,
		SpanID:     sc.SpanID,
		TraceFlags: trace.TraceFlags(sc.Flags) & trace.FlagsSampled,
		TraceState: state,
		Remote:     true,
	})
}

// span adapts an OpenTelemetry span to tracing.Span.
type span struct{ s trace.Span }

// IsRecording is probed by tracing.IsRecording: a span its sampler
// dropped records nothing.
func (s span) IsRecording() bool { return s.s.IsRecording() }

// Traceparent is probed by tracing.Traceparent: the span's own context
// as a W3C traceparent, "" if not valid.
func (s span) Traceparent() string {
	sc := s.s.SpanContext()
	if !sc.IsValid() {
		return ""
	}
	return tracing.SpanContext{TraceID: sc.TraceID(), SpanID: sc.SpanID(), Flags: byte(sc.TraceFlags())}.Traceparent()
}

func (s span) SetAttributes(attrs ...slog.Attr) {
	if s.s.IsRecording() {
		s.s.SetAttributes(keyValues(attrs)...)
	}
}

func (s span) AddEvent(name string, attrs ...slog.Attr) {
	if s.s.IsRecording() {
		s.s.AddEvent(name, trace.WithAttributes(keyValues(attrs)...))
	}
}

func (s span) End(err error) {
	if err != nil && s.s.IsRecording() {
		s.s.RecordError(err)
		s.s.SetStatus(codes.Error, err.Error())
	}
	s.s.End()
}

// keyValues converts slog attributes: strings, integers, floats and
// booleans to their OpenTelemetry kinds, anything else to its string.
func keyValues(attrs []slog.Attr) []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, len(attrs))
	for _, a := range attrs {
		v := a.Value.Resolve()
		switch v.Kind() {
		case slog.KindString:
			kv = append(kv, attribute.String(a.Key, v.String()))
		case slog.KindInt64:
			kv = append(kv, attribute.Int64(a.Key, v.Int64()))
		case slog.KindUint64:
			if u := v.Uint64(); u <= math.MaxInt64 {
				kv = append(kv, attribute.Int64(a.Key, int64(u)))
			} else {
				kv = append(kv, attribute.String(a.Key, v.String()))
			}
		case slog.KindFloat64:
			kv = append(kv, attribute.Float64(a.Key, v.Float64()))
		case slog.KindBool:
			kv = append(kv, attribute.Bool(a.Key, v.Bool()))
		default:
			kv = append(kv, attribute.String(a.Key, v.String()))
		}
	}
	return kv
}
