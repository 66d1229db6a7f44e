package server

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/store/selector"
)

// Authentication and authorization run in Kubernetes' filter order
// (k8s.io/apiserver/pkg/server/config.go, DefaultBuildHandlerChain):
// the request's deadline first, so that an authenticator (a TokenReview
// of the host cluster) cannot hold an unauthenticated request past it;
// then authentication; then the in-flight limit, so that a flood of
// unauthenticated requests cannot take the slots of real users; then
// authorization, inside the limit, so that the host cluster's
// SubjectAccessReviews are bounded by it too; then the handler (see
// serveEdge). A request no authenticator accepts is a 401 Unauthorized;
// one the authorizer does not allow is a 403 Forbidden, or a 500 when the
// authorizer failed (a failure never allows). The user goes into the
// request's context (auth.UserFrom).

// authenticate establishes r's user. It returns the request to serve,
// carrying the user, or nil when it has answered the request itself.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) *http.Request {
	authn := s.opts.Authenticator
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
		s.writeError(w, r, nil, auth.Unauthorized())
		return nil
	}
	noteUser(w, u.Name)
	return r.WithContext(auth.WithUser(r.Context(), u))
}

// authorize reports whether r's user may do what r asks; when not, it has
// answered r itself.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	authz := s.opts.Authorizer
	if authz == nil {
		return true
	}
	a := requestAttributes(r)
	a.User, _ = auth.UserFrom(r.Context())
	d, reason, err := authz.Authorize(r.Context(), a)
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

// requestAttributes describes r for an authorizer with Kubernetes' rules
// (k8s.io/apiserver/pkg/endpoints/request, RequestInfoFactory), which the
// host cluster's RBAC rules are written against. They are read from the
// URL alone, before routing, so a request for a resource the server does
// not serve is refused (403) before it can learn that (404). Where the
// router finds a target, the attributes name the same verb, resource,
// subresource and name; the namespace differs only for Namespace objects
// themselves, which Kubernetes authorizes as in their own namespace.
func requestAttributes(r *http.Request) auth.Attributes {
	a := auth.Attributes{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 3 || parts[0] != "api" && parts[0] != "apis" {
		return a
	}
	if parts[0] == "apis" {
		if len(parts) < 4 {
			return a // /apis/<group>/<version>: discovery
		}
		a.Group, parts = parts[1], parts[1:]
	}
	a.ResourceRequest = true
	a.Version, parts = parts[1], parts[2:]

	if parts[0] == "watch" && len(parts) > 1 {
		a.Verb, parts = string(verbWatch), parts[1:]
	} else {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			a.Verb = string(verbGet)
		case http.MethodPost:
			a.Verb = string(verbCreate)
		case http.MethodPut:
			a.Verb = string(verbUpdate)
		case http.MethodPatch:
			a.Verb = string(verbPatch)
		case http.MethodDelete:
			a.Verb = string(verbDelete)
		default:
			a.Verb = ""
		}
	}
	if parts[0] == "namespaces" && len(parts) > 1 {
		a.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			parts = parts[2:]
		}
	}
	a.Resource = parts[0]
	if len(parts) > 1 {
		a.Name = parts[1]
	}
	if len(parts) > 2 {
		a.Subresource = parts[2]
	}

	if a.Name == "" && a.Verb == string(verbGet) {
		a.Verb = string(verbList)
		opts, err := rv.ParseQuery(r.URL.RawQuery)
		if err != nil {
			opts = rv.ListOptions{} // the handler refuses the query itself
		}
		if opts.Watch {
			a.Verb = string(verbWatch)
		}
		// A list or watch of one name (kubectl get --watch <name>, an
		// informer of one object) is authorized as that name.
		if f, err := selector.ParseFields(opts.FieldSelector); err == nil {
			if name, ok := f.RequiresExactMatch("metadata.name"); ok && validPathSegment(name) {
				a.Name = name
			}
		}
	}
	if a.Name == "" && a.Verb == string(verbDelete) {
		a.Verb = string(verbDeleteCollection)
	}
	return a
}

// validPathSegment reports whether name could be a name in a URL path.
func validPathSegment(name string) bool {
	return name != "." && name != ".." && !strings.ContainsAny(name, "/%")
}
