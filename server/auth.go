package server

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/apisem/apisem/auth"
)

// Authentication and authorization run in Kubernetes' filter order
// (k8s.io/apiserver/pkg/server/config.go, DefaultBuildHandlerChain):
// the request's deadline first, so that an authenticator (a TokenReview
// of the host cluster) cannot hold an unauthenticated request past it;
// then authentication; then the in-flight limit, so that a flood of
// unauthenticated requests cannot take the slots of real users; then
// authorization, inside the limit, so that the host cluster's
// SubjectAccessReviews are bounded by it too; then the handler. A request no authenticator accepts is a 401 Unauthorized;
// one the authorizer does not allow is a 403 Forbidden, or a 500 when the
// authorizer failed (a failure never allows). The user goes into the
// request's context (auth.UserFrom). The chain is built in
// server/filters.go.

// withAuthentication is the authentication filter.
func (s *Server) withAuthentication(next http.Handler) http.Handler {
	if s.opts.Security.Authenticator == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r = s.authenticate(w, r); r != nil {
			next.ServeHTTP(w, r)
		}
	})
}

// withAuthorization is the authorization filter.
func (s *Server) withAuthorization(next http.Handler) http.Handler {
	if s.opts.Security.Authorizer == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.authorize(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}

// authenticate establishes r's user. It returns the request to serve,
// carrying the user, or nil when it has answered the request itself.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) *http.Request {
	authn := s.opts.Security.Authenticator
	if authn == nil {
		return r
	}
	u, ok, err := authn.AuthenticateRequest(r)
	// Whatever the authenticator is, no handler sees a front proxy's
	// identity headers.
	auth.DefaultHeaderNames().Strip(r.Header)
	if !ok {
		if err != nil {
			s.log.Debug("unauthenticated", "uri", r.URL.RequestURI(), "err", err)
		}
		s.unauthorized(w, r)
		return nil
	}
	noteUser(w, u.Name)
	return r.WithContext(auth.WithUser(r.Context(), u))
}

// authorize reports whether r's user may do what r asks; when not, it has
// answered r itself.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	authz := s.opts.Security.Authorizer
	if authz == nil {
		return true
	}
	// The attributes come from the URL alone (RequestInfo), so a request
	// for a resource the server does not serve is refused (403) before it
	// can learn that (404).
	a := requestOf(r).attributes()
	a.User, _ = auth.UserFrom(r.Context())
	d, reason, err := authz.Authorize(r.Context(), a)
	noteAuthorization(w, d, reason, err)
	switch {
	case d == auth.DecisionAllow:
		return true
	case err != nil:
		s.authorizerError(w, r, err)
	default:
		s.writeError(w, r, nil, auth.Forbidden(a, reason))
	}
	return false
}

// htmlSanitizer keeps error text from looking like HTML, as Kubernetes'
// response writers do.
var htmlSanitizer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// authorizerError answers a request the authorizer could not decide, as
// Kubernetes does: a plain-text 500 naming the request.
func (s *Server) authorizerError(w http.ResponseWriter, r *http.Request, err error) {
	s.log.Error("authorization failed", "method", r.Method, "uri", r.URL.RequestURI(), "err", err)
	uri := r.RequestURI
	if uri == "" {
		uri = r.URL.RequestURI()
	}
	http.Error(w, htmlSanitizer.Replace(fmt.Sprintf("Internal Server Error: %q: %v", uri, err)), http.StatusInternalServerError)
}
