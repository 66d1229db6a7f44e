package kubedelegate_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/auth/certs"
	"github.com/apisem/apisem/auth/kubedelegate"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// TestSubjectAccessReviewSpec: what the host cluster is asked.
func TestSubjectAccessReviewSpec(t *testing.T) {
	h := newHost(t)
	h.access = func(authorizationv1.SubjectAccessReviewSpec) (authorizationv1.SubjectAccessReviewStatus, int) {
		return authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "RBAC: allowed"}, 201
	}
	r := kubedelegate.AccessReviewer{Client: h.authorization(t)}
	u := auth.User{Name: "bob", UID: "b-1", Groups: []string{"dev", "system:authenticated"}, Extra: map[string][]string{"scopes": {"view"}}}
	attrs := []auth.Attributes{
		{User: u, Verb: "list", ResourceRequest: true, Group: "example.dev", Version: "v1", Resource: "widgets", Subresource: "status",
			Namespace: "ns", Name: "w", Path: "/apis/example.dev/v1/namespaces/ns/widgets/w/status"},
		{User: u, Verb: "get", Path: "/version"},
	}
	for _, a := range attrs {
		got, err := r.ReviewAccess(context.Background(), a)
		if err != nil || got != (auth.AccessReview{Allowed: true, Reason: "RBAC: allowed"}) {
			t.Errorf("ReviewAccess = %+v, %v", got, err)
		}
	}
	user := authorizationv1.SubjectAccessReviewSpec{User: "bob", UID: "b-1", Groups: []string{"dev", "system:authenticated"},
		Extra: map[string]authorizationv1.ExtraValue{"scopes": {"view"}}}
	res, nonRes := user, user
	res.ResourceAttributes = &authorizationv1.ResourceAttributes{Namespace: "ns", Verb: "list", Group: "example.dev", Version: "v1",
		Resource: "widgets", Subresource: "status", Name: "w"}
	nonRes.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: "/version", Verb: "get"}
	if diff := cmp.Diff([]authorizationv1.SubjectAccessReviewSpec{res, nonRes}, h.specs); diff != "" {
		t.Errorf("reviews the host cluster got (-want +got):\n%s", diff)
	}
}

// TestDelegatedAuthorization: answers of the host cluster are cached
// briefly; its failures refuse the request and are asked again.
func TestDelegatedAuthorization(t *testing.T) {
	h := newHost(t)
	h.access = func(s authorizationv1.SubjectAccessReviewSpec) (authorizationv1.SubjectAccessReviewStatus, int) {
		switch s.User {
		case "alice":
			return authorizationv1.SubjectAccessReviewStatus{Allowed: true}, 201
		case "mallory":
			return authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "blocked"}, 201
		case "broken":
			return authorizationv1.SubjectAccessReviewStatus{}, 500
		}
		return authorizationv1.SubjectAccessReviewStatus{}, 201 // no opinion
	}
	c := &clock{t: time.Unix(1e9, 0)}
	z := &auth.Delegating{Reviewer: kubedelegate.AccessReviewer{Client: h.authorization(t)}, Now: c.now}
	const sar = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	steps := []struct {
		advance time.Duration
		user    string
		want    auth.Decision
		reason  string
		err     bool
		calls   int
	}{
		{0, "alice", auth.DecisionAllow, "", false, 1},
		{5 * time.Second, "alice", auth.DecisionAllow, "", false, 1},
		{0, "mallory", auth.DecisionDeny, "blocked", false, 2},
		{0, "mallory", auth.DecisionDeny, "blocked", false, 2},
		{0, "carol", auth.DecisionNoOpinion, "", false, 3},
		{0, "carol", auth.DecisionNoOpinion, "", false, 3},
		{0, "broken", auth.DecisionNoOpinion, "", true, 4},
		{0, "broken", auth.DecisionNoOpinion, "", true, 5},
		{5 * time.Second, "alice", auth.DecisionAllow, "", false, 6}, // 10s after the first review
		{0, "mallory", auth.DecisionDeny, "blocked", false, 6},       // 5s after its review
		{5 * time.Second, "mallory", auth.DecisionDeny, "blocked", false, 7},
	}
	for i, s := range steps {
		c.t = c.t.Add(s.advance)
		d, reason, err := z.Authorize(context.Background(), auth.Attributes{User: auth.User{Name: s.user}, Verb: "get", Path: "/"})
		if d != s.want || reason != s.reason || (err != nil) != s.err || h.count(sar) != s.calls {
			t.Errorf("step %d (%s): %v, %q, %v after %d reviews; want %v, %q, error %v after %d",
				i, s.user, d, reason, err, h.count(sar), s.want, s.reason, s.err, s.calls)
		}
		if s.err && !apierrors.IsInternalError(err) {
			t.Errorf("step %d: error %v; want the host's 500", i, err)
		}
	}
}

// TestDelegationTimeout: a host cluster that does not answer costs a
// request the Timeout, then refuses it, and the call to the host ends.
func TestDelegationTimeout(t *testing.T) {
	h := newHost(t)
	h.hang = true
	z := &auth.Delegating{Reviewer: kubedelegate.AccessReviewer{Client: h.authorization(t)}, Timeout: 50 * time.Millisecond}
	d, _, err := z.Authorize(context.Background(), auth.Attributes{User: auth.User{Name: "alice"}, Verb: "get", Path: "/"})
	if d == auth.DecisionAllow || err == nil {
		t.Errorf("Authorize = %v, %v; want a refusal with an error", d, err)
	}
	b := &auth.BearerToken{Reviewer: kubedelegate.TokenReviewer{Client: h.authentication(t)}, Timeout: 50 * time.Millisecond}
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Authorization", "Bearer t")
	if _, ok, err := b.AuthenticateRequest(r); ok || err == nil {
		t.Errorf("AuthenticateRequest = %v, %v; want an error", ok, err)
	}
	<-h.gaveUp // the host saw the request end: nothing left waiting
}

func TestDelegatedAuthentication(t *testing.T) {
	h := newHost(t)
	h.tokens = func(s authenticationv1.TokenReviewSpec) (authenticationv1.TokenReviewStatus, int) {
		switch s.Token {
		case "good":
			return authenticationv1.TokenReviewStatus{Authenticated: true, Audiences: []string{"https://kubernetes.default.svc"},
				User: authenticationv1.UserInfo{Username: "system:serviceaccount:ns:sa", UID: "u-1",
					Groups: []string{"system:serviceaccounts", "system:authenticated"}, Extra: map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/credential-id": {"JTI=1"}}}}, 201
		case "broken":
			return authenticationv1.TokenReviewStatus{}, 500
		}
		return authenticationv1.TokenReviewStatus{Error: "[invalid bearer token, service account token has expired]"}, 201
	}
	c := &clock{t: time.Unix(1e9, 0)}
	b := &auth.BearerToken{Reviewer: kubedelegate.TokenReviewer{Client: h.authentication(t)}, Now: c.now}
	const tr = "/apis/authentication.k8s.io/v1/tokenreviews"
	sa := auth.User{Name: "system:serviceaccount:ns:sa", UID: "u-1", Groups: []string{"system:serviceaccounts", "system:authenticated"},
		Extra: map[string][]string{"authentication.kubernetes.io/credential-id": {"JTI=1"}}}
	steps := []struct {
		token string
		user  auth.User
		ok    bool
		err   string
		calls int
	}{
		{"good", sa, true, "", 1},
		{"good", sa, true, "", 1},
		{"expired", auth.User{}, false, "[invalid bearer token, service account token has expired]", 2},
		{"expired", auth.User{}, false, "[invalid bearer token, service account token has expired]", 2},
		{"broken", auth.User{}, false, "etcdserver: request timed out", 3},
		{"broken", auth.User{}, false, "etcdserver: request timed out", 4},
	}
	for i, s := range steps {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Authorization", "Bearer "+s.token)
		u, ok, err := b.AuthenticateRequest(r)
		errText := ""
		if err != nil {
			errText = err.Error()
		}
		if ok != s.ok || errText != s.err || h.count(tr) != s.calls {
			t.Errorf("step %d (%s): %v, %v after %d reviews; want %v, %q after %d", i, s.token, ok, err, h.count(tr), s.ok, s.err, s.calls)
		}
		if diff := cmp.Diff(s.user, u); diff != "" {
			t.Errorf("step %d: user (-want +got):\n%s", i, diff)
		}
	}

	// A token for another audience is not accepted.
	aud := kubedelegate.TokenReviewer{Client: h.authentication(t), Audiences: []string{"https://apisem.example"}}
	if rev, err := aud.ReviewToken(context.Background(), "good"); err != nil || rev.Authenticated {
		t.Errorf("token of another audience: %+v, %v", rev, err)
	}
}

func TestLoadAuthentication(t *testing.T) {
	proxyCA, err := certs.NewCA("front-proxy-ca")
	if err != nil {
		t.Fatal(err)
	}
	clientCA, err := certs.NewCA("kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t)
	// What kubeadm's cluster publishes.
	h.config = map[string]string{
		"client-ca-file":                     string(clientCA.CertPEM()),
		"requestheader-client-ca-file":       string(proxyCA.CertPEM()),
		"requestheader-allowed-names":        `["front-proxy-client"]`,
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
		"requestheader-uid-headers":          `[]`,
	}
	a, err := kubedelegate.LoadAuthentication(context.Background(), h.core(t))
	if err != nil {
		t.Fatal(err)
	}
	if a.ClientCA == nil || a.RequestHeader == nil {
		t.Fatalf("LoadAuthentication = %+v", a)
	}
	if !a.ClientCA.Equal(clientCA.Pool()) || !a.RequestHeader.CA.Equal(proxyCA.Pool()) {
		t.Error("the CAs are not the published ones")
	}
	// A RequestHeader holds its verification cache: compare it in place.
	got := a.RequestHeader
	got.CA = nil
	want := &auth.RequestHeader{AllowedNames: []string{"front-proxy-client"}, UsernameHeaders: []string{"X-Remote-User"},
		GroupHeaders: []string{"X-Remote-Group"}, ExtraHeaderPrefixes: []string{"X-Remote-Extra-"}}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(auth.RequestHeader{})); diff != "" {
		t.Errorf("RequestHeader (-want +got):\n%s", diff)
	}
}
