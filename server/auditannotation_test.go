package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// Admission hooks annotate the request's audit event with
// AddAuditAnnotation: the audit hook's recorder gets the annotations of
// each phase, of a refused write too, behind a writer that wraps it; a
// server without an audit hook, and a write of no request (Server.Create),
// take them without effect.
func TestAddAuditAnnotation(t *testing.T) {
	var last *auditWriter
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			last = &auditWriter{ResponseWriter: w}
			next.ServeHTTP(last, r)
		})
	}
	wrap := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(passThrough{w}, r) })
	}
	adm := server.Admission{
		Mutate: func(ctx context.Context, a server.Attributes, obj, _ server.Object) error {
			server.AddAuditAnnotation(ctx, "mutate.example.com/name", obj.Meta().Name)
			return nil
		},
		Validate: func(ctx context.Context, a server.Attributes, obj, _ server.Object) error {
			server.AddAuditAnnotation(ctx, "validate.example.com/op", string(a.Operation))
			if a.Name == "refused" {
				return status.NewForbidden(status.GroupResource{Group: "demo.io", Resource: "gizmos"}, a.Name, errors.New("no"))
			}
			return nil
		},
	}
	const path = "/apis/demo.io/v1/namespaces/default/gizmos"
	for _, audited := range []bool{true, false} {
		opts := server.Options{Resources: []*server.Resource{gizmos}, Admission: adm,
			Hooks: server.HookOptions{Filters: []func(http.Handler) http.Handler{wrap}}}
		if audited {
			opts.Hooks.Audit = hook
		}
		s, err := server.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			method, path, body string
			code               int
			want               string
		}{
			{"POST", path, `{"metadata":{"name":"g1"}}`, 201, "mutate.example.com/name=g1, validate.example.com/op=CREATE"},
			{"POST", path, `{"metadata":{"name":"refused"}}`, 403,
				"mutate.example.com/name=refused, validate.example.com/op=CREATE, status Failure Forbidden 403"},
			{"DELETE", path + "/g1", "", 200, "validate.example.com/op=DELETE, status Success  0"},
		} {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			last = nil
			s.ServeHTTP(rec, req)
			if rec.Code != tc.code {
				t.Errorf("%s %s: code %d, want %d: %s", tc.method, tc.path, rec.Code, tc.code, rec.Body)
			}
			if !audited {
				continue
			}
			if got := strings.Join(last.notes, ", "); got != tc.want {
				t.Errorf("%s %s: told %q, want %q", tc.method, tc.path, got, tc.want)
			}
		}
		if _, err := s.Create(context.Background(), gizmos, &Gizmo{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "seeded"}}); err != nil {
			t.Errorf("Create: %v", err)
		}
		s.Shutdown(context.Background())
	}
}
