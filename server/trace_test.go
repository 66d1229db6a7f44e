package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/tracing"
)

// spanRecorder is a tracing.Tracer that keeps what it was given.
type spanRecorder struct {
	mu    sync.Mutex
	spans []*recordedSpan
}

type recordedSpan struct {
	name    string
	kind    tracing.Kind
	attrs   map[string]string
	remote  string // the caller's traceparent, if any
	trusted bool
	ended   bool
	err     error
	parent  *recordedSpan
}

type spanKey struct{}

func (r *spanRecorder) Start(ctx context.Context, name string, kind tracing.Kind, attrs ...slog.Attr) (context.Context, tracing.Span) {
	s := &recordedSpan{name: name, kind: kind, attrs: map[string]string{}}
	s.SetAttributes(attrs...)
	s.parent, _ = ctx.Value(spanKey{}).(*recordedSpan)
	if sc, trusted, ok := tracing.RemoteFrom(ctx); ok && s.parent == nil {
		s.remote, s.trusted = sc.Traceparent(), trusted
	}
	r.mu.Lock()
	r.spans = append(r.spans, s)
	r.mu.Unlock()
	return context.WithValue(ctx, spanKey{}, s), s
}

func (s *recordedSpan) SetAttributes(attrs ...slog.Attr) {
	for _, a := range attrs {
		s.attrs[a.Key] = a.Value.String()
	}
}
func (s *recordedSpan) AddEvent(string, ...slog.Attr) {}
func (s *recordedSpan) End(err error)                 { s.ended, s.err = true, err }

func (r *spanRecorder) take() []*recordedSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.spans
	r.spans = nil
	return s
}

const callerTraceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

func TestTracing(t *testing.T) {
	rec := &spanRecorder{}
	// A user's filter sees the request's span in its context, as the
	// storage does.
	var inFilter []*recordedSpan
	var mu sync.Mutex
	seeSpan := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s, _ := r.Context().Value(spanKey{}).(*recordedSpan)
			mu.Lock()
			inFilter = append(inFilter, s)
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}
	_, open := servertest.New(t, server.Options{Resources: []*server.Resource{gizmos},
		Hooks: server.HookOptions{Tracer: rec, Filters: []func(http.Handler) http.Handler{seeSpan}}})
	_, authn := servertest.New(t, server.Options{Resources: []*server.Resource{gizmos},
		Security: server.SecurityOptions{Authenticator: headerUsers},
		Hooks:    server.HookOptions{Tracer: rec}})
	const ns = "/apis/demo.io/v1/namespaces/ns/gizmos"
	for _, tt := range []struct {
		name, base, method, path, body string
		hdr                            []string
		span                           string
		code                           string
		remote                         string // the caller's span the request's is started from
		trusted                        bool
	}{
		{"create", open, "POST", ns, `{"metadata":{"name":"g1"}}`, []string{"Traceparent", callerTraceparent},
			"POST /apis/demo.io/v1/namespaces/{:namespace}/gizmos", "201", callerTraceparent, true},
		{"get", open, "GET", ns + "/g1", "", []string{"Traceparent", callerTraceparent},
			"GET /apis/demo.io/v1/namespaces/{:namespace}/gizmos/{:name}", "200", callerTraceparent, true},
		{"status of a missing one", open, "GET", ns + "/nope/status", "", nil,
			"GET /apis/demo.io/v1/namespaces/{:namespace}/gizmos/{:name}/status", "404", "", false},
		{"list across namespaces", open, "GET", "/apis/demo.io/v1/gizmos?limit=1", "", nil,
			"GET /apis/demo.io/v1/gizmos", "200", "", false},
		{"a core list", open, "GET", "/api/v1/namespaces/ns/configmaps", "", nil,
			"GET /api/v1/namespaces/{:namespace}/configmaps", "404", "", false},
		{"not a resource", open, "GET", "/version", "", []string{"Traceparent", callerTraceparent},
			"GET", "200", callerTraceparent, true},
		{"an invalid traceparent is ignored", open, "GET", "/healthz", "", []string{"Traceparent", "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01"},
			"GET", "200", "", false},
		{"an anonymous caller gets a trace of the server's", authn, "GET", ns + "/g1", "", []string{"Traceparent", callerTraceparent},
			"GET /apis/demo.io/v1/namespaces/{:namespace}/gizmos/{:name}", "404", callerTraceparent, false},
		{"system:masters chooses the trace", authn, "GET", ns + "/g1", "", []string{"Traceparent", callerTraceparent, "X-Test-User", "admin"},
			"GET /apis/demo.io/v1/namespaces/{:namespace}/gizmos/{:name}", "404", callerTraceparent, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hdr := append([]string{"Content-Type", "application/json", "User-Agent", "tracing-test"}, tt.hdr...)
			r := servertest.Do(t, tt.method, tt.base+tt.path, tt.body, hdr...)
			if got := strconv.Itoa(r.Code); got != tt.code {
				t.Fatalf("%s %s = %s; want %s", tt.method, tt.path, got, tt.code)
			}
			spans := rec.take()
			if len(spans) != 1 {
				t.Fatalf("%s %s made %d spans; want 1", tt.method, tt.path, len(spans))
			}
			s := spans[0]
			if s.name != tt.span || s.kind != tracing.Server || !s.ended || s.err != nil {
				t.Errorf("span %q kind %d ended %v err %v; want %q kind Server, ended without error", s.name, s.kind, s.ended, s.err, tt.span)
			}
			if s.remote != tt.remote || s.trusted != tt.trusted {
				t.Errorf("span's caller %q trusted %v; want %q trusted %v", s.remote, s.trusted, tt.remote, tt.trusted)
			}
			for k, want := range map[string]string{
				"http.request.method": tt.method, "url.path": tt.path[:len(tt.path)-len(queryOf(tt.path))],
				"http.target": tt.path, "user_agent.original": "tracing-test", "url.scheme": "http",
				"server.address": "127.0.0.1", "network.peer.address": "127.0.0.1", "client.address": "127.0.0.1",
				"network.protocol.version": "1.1", "http.response.status_code": tt.code,
			} {
				if got := s.attrs[k]; got != want {
					t.Errorf("span attribute %s = %q; want %q", k, got, want)
				}
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(inFilter) == 0 || slices.Contains(inFilter, nil) {
		t.Errorf("the filters saw the spans %v; want the request's span in each request's context", inFilter)
	}
}

func queryOf(p string) string {
	if i := strings.IndexByte(p, '?'); i >= 0 {
		return p[i:]
	}
	return ""
}

// A failed request (5xx) ends its span with an error, as OpenTelemetry's
// HTTP servers mark them; a client's error (4xx) does not.
func TestTracingServerError(t *testing.T) {
	rec := &spanRecorder{}
	_, base := servertest.New(t, server.Options{Resources: []*server.Resource{gizmos},
		Hooks: server.HookOptions{Tracer: rec, Filters: []func(http.Handler) http.Handler{
			func(http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 503) })
			},
		}}})
	servertest.Do(t, "GET", base+"/apis/demo.io/v1/gizmos", "")
	s := rec.take()
	if len(s) != 1 || s[0].err == nil || s[0].attrs["http.response.status_code"] != "503" {
		t.Fatalf("spans %+v; want one, ended with an error, status 503", s)
	}
}
