package auth

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// Attributes describe what a request asks to do, as Kubernetes'
// authorizers and a SubjectAccessReview see it.
type Attributes struct {
	User User
	// Verb is get, list, watch, create, update, patch, delete or
	// deletecollection for a resource request; the lower-case HTTP
	// method (get, post, put, ...) for any other.
	Verb string

	// ResourceRequest is true for requests under /api/<version>/ and
	// /apis/<group>/<version>/ that address resources; the fields below
	// describe them. Discovery, /version, /openapi and the health
	// endpoints are non-resource requests, described by Path.
	ResourceRequest bool
	Group           string // "" for the core group
	Version         string
	Resource        string // plural, lower-case
	Subresource     string
	// Namespace is the namespace in the path. As in Kubernetes, a request
	// for a Namespace object itself (/api/v1/namespaces/<name>) has the
	// namespace <name>.
	Namespace string
	// Name is the object's name; "" for a collection, unless a list or
	// watch selects one name with the field selector metadata.name.
	Name string

	// Path is the URL path of the request.
	Path string
}

// Decision is an authorizer's answer.
type Decision int

const (
	// DecisionNoOpinion leaves the decision to the next authorizer; if
	// none decides, the request is forbidden. The zero value, so that an
	// authorizer that forgets to decide does not allow.
	DecisionNoOpinion Decision = iota
	// DecisionAllow lets the request through.
	DecisionAllow
	// DecisionDeny forbids the request; no later authorizer is asked.
	DecisionDeny
)

func (d Decision) String() string {
	switch d {
	case DecisionAllow:
		return "allow"
	case DecisionDeny:
		return "deny"
	}
	return "no opinion"
}

// Authorizer decides whether a request may do what its attributes say.
// reason, if any, is told to a forbidden client. An error means no
// decision could be made; the request is then refused (with a 500
// Internal Server Error, as Kubernetes refuses it) unless the decision is
// DecisionAllow anyway.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (d Decision, reason string, err error)
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, a Attributes) (Decision, string, error)

// Authorize calls f(ctx, a).
func (f AuthorizerFunc) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	return f(ctx, a)
}

// AlwaysAllow allows every request. It is for tests and for servers
// whose only clients are trusted.
type AlwaysAllow struct{}

// Authorize implements Authorizer.
func (AlwaysAllow) Authorize(context.Context, Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}

// Authorizers asks each authorizer in turn; the first that allows or
// denies decides. If none does, the answer is no opinion, with the
// reasons and errors of all (Kubernetes' union authorizer).
type Authorizers []Authorizer

// Authorize implements Authorizer.
func (as Authorizers) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	var reasons []string
	var errs []error
	for _, z := range as {
		d, reason, err := z.Authorize(ctx, a)
		if d != DecisionNoOpinion {
			return d, reason, err
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return DecisionNoOpinion, strings.Join(reasons, "\n"), errors.Join(errs...)
}

// DefaultAlwaysAllowPaths are the paths kube-apiserver's
// --authorization-always-allow-paths allows by default: the health
// endpoints, which probes reach without credentials.
var DefaultAlwaysAllowPaths = []string{"/healthz", "/readyz", "/livez"}

// AllowPaths allows non-resource requests for the paths it lists,
// whoever sends them, as --authorization-always-allow-paths: an entry
// matches its path exactly, or, ending in "*", every path with the prefix
// before the star ("/openapi/*"). Resource requests get no opinion.
type AllowPaths []string

// Authorize implements Authorizer.
func (p AllowPaths) Authorize(_ context.Context, a Attributes) (Decision, string, error) {
	if a.ResourceRequest {
		return DecisionNoOpinion, "", nil
	}
	for _, s := range p {
		if prefix, ok := strings.CutSuffix(s, "*"); ok && strings.HasPrefix(a.Path, prefix) || s == a.Path {
			return DecisionAllow, "", nil
		}
	}
	return DecisionNoOpinion, "", nil
}

// AllowGroups allows every request of a member of one of its groups, as
// --authorization-always-allow-groups (system:masters by default in
// Kubernetes' delegated authorization, so that the aggregator's own
// requests need no review).
type AllowGroups []string

// Authorize implements Authorizer.
func (g AllowGroups) Authorize(_ context.Context, a Attributes) (Decision, string, error) {
	if slices.ContainsFunc(g, a.User.InGroup) {
		return DecisionAllow, "", nil
	}
	return DecisionNoOpinion, "", nil
}
