package etcdstore

import (
	"context"
	"log/slog"

	"github.com/apisem/apisem/tracing"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
)

// Tracing (Options.Tracer). A resource's writes get kube-apiserver's
// storage spans (k8s.io/apiserver/pkg/storage/etcd3/store.go: "Create
// etcd3", "GuaranteedUpdate etcd3", with the key, group and resource),
// and every etcd call a client span named and labelled as OpenTelemetry's
// gRPC instrumentation (otelgrpc, which kube-apiserver puts on its etcd
// client) names the call: "etcdserverpb.KV/Range", "etcdserverpb.KV/Txn",
// "etcdserverpb.Watch/Watch", with rpc.method, rpc.system.name and
// rpc.response.status_code. A call made for a request is a child of the
// request's span; the replica's own (its list, its watch) begin traces of
// their own, which the sampler usually drops. Without a Tracer none of
// this runs.

// The etcd calls, as otelgrpc names their spans.
const (
	rpcRange   = "etcdserverpb.KV/Range"
	rpcTxn     = "etcdserverpb.KV/Txn"
	rpcPut     = "etcdserverpb.KV/Put"
	rpcWatch   = "etcdserverpb.Watch/Watch"
	rpcCompact = "etcdserverpb.KV/Compact"
)

// span is a span that may be nil (no Tracer).
type span struct{ s tracing.Span }

func (s span) end(err error) {
	if s.s != nil {
		s.s.End(err)
	}
}

// startRPC starts the client span of one etcd call of method on key and
// puts its traceparent in the call's gRPC metadata, as otelgrpc
// propagates a trace, so that an etcd that traces (its
// --enable-distributed-tracing) continues the trace. The watch's
// metadata is left alone: the etcd client shares a gRPC stream among the
// watches of equal metadata, and the replica's events watch must keep its
// own (see run).
func (p *Replica[T]) startRPC(ctx context.Context, method, key string) (context.Context, span) {
	if p.tracer == nil {
		return ctx, span{}
	}
	ctx, s := p.tracer.Start(ctx, method, tracing.Client,
		slog.String("rpc.system.name", "grpc"), slog.String("rpc.method", method), slog.String("key", key))
	if method != rpcWatch {
		if tp := tracing.Traceparent(s); tp != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "traceparent", tp)
		}
	}
	return ctx, span{s}
}

// endRPC ends an etcd call's span with its gRPC status.
func (s span) endRPC(err error) {
	if s.s != nil {
		s.s.SetAttributes(slog.String("rpc.response.status_code", grpcCode(grpcstatus.Code(err))))
		s.s.End(err)
	}
}

// startStorage starts a storage span of r: Kubernetes' name and
// attributes (its type is the resource's kind).
func (r *Resource[T]) startStorage(ctx context.Context, name, key string) (context.Context, span) {
	if r.p.tracer == nil {
		return ctx, span{}
	}
	ctx, s := r.p.tracer.Start(ctx, name, tracing.Internal, slog.String("key", key),
		slog.String("type", r.ro.Kind), slog.String("group", r.gr.Group), slog.String("resource", r.gr.Resource))
	return context.WithValue(ctx, storageKey{}, s), span{s}
}

// storageKey is the context key of the storage span of a write.
type storageKey struct{}

// storageSpan returns the storage span startStorage put in ctx.
func (r *Resource[T]) storageSpan(ctx context.Context) span {
	if r.p.tracer == nil {
		return span{}
	}
	s, _ := ctx.Value(storageKey{}).(tracing.Span)
	return span{s}
}

// event records one of Kubernetes' storage events ("Encode succeeded",
// "Txn call succeeded"); n >= 0 is its len attribute.
func (s span) event(name string, n int) {
	switch {
	case s.s == nil:
	case n >= 0:
		s.s.AddEvent(name, slog.Int("len", n))
	default:
		s.s.AddEvent(name)
	}
}

// grpcCode is c as OpenTelemetry writes a gRPC status: its canonical
// name (google.rpc.Code), "DEADLINE_EXCEEDED".
func grpcCode(c codes.Code) string {
	if int(c) < len(grpcCodes) {
		return grpcCodes[c]
	}
	return "UNKNOWN"
}

var grpcCodes = [...]string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
	"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}
