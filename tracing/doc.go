// Package tracing is the vocabulary in which apisem's packages report
// spans of distributed tracing (server's requests, etcdstore's storage and
// etcd calls) without depending on a tracing library: a Tracer starts
// spans; an adapter (the nested module tracing/otel, for OpenTelemetry)
// turns them into a library's spans and exports them. A nil Tracer traces
// nothing and costs nothing: the instrumented code skips the spans
// altogether.
//
// # Trace context
//
// A caller's span arrives in the W3C traceparent and tracestate headers
// (https://www.w3.org/TR/trace-context/). ParseTraceparent reads them;
// the server puts the caller's span in the context of the request
// (ContextWithRemote), and the Tracer starts the request's span from it:
// as its child when the caller is trusted with the trace, else (as
// kube-apiserver does for users outside system:masters and
// system:monitoring, k8s.io/apiserver/pkg/endpoints/filters/traces.go) as
// a new trace linked to it.
//
// # Names and attributes
//
// Spans carry the names and attributes kube-apiserver gives them, so that
// the queries written for a cluster's traces find ours: a request's span is
// "GET /api/v1/namespaces/{:namespace}/pods/{:name}" with OpenTelemetry's
// HTTP attributes (http.request.method, url.path, http.target,
// user_agent.original, http.response.status_code...); storage spans are
// k8s.io/apiserver/pkg/storage/etcd3's ("Create etcd3", "Get etcd3"...);
// etcd calls are named as OpenTelemetry's gRPC instrumentation names them
// ("etcdserverpb.KV/Range"). Attributes are log/slog attributes, whose
// kinds (string, int64, bool, float64) map one to one onto
// OpenTelemetry's.
//
// # Non-goals
//
// It is not a tracing library: no sampling, no export, no propagation to
// outgoing requests; those are the adapter's (OpenTelemetry's).
package tracing
