package server

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// Kubernetes' reported verbs (k8s.io/apiserver/pkg/endpoints/metrics:
// CanonicalVerb, CleanVerb, cleanVerb).
func TestMetricsVerb(t *testing.T) {
	tests := []struct {
		method, target, ctype, scope, sub string
		legacyWatch                       bool
		want                              string
	}{
		{"GET", "/x", "", "resource", "", false, "GET"},
		{"HEAD", "/x", "", "resource", "", false, "GET"},
		{"GET", "/x", "", "namespace", "", false, "LIST"},
		{"GET", "/x", "", "cluster", "", false, "LIST"},
		{"HEAD", "/x", "", "cluster", "", false, "LIST"},
		{"GET", "/x", "", "", "", false, "GET"}, // a health endpoint
		{"GET", "/x?watch=true", "", "namespace", "", false, "WATCH"},
		{"GET", "/x?watch=1", "", "resource", "", false, "WATCH"},
		{"GET", "/x?watch=", "", "cluster", "", false, "WATCH"}, // not "0" or "false"
		{"GET", "/x?watch=FALSE", "", "cluster", "", false, "LIST"},
		{"GET", "/x?watch=0&watch=1", "", "cluster", "", false, "LIST"}, // the first value decides
		{"GET", "/x?w%61tch=true", "", "cluster", "", false, "WATCH"},
		{"HEAD", "/x?watch=true", "", "cluster", "", false, "LIST"}, // only a GET watches
		{"GET", "/x", "", "namespace", "", true, "WATCH"},           // a /watch/ path
		{"POST", "/x", "application/json", "resource", "", false, "POST"},
		{"PUT", "/x", "application/json", "resource", "", false, "PUT"},
		{"PATCH", "/x", "application/merge-patch+json", "resource", "", false, "PATCH"},
		{"PATCH", "/x", "application/apply-patch+yaml", "resource", "", false, "APPLY"},
		{"PATCH", "/x", "application/apply-patch+yaml; charset=utf-8", "resource", "", false, "PATCH"}, // an exact match
		{"DELETE", "/x", "", "resource", "", false, "DELETE"},
		{"DELETE", "/x", "", "namespace", "", false, "DELETE"}, // deletecollection too
		{"GET", "/x", "", "resource", "log", false, "CONNECT"},
		{"POST", "/x", "", "resource", "exec", false, "CONNECT"},
		{"OPTIONS", "/x", "", "resource", "", false, "other"},
		{"BREW", "/x", "", "resource", "", false, "other"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.target, nil)
		if tt.ctype != "" {
			r.Header.Set("Content-Type", tt.ctype)
		}
		if got := metricsVerb(r, tt.scope, tt.sub, tt.legacyWatch); got != tt.want {
			t.Errorf("metricsVerb(%s %s, %q, scope %q, sub %q) = %q; want %q", tt.method, tt.target, tt.ctype, tt.scope, tt.sub, got, tt.want)
		}
	}
}

// The scope labels: the route's for the request counters (installer.go),
// the request's attributes' for long-running requests (CleanScope).
func TestMetricsScope(t *testing.T) {
	tests := []struct {
		method, path              string
		namespaced                bool
		wantRoute, wantAttributes string
	}{
		{"GET", "/api/v1/namespaces/ns/configmaps/a", true, "resource", "resource"},
		{"GET", "/api/v1/namespaces/ns/configmaps", true, "namespace", "namespace"},
		{"GET", "/api/v1/configmaps", true, "cluster", "cluster"},
		{"GET", "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Da", true, "namespace", "resource"},
		{"POST", "/api/v1/namespaces/ns/configmaps", true, "resource", "resource"},
		{"DELETE", "/api/v1/namespaces/ns/configmaps", true, "namespace", "namespace"},
		{"GET", "/api/v1/namespaces", false, "cluster", "cluster"},
		{"GET", "/api/v1/namespaces/ns", false, "resource", "resource"},
		{"GET", "/api/v1/watch/namespaces/ns/configmaps", true, "namespace", "namespace"},
		{"GET", "/api/v1/watch/namespaces/ns/configmaps/a", true, "resource", "resource"},
		{"GET", "/apis/demo.io/v1/globes", false, "cluster", "cluster"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.path, nil)
		rq := parseRequest(r)
		if got := routeScope(tt.method, rq, tt.namespaced); got != tt.wantRoute {
			t.Errorf("routeScope(%s %s) = %q; want %q", tt.method, tt.path, got, tt.wantRoute)
		}
		if got := requestScope(&rq.info); got != tt.wantAttributes {
			t.Errorf("requestScope(%s %s) = %q; want %q", tt.method, tt.path, got, tt.wantAttributes)
		}
	}
}

func TestDryRunLabel(t *testing.T) {
	for q, want := range map[string]string{
		"": "", "limit=1": "", "dryRun=All": "All", "dryRun=All&dryRun=All": "All",
		"dryRun=all": "invalid", "dryRun=All&dryRun=x": "invalid", "dryRun=": "invalid",
		"dryRunX=1": "",
	} {
		if got := dryRunLabel(&url.URL{RawQuery: q}); got != want {
			t.Errorf("dryRunLabel(%q) = %q; want %q", q, got, want)
		}
	}
}

// FuzzWatchParam checks watchParam, a reader of untrusted queries,
// against Kubernetes' own reading: url.Query()["watch"][0].
func FuzzWatchParam(f *testing.F) {
	for _, s := range []string{"", "watch=true", "watch=0", "w%61tch=1", "watch=%zz&watch=1", "a;watch=1&watch=0",
		"watch", "watch=FaLsE", "watch=falſe", "x=1&watch=1", "%77atch=%30"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		want := false
		if vs := (&url.URL{RawQuery: raw}).Query()["watch"]; len(vs) > 0 {
			v := strings.ToLower(vs[0])
			want = v != "0" && v != "false"
		}
		if got := watchParam(raw); got != want {
			t.Errorf("watchParam(%q) = %v; want %v", raw, got, want)
		}
	})
}
