package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/status"
)

// TestForbidden checks the 403 bodies against those Kubernetes'
// responsewriters tests and a live kube-apiserver print.
func TestForbidden(t *testing.T) {
	u := auth.User{Name: "NAME"}
	tests := []struct {
		a      auth.Attributes
		reason string
		want   string
	}{
		{auth.Attributes{User: u, Verb: "get", Path: "/whatever"}, "",
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"NAME\" cannot get path \"/whatever\"","reason":"Forbidden","details":{},"code":403}`},
		{auth.Attributes{User: u, Verb: "get", Path: "/<script>"}, "",
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"NAME\" cannot get path \"/\u0026lt;script\u0026gt;\"","reason":"Forbidden","details":{},"code":403}`},
		{auth.Attributes{User: u, Verb: "get", Resource: "pod", ResourceRequest: true}, "",
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pod is forbidden: User \"NAME\" cannot get resource \"pod\" in API group \"\" at the cluster scope","reason":"Forbidden","details":{"kind":"pod"},"code":403}`},
		{auth.Attributes{User: u, Verb: "get", Resource: "pod", ResourceRequest: true, Name: "mypod"}, "",
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pod \"mypod\" is forbidden: User \"NAME\" cannot get resource \"pod\" in API group \"\" at the cluster scope","reason":"Forbidden","details":{"name":"mypod","kind":"pod"},"code":403}`},
		{auth.Attributes{User: u, Verb: "get", Namespace: "test", Group: "v2", Resource: "pod", Subresource: "quota", ResourceRequest: true}, "",
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pod.v2 is forbidden: User \"NAME\" cannot get resource \"pod/quota\" in API group \"v2\" in the namespace \"test\"","reason":"Forbidden","details":{"group":"v2","kind":"pod"},"code":403}`},
		// The example, and a reason from the authorizer.
		{auth.Attributes{User: auth.User{Name: "u"}, Verb: "get", Version: "v1", Resource: "configmaps", Namespace: "ns", Name: "x", ResourceRequest: true}, "",
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"x\" is forbidden: User \"u\" cannot get resource \"configmaps\" in API group \"\" in the namespace \"ns\"","reason":"Forbidden","details":{"name":"x","kind":"configmaps"},"code":403}`},
		{auth.Attributes{User: auth.User{Name: "u"}, Verb: "list", Group: "example.dev", Version: "v1", Resource: "widgets", ResourceRequest: true}, "no RBAC policy matched",
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.example.dev is forbidden: User \"u\" cannot list resource \"widgets\" in API group \"example.dev\" at the cluster scope: no RBAC policy matched","reason":"Forbidden","details":{"group":"example.dev","kind":"widgets"},"code":403}`},
	}
	for _, tt := range tests {
		err := auth.Forbidden(tt.a, tt.reason)
		b, jerr := json.Marshal(status.FromError(err))
		if jerr != nil {
			t.Fatal(jerr)
		}
		if string(b) != tt.want {
			t.Errorf("Forbidden(%+v, %q)\n got %s\nwant %s", tt.a, tt.reason, b, tt.want)
		}
		if !status.IsForbidden(err) {
			t.Errorf("Forbidden(%+v) is not a Forbidden", tt.a)
		}
	}
}

func TestUnauthorized(t *testing.T) {
	b, err := json.Marshal(status.FromError(auth.Unauthorized()))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`
	if string(b) != want {
		t.Errorf("Unauthorized() = %s; want %s", b, want)
	}
}

func TestAuthorizers(t *testing.T) {
	masters := auth.User{Name: "admin", Groups: []string{"system:masters"}}
	anon := auth.User{Name: auth.Anonymous, Groups: []string{auth.AllUnauthenticated}}
	boom := errors.New("boom")
	failing := auth.AuthorizerFunc(func(context.Context, auth.Attributes) (auth.Decision, string, error) {
		return auth.DecisionNoOpinion, "", boom
	})
	denying := auth.AuthorizerFunc(func(context.Context, auth.Attributes) (auth.Decision, string, error) {
		return auth.DecisionDeny, "denied by policy", nil
	})
	paths := auth.AllowPaths{"/healthz", "/readyz", "/livez", "/openapi/*"}
	tests := []struct {
		name    string
		z       auth.Authorizer
		a       auth.Attributes
		want    auth.Decision
		reason  string
		wantErr error
	}{
		{"health path", paths, auth.Attributes{User: anon, Verb: "get", Path: "/healthz"}, auth.DecisionAllow, "", nil},
		{"prefix path", paths, auth.Attributes{User: anon, Verb: "get", Path: "/openapi/v3/apis/example.dev/v1"}, auth.DecisionAllow, "", nil},
		{"prefix itself without the slash", paths, auth.Attributes{User: anon, Verb: "get", Path: "/openapi"}, auth.DecisionNoOpinion, "", nil},
		{"not an exact match", paths, auth.Attributes{User: anon, Verb: "get", Path: "/healthz/ping"}, auth.DecisionNoOpinion, "", nil},
		{"resource requests are not paths", paths, auth.Attributes{User: anon, Verb: "get", ResourceRequest: true, Resource: "healthz", Path: "/healthz"}, auth.DecisionNoOpinion, "", nil},
		{"masters", auth.AllowGroups{"system:masters"}, auth.Attributes{User: masters, Verb: "delete", ResourceRequest: true}, auth.DecisionAllow, "", nil},
		{"not masters", auth.AllowGroups{"system:masters"}, auth.Attributes{User: anon, Verb: "delete", ResourceRequest: true}, auth.DecisionNoOpinion, "", nil},
		{"union: first decision wins", auth.Authorizers{auth.AllowGroups{"system:masters"}, denying}, auth.Attributes{User: masters}, auth.DecisionAllow, "", nil},
		{"union: deny stops", auth.Authorizers{denying, auth.AlwaysAllow{}}, auth.Attributes{User: masters}, auth.DecisionDeny, "denied by policy", nil},
		{"union: an error is no permission", auth.Authorizers{failing, auth.AllowGroups{"x"}}, auth.Attributes{User: masters}, auth.DecisionNoOpinion, "", boom},
		{"union: an error does not stop an allow", auth.Authorizers{failing, auth.AlwaysAllow{}}, auth.Attributes{User: masters}, auth.DecisionAllow, "", nil},
		{"empty union", auth.Authorizers{}, auth.Attributes{User: masters}, auth.DecisionNoOpinion, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := tt.z.Authorize(context.Background(), tt.a)
			if d != tt.want || reason != tt.reason || !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Errorf("Authorize = %v, %q, %v; want %v, %q, %v", d, reason, err, tt.want, tt.reason, tt.wantErr)
			}
		})
	}
}

// reviews is an AccessReviewer with a fixed answer that counts its calls.
type reviews struct {
	mu     sync.Mutex
	answer func(auth.Attributes) (auth.AccessReview, error)
	calls  int
}

func (f *reviews) ReviewAccess(ctx context.Context, a auth.Attributes) (auth.AccessReview, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	return f.answer(a)
}

func (f *reviews) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// clock is a settable time.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestDelegatingCache(t *testing.T) {
	rev := &reviews{answer: func(a auth.Attributes) (auth.AccessReview, error) {
		switch a.User.Name {
		case "alice":
			return auth.AccessReview{Allowed: true, Reason: "RBAC: allowed by ClusterRoleBinding"}, nil
		case "mallory":
			return auth.AccessReview{Denied: true, Reason: "denied by policy"}, nil
		case "error":
			return auth.AccessReview{}, errors.New("connection refused")
		}
		return auth.AccessReview{}, nil
	}}
	c := &clock{t: time.Unix(1e9, 0)}
	z := &auth.Delegating{Reviewer: rev, AllowTTL: 10 * time.Second, DenyTTL: 5 * time.Second, Now: c.now}
	ask := func(name string) (auth.Decision, error) {
		d, _, err := z.Authorize(context.Background(), auth.Attributes{User: auth.User{Name: name}, Verb: "get", ResourceRequest: true, Resource: "widgets"})
		return d, err
	}
	steps := []struct {
		advance   time.Duration
		user      string
		want      auth.Decision
		wantErr   bool
		wantCalls int // reviews so far
	}{
		{0, "alice", auth.DecisionAllow, false, 1},
		{9 * time.Second, "alice", auth.DecisionAllow, false, 1},   // cached
		{time.Second, "alice", auth.DecisionAllow, false, 2},       // expired at 10s
		{0, "bob", auth.DecisionNoOpinion, false, 3},               // no opinion: forbidden
		{4 * time.Second, "bob", auth.DecisionNoOpinion, false, 3}, // cached for DenyTTL
		{0, "mallory", auth.DecisionDeny, false, 4},
		{0, "mallory", auth.DecisionDeny, false, 4},
		{0, "error", auth.DecisionNoOpinion, true, 5},
		{0, "error", auth.DecisionNoOpinion, true, 6}, // errors are not cached
		{time.Second, "bob", auth.DecisionNoOpinion, false, 7},
	}
	for i, s := range steps {
		c.t = c.t.Add(s.advance)
		d, err := ask(s.user)
		if d != s.want || (err != nil) != s.wantErr || rev.count() != s.wantCalls {
			t.Errorf("step %d (%s): Authorize = %v, %v after %d reviews; want %v, error %v after %d",
				i, s.user, d, err, rev.count(), s.want, s.wantErr, s.wantCalls)
		}
	}
}

func TestDelegatingCacheKey(t *testing.T) {
	rev := &reviews{answer: func(a auth.Attributes) (auth.AccessReview, error) {
		return auth.AccessReview{Allowed: a.Namespace == "mine"}, nil
	}}
	z := &auth.Delegating{Reviewer: rev}
	base := auth.Attributes{User: auth.User{Name: "u", Groups: []string{"g"}}, Verb: "get", ResourceRequest: true, Resource: "widgets", Namespace: "mine"}
	variants := []func(*auth.Attributes){
		func(a *auth.Attributes) { a.Namespace = "other" },
		func(a *auth.Attributes) { a.Verb = "delete" },
		func(a *auth.Attributes) { a.User.Groups = []string{"g", "h"} },
		func(a *auth.Attributes) { a.User.Extra = map[string][]string{"k": {"v"}} },
		func(a *auth.Attributes) { a.Subresource = "status" },
		func(a *auth.Attributes) { a.Name = "x" },
		func(a *auth.Attributes) { a.Group = "example.dev" },
		func(a *auth.Attributes) { a.User.Name = "u\" \"g" }, // quoting keeps fields apart
	}
	if d, _, _ := z.Authorize(context.Background(), base); d != auth.DecisionAllow {
		t.Fatalf("base: %v", d)
	}
	for i, v := range variants {
		a := base
		v(&a)
		z.Authorize(context.Background(), a)
		if rev.count() != i+2 {
			t.Errorf("variant %d answered from the cache of another request", i)
		}
	}
}

// TestDelegatingTimeout: a host cluster that never answers costs a
// request Timeout, then refuses it.
func TestDelegatingTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := auth.AccessReviewerFunc(func(ctx context.Context, _ auth.Attributes) (auth.AccessReview, error) {
			<-ctx.Done()
			return auth.AccessReview{}, ctx.Err()
		})
		z := &auth.Delegating{Reviewer: hang, Timeout: 3 * time.Second}
		start := time.Now()
		d, _, err := z.Authorize(context.Background(), auth.Attributes{Verb: "get", Path: "/"})
		if d == auth.DecisionAllow || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Authorize = %v, %v; want no decision and DeadlineExceeded", d, err)
		}
		if took := time.Since(start); took != 3*time.Second {
			t.Errorf("took %v; want the 3s timeout", took)
		}
	})
}

func TestBearerToken(t *testing.T) {
	rev := &tokens{users: map[string]auth.User{"good": {Name: "dave"}}}
	c := &clock{t: time.Unix(1e9, 0)}
	b := &auth.BearerToken{Reviewer: rev, Now: c.now}
	steps := []struct {
		advance   time.Duration
		header    string
		ok        bool
		wantErr   func(error) bool
		wantCalls int
	}{
		{0, "", false, noErr, 0},
		{0, "Basic Zm9vOmJhcg==", false, noErr, 0},
		{0, "Bearer", false, noErr, 0},
		{0, "Bearer ", false, noErr, 0},
		{0, "Bearer good", true, noErr, 1},
		{0, "bearer good", true, noErr, 1}, // cached; the scheme is case-insensitive
		{0, "  BEARER good extra", true, noErr, 1},
		{0, "Bearer bad", false, isText("token not found"), 2},
		{9 * time.Second, "Bearer bad", false, isText("token not found"), 2}, // rejections are cached too
		{time.Second, "Bearer good", true, noErr, 3},                         // expired at the default 10s
	}
	for i, s := range steps {
		c.t = c.t.Add(s.advance)
		r := httptest.NewRequest("GET", "/", nil)
		if s.header != "" {
			r.Header.Set("Authorization", s.header)
		}
		u, ok, err := b.AuthenticateRequest(r)
		if ok != s.ok || !s.wantErr(err) || rev.calls != s.wantCalls {
			t.Errorf("step %d (%q): AuthenticateRequest = %v, %v, %v after %d reviews; want %v after %d", i, s.header, u, ok, err, rev.calls, s.ok, s.wantCalls)
		}
		if ok && r.Header.Get("Authorization") != "" {
			t.Errorf("step %d: the accepted token is still in the request", i)
		}
	}

	// A reviewer that fails is not cached, and the failure is an error.
	rev.err = errors.New("connection refused")
	c.t = c.t.Add(time.Hour)
	for range 2 {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Authorization", "Bearer good")
		if _, ok, err := b.AuthenticateRequest(r); ok || err == nil {
			t.Errorf("with a failing reviewer: %v, %v", ok, err)
		}
	}
	if rev.calls != 5 {
		t.Errorf("%d reviews; want 5 (failures are not cached)", rev.calls)
	}
}

func TestBearerTokenTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := auth.TokenReviewerFunc(func(ctx context.Context, _ string) (auth.TokenReview, error) {
			<-ctx.Done()
			return auth.TokenReview{}, ctx.Err()
		})
		b := &auth.BearerToken{Reviewer: hang}
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Authorization", "Bearer t")
		start := time.Now()
		if _, ok, err := b.AuthenticateRequest(r); ok || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("AuthenticateRequest = %v, %v; want DeadlineExceeded", ok, err)
		}
		if took := time.Since(start); took != auth.DefaultReviewTimeout {
			t.Errorf("took %v; want %v", took, auth.DefaultReviewTimeout)
		}
	})
}
