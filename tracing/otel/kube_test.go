package otel_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/user"
	kubefilters "k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/tracing/otel"
)

// spanView is what the differential test compares of a span.
type spanView struct {
	Name, Kind     string
	ChildOfCaller  bool
	LinkedToCaller bool
	Attrs          map[attribute.Key]string
}

func view(s sdktrace.ReadOnlySpan) spanView {
	v := spanView{Name: s.Name(), Kind: s.SpanKind().String(), Attrs: attrs(s),
		ChildOfCaller: s.Parent().SpanID().String() == callerSpan && s.SpanContext().TraceID().String() == callerTrace}
	for _, l := range s.Links() {
		v.LinkedToCaller = v.LinkedToCaller || l.SpanContext.SpanID().String() == callerSpan
	}
	// kube-apiserver's audit id, which this test's chain has none of
	// (its attribute is then empty).
	delete(v.Attrs, "audit-id")
	return v
}

// TestKubeRequestSpans compares the request spans of our server with
// those of kube-apiserver's tracing filter (k8s.io/apiserver
// endpoints/filters.WithTracing, behind its WithRequestInfo) for the same
// requests, answered with the same status and body.
func TestKubeRequestSpans(t *testing.T) {
	admin := auth.User{Name: "admin", Groups: []string{auth.SystemPrivilegedGroup}}
	users := auth.AuthenticatorFunc(func(r *http.Request) (auth.User, bool, error) {
		if r.Header.Get("X-Test-User") == "admin" {
			return admin, true, nil
		}
		return auth.User{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}, true, nil
	})
	for _, tt := range []struct {
		name, method, target, body string
		admin                      bool
	}{
		{"get one", "GET", gizmoPath + "/g", "", true},
		{"get one, an anonymous caller's trace", "GET", gizmoPath + "/g", "", false},
		{"list across namespaces", "GET", "/apis/demo.io/v1/gizmos?limit=1&labelSelector=a%3Db", "", true},
		{"list of one name", "GET", gizmoPath + "?fieldSelector=metadata.name%3Dg", "", true},
		{"status", "GET", gizmoPath + "/g/status", "", true},
		{"core, not served", "GET", "/api/v1/namespaces/ns/configmaps", "", true},
		{"cluster-scoped core", "GET", "/api/v1/nodes/n", "", true},
		{"create", "POST", gizmoPath, `{"metadata":{"name":"g2"}}`, true},
		{"delete", "DELETE", gizmoPath + "/g", "", true},
		{"discovery", "GET", "/apis/demo.io/v1", "", true},
		{"version", "GET", "/version", "", true},
		{"a method outside the conventions", "FOO", gizmoPath + "/g", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			newRequest := func() *http.Request {
				r := httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body))
				if tt.body == "" {
					r = httptest.NewRequest(tt.method, tt.target, nil)
				}
				r.Header.Set("Traceparent", sampled)
				r.Header.Set("User-Agent", "kubectl/v1.37.0 (linux/amd64) kubernetes/abcdef")
				r.Header.Set("Content-Type", "application/json")
				if tt.admin {
					r.Header.Set("X-Test-User", "admin")
				}
				return r
			}

			// Ours.
			tp, rec := provider(t, &otel.Configuration{SamplingRatePerMillion: ptr[int32](1000000)})
			s, err := server.New(server.Options{Resources: []*server.Resource{gizmos},
				Security: server.SecurityOptions{Authenticator: users},
				Hooks:    server.HookOptions{Tracer: otel.NewTracer(tp)}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			s.Create(context.Background(), gizmos, &Gizmo{ObjectMeta: metaOf("ns", "g")})
			w := httptest.NewRecorder()
			s.ServeHTTP(w, newRequest())
			code, body := w.Code, w.Body.Bytes()

			// Kubernetes', answering the same.
			ktp, krec := provider(t, &otel.Configuration{SamplingRatePerMillion: ptr[int32](1000000)})
			answer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body) // as a handler of a write reads it
				w.WriteHeader(code)
				w.Write(body)
			})
			traced := kubefilters.WithTracing(answer, ktp)
			withUser := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				u := &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}
				if tt.admin {
					u = &user.DefaultInfo{Name: admin.Name, Groups: admin.Groups}
				}
				traced.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), u)))
			})
			kube := kubefilters.WithRequestInfo(withUser, &request.RequestInfoFactory{
				APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")})
			kube.ServeHTTP(httptest.NewRecorder(), newRequest())

			ours, theirs := rec.Ended(), krec.Ended()
			if len(ours) != 1 || len(theirs) != 1 {
				t.Fatalf("%d spans of ours, %d of Kubernetes'; want one each", len(ours), len(theirs))
			}
			if diff := cmp.Diff(view(theirs[0]), view(ours[0])); diff != "" {
				t.Errorf("%s %s (%d): span differs from Kubernetes' (-kube +ours):\n%s", tt.method, tt.target, code, diff)
			}
		})
	}
}

func metaOf(ns, name string) meta.ObjectMeta { return meta.ObjectMeta{Namespace: ns, Name: name} }
