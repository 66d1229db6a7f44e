package auth

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AccessReviewer asks the host cluster whether a request is allowed: its
// SubjectAccessReview API (authorization.k8s.io/v1) for an aggregated
// API server. Module github.com/apisem/apisem/auth/kubedelegate
// implements it with client-go.
type AccessReviewer interface {
	// ReviewAccess returns the review's answer, or an error when there is
	// none (the host cluster is unreachable, the call timed out).
	ReviewAccess(ctx context.Context, a Attributes) (AccessReview, error)
}

// AccessReview is the answer of an AccessReviewer: the status of a
// SubjectAccessReview. Neither Allowed nor Denied means no opinion.
type AccessReview struct {
	Allowed bool
	Denied  bool
	Reason  string
}

// Delegating is the authorizer of an aggregated API server: it asks
// Reviewer, and reuses allowed answers for AllowTTL and the others for
// DenyTTL. When there is no answer (an error, a timeout) the decision is
// no opinion with the error, which refuses the request: a failing host
// cluster never lets a request through. Errors are not cached.
//
// Create a Delegating with a composite literal and use it by pointer; it
// must not be copied after first use.
type Delegating struct {
	Reviewer AccessReviewer // required
	// AllowTTL is how long an allowed answer is reused; 0 means
	// DefaultCacheTTL, negative no caching.
	AllowTTL time.Duration
	// DenyTTL is how long any other answer is reused; 0 means
	// DefaultCacheTTL, negative no caching.
	DenyTTL time.Duration
	// Timeout bounds each review. 0 means DefaultReviewTimeout.
	Timeout time.Duration
	// Now is the cache's clock; nil means time.Now.
	Now func() time.Time

	cache ttlCache[AccessReview]
}

// Authorize implements Authorizer.
func (d *Delegating) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	key := cacheKey(a)
	rev, ok := d.cache.get(key, now(d.Now))
	if !ok {
		rctx, cancel := context.WithTimeout(ctx, orDuration(d.Timeout, DefaultReviewTimeout))
		var err error
		rev, err = d.Reviewer.ReviewAccess(rctx, a)
		cancel()
		if err != nil {
			return DecisionNoOpinion, "", err
		}
		ttl := orDuration(d.DenyTTL, DefaultCacheTTL)
		if rev.Allowed {
			ttl = orDuration(d.AllowTTL, DefaultCacheTTL)
		}
		if ttl > 0 {
			t := now(d.Now)
			d.cache.put(key, rev, t, t.Add(ttl))
		}
	}
	switch {
	case rev.Allowed:
		return DecisionAllow, rev.Reason, nil
	case rev.Denied:
		return DecisionDeny, rev.Reason, nil
	}
	return DecisionNoOpinion, rev.Reason, nil
}

// cacheKey is an unambiguous text of everything a review is asked.
func cacheKey(a Attributes) string {
	var b strings.Builder
	q := func(s string) {
		b.WriteString(strconv.Quote(s))
		b.WriteByte(' ')
	}
	q(a.User.Name)
	q(a.User.UID)
	b.WriteString(strconv.Itoa(len(a.User.Groups)))
	b.WriteByte(' ')
	for _, g := range a.User.Groups {
		q(g)
	}
	b.WriteString(strconv.Itoa(len(a.User.Extra)))
	b.WriteByte(' ')
	for _, k := range slices.Sorted(maps.Keys(a.User.Extra)) {
		q(k)
		b.WriteString(strconv.Itoa(len(a.User.Extra[k])))
		b.WriteByte(' ')
		for _, v := range a.User.Extra[k] {
			q(v)
		}
	}
	b.WriteString(strconv.FormatBool(a.ResourceRequest))
	b.WriteByte(' ')
	for _, s := range []string{a.Verb, a.Group, a.Version, a.Resource, a.Subresource, a.Namespace, a.Name, a.Path} {
		q(s)
	}
	return b.String()
}

// AccessReviewerFunc adapts a function to AccessReviewer.
type AccessReviewerFunc func(ctx context.Context, a Attributes) (AccessReview, error)

// ReviewAccess calls f(ctx, a).
func (f AccessReviewerFunc) ReviewAccess(ctx context.Context, a Attributes) (AccessReview, error) {
	return f(ctx, a)
}
