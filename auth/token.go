package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"strings"
	"time"
)

// TokenReviewer asks whoever issued a bearer token who it belongs to: the
// host cluster's TokenReview API (authentication.k8s.io/v1) for an
// aggregated API server. Module github.com/apisem/apisem/auth/kubedelegate
// implements it with client-go.
type TokenReviewer interface {
	// ReviewToken returns the review's answer, or an error when there is
	// none (the host cluster is unreachable, the call timed out).
	ReviewToken(ctx context.Context, token string) (TokenReview, error)
}

// TokenReview is the answer of a TokenReviewer: the status of a
// TokenReview.
type TokenReview struct {
	Authenticated bool
	User          User
	// Error is why the token was not accepted, if the reviewer says.
	Error string
}

// Defaults of BearerToken and Delegating, those of Kubernetes' delegated
// authentication and authorization (k8s.io/apiserver/pkg/server/options,
// --authentication-token-webhook-cache-ttl,
// --authorization-webhook-cache-authorized-ttl and
// --authorization-webhook-cache-unauthorized-ttl).
const (
	DefaultCacheTTL      = 10 * time.Second
	DefaultReviewTimeout = 10 * time.Second
)

// errInvalidToken is Kubernetes' error for a bearer token nobody accepts.
var errInvalidToken = errors.New("invalid bearer token")

// BearerToken authenticates requests by the bearer token of their
// Authorization header ("Bearer <token>"), asking Reviewer and caching
// its answers, accepted or not, for CacheTTL; failures to get an answer
// are not cached. A request with no bearer token is no answer; a token
// the reviewer rejects is an error (so a 401). An accepted token's
// Authorization header is removed from the request.
//
// Tokens are kept in the cache only as SHA-256 digests. Create a
// BearerToken with a composite literal and use it by pointer; it must not
// be copied after first use.
type BearerToken struct {
	Reviewer TokenReviewer // required
	// CacheTTL is how long an answer is reused. 0 means
	// DefaultCacheTTL; negative means no caching.
	CacheTTL time.Duration
	// Timeout bounds each review. 0 means DefaultReviewTimeout.
	Timeout time.Duration
	// Now is the cache's clock; nil means time.Now.
	Now func() time.Time

	cache ttlCache[TokenReview]
}

// BearerTokenOf returns the token of an Authorization header of the form
// "Bearer <token>" (the scheme case-insensitive, as Kubernetes reads it),
// and false if there is none.
func BearerTokenOf(authorization string) (string, bool) {
	parts := strings.SplitN(strings.TrimSpace(authorization), " ", 3)
	if len(parts) < 2 || !strings.EqualFold(parts[0], "bearer") || parts[1] == "" {
		return "", false
	}
	return parts[1], true
}

// AuthenticateRequest implements Authenticator.
func (b *BearerToken) AuthenticateRequest(r *http.Request) (User, bool, error) {
	token, ok := BearerTokenOf(r.Header.Get("Authorization"))
	if !ok {
		return User{}, false, nil
	}
	rev, err := b.review(r.Context(), token)
	if err != nil {
		return User{}, false, err
	}
	if !rev.Authenticated {
		if rev.Error != "" {
			return User{}, false, errors.New(rev.Error)
		}
		return User{}, false, errInvalidToken
	}
	r.Header.Del("Authorization")
	return rev.User, true, nil
}

func (b *BearerToken) review(ctx context.Context, token string) (TokenReview, error) {
	sum := sha256.Sum256([]byte(token))
	key := string(sum[:])
	if b.CacheTTL >= 0 {
		if rev, ok := b.cache.get(key, now(b.Now)); ok {
			return rev, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, orDuration(b.Timeout, DefaultReviewTimeout))
	defer cancel()
	rev, err := b.Reviewer.ReviewToken(ctx, token)
	if err != nil {
		return TokenReview{}, err
	}
	if b.CacheTTL >= 0 {
		t := now(b.Now)
		b.cache.put(key, rev, t, t.Add(orDuration(b.CacheTTL, DefaultCacheTTL)))
	}
	return rev, nil
}

func orDuration(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// TokenReviewerFunc adapts a function to TokenReviewer.
type TokenReviewerFunc func(ctx context.Context, token string) (TokenReview, error)

// ReviewToken calls f(ctx, token).
func (f TokenReviewerFunc) ReviewToken(ctx context.Context, token string) (TokenReview, error) {
	return f(ctx, token)
}
