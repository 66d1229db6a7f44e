package auth

import (
	"errors"
	"net/http"
	"slices"
)

// Authenticator establishes who sent a request. It answers one of three
// ways: the user and true; false and no error when the request carries no
// credential of its kind (another authenticator may know it); or an error
// when it carries one that fails (a certificate from an unknown authority,
// a rejected token), which ends in 401 Unauthorized unless another
// authenticator accepts the request.
//
// An authenticator may remove the headers it consumed from r.Header, so
// that no handler sees credentials or identity assertions; it must not
// change anything else.
type Authenticator interface {
	AuthenticateRequest(r *http.Request) (User, bool, error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(r *http.Request) (User, bool, error)

// AuthenticateRequest calls f(r).
func (f AuthenticatorFunc) AuthenticateRequest(r *http.Request) (User, bool, error) { return f(r) }

// Authenticators asks each authenticator in turn; the first that accepts
// the request decides. If none does, the errors of those that failed are
// returned together, so one rejected credential is a 401 even when another
// authenticator merely found nothing.
type Authenticators []Authenticator

// AuthenticateRequest implements Authenticator.
func (as Authenticators) AuthenticateRequest(r *http.Request) (User, bool, error) {
	var errs []error
	for _, a := range as {
		u, ok, err := a.AuthenticateRequest(r)
		if ok {
			return u, true, nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return User{}, false, errors.Join(errs...)
}

// WithAuthenticatedGroup adds the group system:authenticated to every user
// Next accepts (except the anonymous user and users already in
// system:authenticated or system:unauthenticated), as Kubernetes does for
// every authenticator but the anonymous one; RBAC rules for "anyone
// logged in" name that group.
type WithAuthenticatedGroup struct {
	Next Authenticator
}

// AuthenticateRequest implements Authenticator.
func (g WithAuthenticatedGroup) AuthenticateRequest(r *http.Request) (User, bool, error) {
	u, ok, err := g.Next.AuthenticateRequest(r)
	if !ok || err != nil || u.Name == Anonymous || u.InGroup(AllAuthenticated) || u.InGroup(AllUnauthenticated) {
		return u, ok, err
	}
	u.Groups = append(slices.Clip(u.Groups), AllAuthenticated)
	return u, true, nil
}

// WithAnonymous authenticates as system:anonymous (group
// system:unauthenticated) every request that Next leaves unauthenticated
// without an error. A request whose credential fails stays a 401: a
// wrong token is not silently downgraded to anonymous, as in Kubernetes'
// --anonymous-auth.
type WithAnonymous struct {
	Next Authenticator // nil: every request is anonymous
}

// AuthenticateRequest implements Authenticator.
func (a WithAnonymous) AuthenticateRequest(r *http.Request) (User, bool, error) {
	if a.Next != nil {
		u, ok, err := a.Next.AuthenticateRequest(r)
		if ok || err != nil {
			return u, ok, err
		}
	}
	return User{Name: Anonymous, Groups: []string{AllUnauthenticated}}, true, nil
}

// Chain is the authenticator of a Kubernetes API server, composed as
// kube-apiserver and aggregated API servers with delegated authentication
// compose theirs: the front proxy's request headers, then client
// certificates, then bearer tokens; system:authenticated added to whoever
// they accept; anonymous requests allowed only if Anonymous is set. The
// zero Chain authenticates nobody (every request is a 401). Give
// RequestHeader and ClientCert one ConnVerifier to verify a connection's
// certificate once for both.
type Chain struct {
	RequestHeader *RequestHeader // nil: no front proxy is trusted
	ClientCert    *ClientCert    // nil: client certificates are not users
	Token         *BearerToken   // nil: bearer tokens are not accepted
	// Anonymous lets requests without any credential in, as
	// system:anonymous; the authorizer decides what it may do
	// (typically: the health endpoints).
	Anonymous bool
}

// AuthenticateRequest implements Authenticator. The default front-proxy
// headers are removed from every request, even when no RequestHeader is
// configured.
func (c Chain) AuthenticateRequest(r *http.Request) (User, bool, error) {
	defer DefaultHeaderNames().Strip(r.Header)
	var as Authenticators
	// The request headers come first so that they are stripped whatever
	// the other authenticators decide.
	if c.RequestHeader != nil {
		as = append(as, c.RequestHeader)
	}
	if c.ClientCert != nil {
		as = append(as, c.ClientCert)
	}
	if c.Token != nil {
		as = append(as, c.Token)
	}
	var a Authenticator = WithAuthenticatedGroup{Next: as}
	if c.Anonymous {
		a = WithAnonymous{Next: a}
	}
	return a.AuthenticateRequest(r)
}
