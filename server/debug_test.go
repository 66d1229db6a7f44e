package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// headerUsers authenticates "X-Test-User: admin" as a member of
// system:masters and everyone else as anonymous: a stand-in for a
// cluster's authenticators.
var headerUsers = auth.AuthenticatorFunc(func(r *http.Request) (auth.User, bool, error) {
	if r.Header.Get("X-Test-User") == "admin" {
		return auth.User{Name: "admin", Groups: []string{auth.SystemPrivilegedGroup, "system:authenticated"}}, true, nil
	}
	return auth.User{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}, true, nil
})

// pathsAsked records the non-resource paths an authorizer was asked
// about, and allows system:masters alone, as a cluster's RBAC grants
// /debug/pprof.
type pathsAsked struct {
	mu    sync.Mutex
	paths []string
}

func (p *pathsAsked) Authorize(ctx context.Context, a auth.Attributes) (auth.Decision, string, error) {
	if !a.ResourceRequest {
		p.mu.Lock()
		p.paths = append(p.paths, a.Verb+" "+a.Path)
		p.mu.Unlock()
	}
	return auth.AllowGroups{auth.SystemPrivilegedGroup}.Authorize(ctx, a)
}

func TestDebugPprof(t *testing.T) {
	authz := &pathsAsked{}
	_, base := servertest.New(t, server.Options{
		Resources: []*server.Resource{gizmos},
		Security:  server.SecurityOptions{Authenticator: headerUsers, Authorizer: authz},
	})
	_, disabled := servertest.New(t, server.Options{
		Resources: []*server.Resource{gizmos},
		Security:  server.SecurityOptions{Authenticator: headerUsers, Authorizer: authz},
		Hooks:     server.HookOptions{DisableProfiling: true},
	})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tt := range []struct {
		name, base, method, path, user string
		code                           int
		want                           string // in the body, or the Location of a redirect
	}{
		{"anonymous is refused", base, "GET", "/debug/pprof/", "", 403, `forbidden: User \"system:anonymous\" cannot get path \"/debug/pprof/\"`},
		{"anonymous is refused a profile", base, "GET", "/debug/pprof/heap", "", 403, `cannot get path \"/debug/pprof/heap\"`},
		{"the index", base, "GET", "/debug/pprof/", "admin", 200, `<a href="goroutine?debug=1">goroutine</a>`},
		{"the bare path redirects", base, "GET", "/debug/pprof", "admin", 302, "/debug/pprof/"},
		{"a profile as text", base, "GET", "/debug/pprof/goroutine?debug=1", "admin", 200, "goroutine profile: total"},
		{"a heap profile", base, "GET", "/debug/pprof/heap?debug=1&gc=1", "admin", 200, "heap profile:"},
		{"no such profile", base, "GET", "/debug/pprof/nope", "admin", 404, "Unknown profile"},
		{"no command line", base, "GET", "/debug/pprof/cmdline", "admin", 404, "Unknown profile"},
		{"a CPU profile past the request timeout", base, "GET", "/debug/pprof/profile?seconds=3600", "admin", 400, "exceeds the request's timeout"},
		{"a bad duration", base, "GET", "/debug/pprof/trace?seconds=x", "admin", 400, `invalid value for "seconds"`},
		{"symbols", base, "GET", "/debug/pprof/symbol", "admin", 200, "num_symbols: 1"},
		{"turned off", disabled, "GET", "/debug/pprof/", "admin", 404, "404 page not found"},
		{"turned off, still behind the authorizer", disabled, "GET", "/debug/pprof/", "", 403, "forbidden"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, tt.base+tt.path, nil)
			if tt.user != "" {
				req.Header.Set("X-Test-User", tt.user)
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			got := string(b)
			if resp.StatusCode == http.StatusFound {
				got = resp.Header.Get("Location")
			}
			if resp.StatusCode != tt.code || !strings.Contains(got, tt.want) {
				t.Errorf("%s %s as %q = %d %.300q; want %d with %q", tt.method, tt.path, tt.user, resp.StatusCode, got, tt.code, tt.want)
			}
		})
	}
	authz.mu.Lock()
	defer authz.mu.Unlock()
	if len(authz.paths) == 0 || authz.paths[0] != "get /debug/pprof/" {
		t.Errorf("the authorizer was asked about %q; want the non-resource path get /debug/pprof/ first", authz.paths)
	}
}

// A profile as a client would take it: a short CPU profile, pprof's
// gzipped protobuf.
func TestDebugPprofCPUProfile(t *testing.T) {
	_, base := servertest.New(t, server.Options{})
	r := servertest.Do(t, "GET", base+"/debug/pprof/profile?seconds=1", "")
	if r.Code != 200 || !strings.HasPrefix(r.Body, "\x1f\x8b") {
		t.Errorf("GET /debug/pprof/profile?seconds=1 = %d %.40q; want 200 with a gzipped profile", r.Code, r.Body)
	}
}
