package server

import (
	"context"
	"net/http"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/status"
)

// Auditing. kube-apiserver audits a request right after authentication,
// before its in-flight limit and authorization
// (k8s.io/apiserver/pkg/server/config.go, DefaultBuildHandlerChain:
// WithAuthentication, WithAudit, WithImpersonation, WithMaxInFlightLimit,
// WithAuthorization), so that its audit log holds the requests refused
// with 403 and 429 as well. Options.Hooks.Audit is that place in the
// chain (server/filters.go). Two things a filter there cannot see from
// outside, the server tells the response writer it was given when that
// writer, or one it wraps (Unwrap), is an AuditRecorder: the authorizer's
// decision, as the annotations kube-apiserver's authorization filter adds,
// and the Status of a response, which kube-apiserver copies into the
// event's responseStatus. Package audit is such a filter. Admission adds
// annotations of its own through the same recorder (AddAuditAnnotation).
//
// A request no authenticator accepts goes through Options.Hooks.Audit
// too, on its way to the 401, as kube-apiserver sends it through its
// audit (WithFailedAuthenticationAudit): without a user, with
// AuthenticationFailed true in its context, and without the in-flight
// limits, authorization and handler.

// AuditRecorder is the optional interface of a response writer that
// records a request's audit event. The server probes for it as net/http
// probes for http.Flusher; the methods are called on the request's
// goroutine, before the response is written.
type AuditRecorder interface {
	// AuditAnnotation adds an annotation to the request's audit event:
	// the server adds AnnotationDecision and AnnotationReason once
	// the authorizer has decided, and admission hooks theirs
	// (AddAuditAnnotation).
	AuditAnnotation(key, value string)
	// AuditStatus is told the Status of the response about to be written:
	// an error's, or a deletion's Success. st is only read, and not kept
	// past the call.
	AuditStatus(st *status.Status)
}

// The annotations of the authorization decision, with kube-apiserver's
// keys and values (k8s.io/apiserver/pkg/endpoints/filters/authorization.go).
const (
	// AnnotationDecision is "allow" or "forbid".
	AnnotationDecision = "authorization.k8s.io/decision"
	// AnnotationReason is the authorizer's reason, or "internal error"
	// when the authorizer failed (and then AnnotationDecision is absent).
	AnnotationReason = "authorization.k8s.io/reason"
)

// AuthenticationFailed reports whether the request whose context is ctx
// is one no authenticator accepted, which Options.Hooks.Audit sees on its
// way to the 401.
func AuthenticationFailed(ctx context.Context) bool {
	failed, _ := ctx.Value(authenticationFailedKey{}).(bool)
	return failed
}

// authenticationFailedKey is the context key of AuthenticationFailed.
type authenticationFailedKey struct{}

// unauthorized answers a request no authenticator accepted: 401, through
// Options.Hooks.Audit when there is one.
func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request) {
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, nil, auth.Unauthorized())
	})
	if a := s.opts.Hooks.Audit; a != nil {
		h = a(h)
		r = r.WithContext(context.WithValue(r.Context(), authenticationFailedKey{}, true))
	}
	h.ServeHTTP(w, r)
}

// AddAuditAnnotation adds an annotation to the audit event of the
// request ctx belongs to, as kube-apiserver's admission plugins annotate
// theirs (a ValidatingAdmissionPolicy's auditAnnotations as
// "<policy>/<key>", its Audit action as
// "validation.policy.admission.k8s.io/validation_failure"). The
// AuditRecorder below Options.Hooks.Audit gets it, so it is in the events
// of the stages still to come, ResponseComplete, as in kube-apiserver's
// log; a key keeps its first value. Keys are best "<plugin>/<name>", the
// form Kubernetes requires of admission's annotations. Admission hooks,
// and Resource hooks that get the request's context, call it on the
// request's goroutine; outside a request, or without an audit hook that
// records the request, it does nothing.
func AddAuditAnnotation(ctx context.Context, key, value string) {
	if rq, ok := ctx.Value(requestKey{}).(*request); ok && rq.audit != nil {
		rq.audit.AuditAnnotation(key, value)
	}
}

// withAuditRecorder returns next, which keeps the AuditRecorder of the
// writer it is given, if any, in the request value for
// AddAuditAnnotation: Options.Hooks.Audit wraps it.
func withAuditRecorder(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec := auditRecorderOf(w); rec != nil {
			if rq, ok := r.Context().Value(requestKey{}).(*request); ok {
				rq.audit = rec
			}
		}
		next.ServeHTTP(w, r)
	})
}

// auditRecorderOf returns the AuditRecorder among w and the writers it
// wraps, or nil.
func auditRecorderOf(w http.ResponseWriter) AuditRecorder {
	for {
		switch t := w.(type) {
		case AuditRecorder:
			return t
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return nil
		}
	}
}

// noteAuthorization tells w's AuditRecorder the authorizer's decision.
func noteAuthorization(w http.ResponseWriter, d auth.Decision, reason string, err error) {
	rec := auditRecorderOf(w)
	switch {
	case rec == nil:
	case d == auth.DecisionAllow:
		rec.AuditAnnotation(AnnotationDecision, "allow")
		rec.AuditAnnotation(AnnotationReason, reason)
	case err != nil:
		rec.AuditAnnotation(AnnotationReason, "internal error")
	default:
		rec.AuditAnnotation(AnnotationDecision, "forbid")
		rec.AuditAnnotation(AnnotationReason, reason)
	}
}

// noteStatus tells w's AuditRecorder the Status err is answered with.
func noteStatus(w http.ResponseWriter, err error) {
	if rec := auditRecorderOf(w); rec != nil {
		st := status.FromError(err)
		rec.AuditStatus(&st)
	}
}

// noteSuccess tells w's AuditRecorder the Success Status st.
func noteSuccess(w http.ResponseWriter, st *status.Status) {
	if rec := auditRecorderOf(w); rec != nil {
		rec.AuditStatus(st)
	}
}
