package server

import "net/http"

// The filter chain. Every request runs through these filters, each a
// func(http.Handler) http.Handler, in this order (Kubernetes' order,
// k8s.io/apiserver/pkg/server/config.go, DefaultBuildHandlerChain):
//
//  1. the request value: ServeHTTP parses the method, path and query once
//     and puts the result in the context (RequestInfoFrom);
//  2. the deadline (withDeadline, server/edge.go): RequestTimeout, a bad
//     ?timeout= is a 400; watches pass without one;
//  3. authentication (withAuthentication, server/auth.go): 401, or the
//     user in the context (auth.UserFrom);
//  4. tracing (withTracing, server/trace.go), if Options.Hooks.Tracer is
//     set: the request's span, a child of the caller's traceparent; it
//     holds the audit log's work, as kube-apiserver's span holds its;
//  5. Options.Hooks.Audit (server/audit.go), kube-apiserver's place for
//     the audit log, which thus sees the 403s and 429s below;
//  6. the in-flight limits (withInFlightLimit, server/edge.go): 429;
//     watches and health checks are not counted;
//  7. authorization (withAuthorization, server/auth.go): 403, from the
//     URL alone;
//  8. Options.Hooks.Filters, the first outermost;
//  9. the metrics (withMetrics, server/metrics.go), if Options.Hooks.Metrics
//     is set: each request the handler answers is reported, and
//     /metrics is served;
// 10. the handler: health, discovery, /debug/pprof (server/debug.go),
//     and the resources' verbs.
//
// A request refused by one filter never reaches the next.

// chain builds the handler of ServeHTTP from the filters, once, in New.
func (s *Server) chain() http.Handler {
	h := s.withMetrics(http.HandlerFunc(s.serve))
	for i := len(s.opts.Hooks.Filters) - 1; i >= 0; i-- {
		if f := s.opts.Hooks.Filters[i]; f != nil {
			h = f(h)
		}
	}
	h = s.withAuthorization(h)
	h = s.withInFlightLimit(h)
	if a := s.opts.Hooks.Audit; a != nil {
		h = a(withAuditRecorder(h))
	}
	h = s.withTracing(h)
	h = s.withAuthentication(h)
	return s.withDeadline(h)
}
