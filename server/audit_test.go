package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// auditWriter is the smallest AuditRecorder: it notes what the server
// tells it, and the code.
type auditWriter struct {
	http.ResponseWriter
	notes []string
}

func (w *auditWriter) AuditAnnotation(k, v string) { w.notes = append(w.notes, k+"="+v) }
func (w *auditWriter) AuditStatus(st *status.Status) {
	w.notes = append(w.notes, fmt.Sprintf("status %s %s %d", st.Status, st.Reason, st.Code))
}

// passThrough wraps a writer without implementing AuditRecorder, as a
// user's filter would: the server finds the recorder behind it.
type passThrough struct{ http.ResponseWriter }

func (p passThrough) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// The audit hook runs after authentication and before authorization, as
// kube-apiserver's audit filter: it sees the 403s, and the server tells it
// the authorizer's decision and the Status of each error and deletion. A
// request no authenticator accepts passes through it on its way to the
// 401, marked.
func TestAuditHook(t *testing.T) {
	var last *auditWriter
	var seen []string
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, _ := auth.UserFrom(r.Context())
			info, _ := server.RequestInfoFrom(r.Context())
			seen = append(seen, fmt.Sprint(u.Name, " ", info.Verb, " ", server.AuthenticationFailed(r.Context())))
			last = &auditWriter{ResponseWriter: w}
			next.ServeHTTP(last, r)
		})
	}
	users := auth.AuthenticatorFunc(func(r *http.Request) (auth.User, bool, error) {
		name := r.Header.Get("X-Test-User")
		return auth.User{Name: name}, name != "", nil
	})
	authz := auth.AuthorizerFunc(func(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
		switch a.User.Name {
		case "alice":
			return auth.DecisionAllow, "alice may", nil
		case "broken":
			return auth.DecisionNoOpinion, "", errors.New("no answer")
		}
		return auth.DecisionNoOpinion, "nobody said yes", nil
	})
	wrapUser := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(passThrough{w}, r) })
	}
	s, err := server.New(server.Options{
		Resources: []*server.Resource{gizmos},
		Security:  server.SecurityOptions{Authenticator: users, Authorizer: authz},
		Hooks:     server.HookOptions{Audit: hook, Filters: []func(http.Handler) http.Handler{wrapUser}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	const path = "/apis/demo.io/v1/namespaces/default/gizmos"
	for _, tc := range []struct {
		user, method, path, body string
		code                     int
		want                     string
	}{
		{"alice", "POST", path, `{"metadata":{"name":"g1"}}`, 201,
			"authorization.k8s.io/decision=allow, authorization.k8s.io/reason=alice may"},
		{"alice", "GET", path + "/missing", "", 404,
			"authorization.k8s.io/decision=allow, authorization.k8s.io/reason=alice may, status Failure NotFound 404"},
		// A deletion's Status has no code in its body, as Kubernetes
		// writes it; the audit filter takes the code from the response.
		{"alice", "DELETE", path + "/g1", "", 200,
			"authorization.k8s.io/decision=allow, authorization.k8s.io/reason=alice may, status Success  0"},
		{"bob", "GET", path, "", 403,
			"authorization.k8s.io/decision=forbid, authorization.k8s.io/reason=nobody said yes, status Failure Forbidden 403"},
		{"broken", "GET", path, "", 500, "authorization.k8s.io/reason=internal error"},
		// Unauthenticated: through the hook on the way to the 401.
		{"", "GET", path, "", 401, "status Failure Unauthorized 401"},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Test-User", tc.user)
		last = nil
		s.ServeHTTP(rec, req)
		if rec.Code != tc.code {
			t.Errorf("%s %s %s: code %d, want %d: %s", tc.user, tc.method, tc.path, rec.Code, tc.code, rec.Body)
		}
		if last == nil {
			t.Errorf("%s %s %s: the audit hook did not run", tc.user, tc.method, tc.path)
			continue
		}
		if got := strings.Join(last.notes, ", "); got != tc.want {
			t.Errorf("%s %s %s: told %q, want %q", tc.user, tc.method, tc.path, got, tc.want)
		}
	}
	if want := "alice create false, alice get false, alice delete false, bob list false, broken list false,  list true"; strings.Join(seen, ", ") != want {
		t.Errorf("the hook saw %q, want %q", strings.Join(seen, ", "), want)
	}
}
