package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/google/go-cmp/cmp"
)

// TestParseRequest: the request value, parsed once, says what every stage
// reads: the verb and long-running decision (which the deadline and
// in-flight filters, the authorizer and the router share), the ListOptions
// of a collection or legacy watch, the ?timeout= and the write options.
func TestParseRequest(t *testing.T) {
	type I = RequestInfo
	res := func(verb, resource, ns, name string) I {
		return I{ResourceRequest: true, Verb: verb, Version: "v1", Resource: resource, Namespace: ns, Name: name,
			LongRunning: verb == "watch"}
	}
	tests := []struct {
		method, url string
		want        I
		list        rv.ListOptions
		listErr     bool
		timeout     time.Duration
		timeoutErr  bool
	}{
		{method: "GET", url: "/api/v1/namespaces/a/configmaps", want: res("list", "configmaps", "a", "")},
		{method: "GET", url: "/api/v1/namespaces/a/configmaps?watch=1", want: res("watch", "configmaps", "a", ""),
			list: rv.ListOptions{Watch: true}},
		// Issue 24: an escaped name is the parameter it spells, to every stage.
		{method: "GET", url: "/api/v1/namespaces/a/configmaps?w%61tch=1", want: res("watch", "configmaps", "a", ""),
			list: rv.ListOptions{Watch: true}},
		{method: "GET", url: "/api/v1/namespaces/a/configmaps?%77atch", want: res("watch", "configmaps", "a", ""),
			list: rv.ListOptions{Watch: true}},
		{method: "GET", url: "/api/v1/namespaces/a/configmaps?watch=FALSE", want: res("list", "configmaps", "a", "")},
		// A malformed neighbour: still a watch (the handler answers 400).
		{method: "GET", url: "/api/v1/namespaces/a/configmaps?watch=true&limit=x", want: res("watch", "configmaps", "a", ""),
			listErr: true},
		// A GET of one object is never a watch, whatever its query says.
		{method: "GET", url: "/api/v1/namespaces/a/configmaps/c?watch=1", want: res("get", "configmaps", "a", "c")},
		// The legacy watch of one name has its options too.
		{method: "GET", url: "/api/v1/watch/namespaces/a/configmaps/c?timeoutSeconds=1", want: res("watch", "configmaps", "a", "c"),
			list: rv.ListOptions{TimeoutSeconds: 1}},
		{method: "DELETE", url: "/api/v1/namespaces/a/configmaps?labelSelector=x%3Dy", want: res("deletecollection", "configmaps", "a", ""),
			list: rv.ListOptions{LabelSelector: "x=y"}},
		{method: "POST", url: "/api/v1/namespaces/a/configmaps?timeout=5s", want: res("create", "configmaps", "a", ""),
			timeout: 5 * time.Second},
		{method: "POST", url: "/api/v1/namespaces/a/configmaps?timeout=soon", want: res("create", "configmaps", "a", ""),
			timeoutErr: true},
		// Watches are not timed: a bad ?timeout= is parsed but not read.
		{method: "GET", url: "/api/v1/configmaps?watch&timeout=x", want: res("watch", "configmaps", "", ""),
			list: rv.ListOptions{Watch: true}, timeoutErr: true},
		{method: "GET", url: "/healthz?timeout=1s", want: I{Verb: "get"}, timeout: time.Second},
		{method: "PROPFIND", url: "/version", want: I{Verb: "propfind"}},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.url, nil)
		rq := parseRequest(r)
		want := tt.want
		want.Path = r.URL.Path
		if diff := cmp.Diff(want, rq.info); diff != "" {
			t.Errorf("%s %s: RequestInfo (-want +got):\n%s", tt.method, tt.url, diff)
		}
		if q := rq.options(); q.list != tt.list || (q.listErr != nil) != tt.listErr {
			t.Errorf("%s %s: ListOptions = %+v, %v; want %+v, error %v", tt.method, tt.url, q.list, q.listErr, tt.list, tt.listErr)
		}
		if q := rq.options(); q.timeout != tt.timeout || (q.timeoutErr != nil) != tt.timeoutErr {
			t.Errorf("%s %s: timeout = %v, %v; want %v, error %v", tt.method, tt.url, q.timeout, q.timeoutErr, tt.timeout, tt.timeoutErr)
		}
	}
}

// TestQueryWriteOptions: the write and delete options are read from the
// one decoded query with url.ParseQuery's rules (first value; all of
// dryRun's; a malformed pair dropped) and Kubernetes' bool rule.
func TestQueryWriteOptions(t *testing.T) {
	tests := []struct {
		query     string
		kind      string // "apply", "patch", "update", "delete"
		want      writeOptions
		dryRun    bool
		policy    string
		orphan    string // "", "true", "false"
		invalid   string // the 422's message, if any
		userAgent string
	}{
		{query: "dryRun=All&fieldManager=m&fieldValidation=Strict", kind: "update",
			want: wo(true, negotiation.FieldValidationStrict, "m", false), dryRun: true},
		{query: "dryRun=All&dryRun=%zz&fieldManager=a+b", kind: "update", want: wo(true, negotiation.FieldValidationWarn, "a b", false), dryRun: true},
		{query: "fieldManager=m&force", kind: "apply", want: wo(false, negotiation.FieldValidationWarn, "m", true)},
		{query: "fieldManager=m&force=False&force=true", kind: "apply", want: wo(false, negotiation.FieldValidationWarn, "m", false)},
		{query: "", kind: "update", userAgent: "kubectl/v1.37.0 (linux/amd64) kubernetes/abc", want: wo(false, negotiation.FieldValidationWarn, "kubectl", false)},
		{query: "propagationPolicy=Orphan&orphanDependents=0", kind: "delete", policy: "Orphan", orphan: "false"},
		{query: "orphanDependents", kind: "delete", orphan: "true"},
		{query: "dryRun=all", kind: "delete",
			invalid: `DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["all"]: supported values: "All"`},
		{query: "force=1", kind: "patch",
			invalid: `PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`},
		{query: "dryRun=x&fieldValidation=strict", kind: "apply",
			invalid: `PatchOptions.meta.k8s.io "" is invalid: [fieldManager: Required value: is required for apply patch, dryRun: Unsupported value: ["x"]: supported values: "All", fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"]`},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("PATCH", "/api/v1/namespaces/a/configmaps/c?"+tt.query, nil)
		r.Header.Set("User-Agent", tt.userAgent)
		var err error
		if tt.kind == "delete" {
			var dry bool
			var policy string
			var orphan *bool
			dry, policy, orphan, err = deleteQuery(r)
			o := ""
			if orphan != nil {
				o = map[bool]string{true: "true", false: "false"}[*orphan]
			}
			if err == nil && (dry != tt.dryRun || policy != tt.policy || o != tt.orphan) {
				t.Errorf("deleteQuery(%q) = %v, %q, %s; want %v, %q, %s", tt.query, dry, policy, o, tt.dryRun, tt.policy, tt.orphan)
			}
		} else {
			kind := map[string]string{"apply": "PatchOptions", "patch": "PatchOptions", "update": "UpdateOptions"}[tt.kind]
			var got writeOptions
			got, err = parseWriteOptions(r, negotiation.OptionsKind(kind), tt.kind == "apply")
			if err == nil && got != tt.want {
				t.Errorf("parseWriteOptions(%q, %s) = %+v; want %+v", tt.query, tt.kind, got, tt.want)
			}
		}
		switch {
		case tt.invalid == "" && err != nil:
			t.Errorf("%s %q: %v", tt.kind, tt.query, err)
		case tt.invalid != "" && (err == nil || err.Error() != tt.invalid || !status.IsInvalid(err)):
			t.Errorf("%s %q: error %v; want 422 %s", tt.kind, tt.query, err, tt.invalid)
		}
	}
}

func wo(dryRun bool, v negotiation.FieldValidation, manager string, force bool) writeOptions {
	return writeOptions{WriteOptions: negotiation.WriteOptions{DryRun: dryRun, FieldValidation: v},
		owner: owner{manager: manager}, force: force}
}

// FuzzParseRequest: any method and URL parse without panicking; a
// long-running request is exactly a watch; the ListOptions a collection
// carries are rv's decoding of its query; and the router accepts only a
// path the parser calls well-formed.
func FuzzParseRequest(f *testing.F) {
	for _, u := range []string{
		"/api/v1/namespaces/a/configmaps?w%61tch=1", "/api/v1/watch/namespaces/a/configmaps/c?timeoutSeconds=1",
		"/apis/test.apisem.dev/v1/namespaces/a/gadgets/g/status?dryRun=All", "/api/v1/namespaces/a",
		"/api/v1//configmaps", "/healthz?exclude=ping", "/api/v1/knobs?fieldSelector=metadata.name%3Dk&watch",
		"/api/v1/namespaces/a/configmaps?timeout=1s&limit=%zz", "/apis/g", "/",
	} {
		for _, m := range []string{"GET", "DELETE", "HEAD", "POST"} {
			f.Add(m, u)
		}
	}
	s, err := New(Options{Resources: testResources()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Shutdown(context.Background()) })
	f.Fuzz(func(t *testing.T, method, target string) {
		u, err := url.Parse(target)
		if err != nil || !strings.HasPrefix(u.Path, "/") {
			return
		}
		r := &http.Request{Method: method, URL: u, Header: http.Header{}}
		rq := parseRequest(r)
		if rq.info.LongRunning != (rq.info.Verb == "watch") {
			t.Fatalf("%s %s: LongRunning %v for verb %q", method, target, rq.info.LongRunning, rq.info.Verb)
		}
		if rq.info.Verb == "list" || rq.info.Verb == "deletecollection" {
			want, wantErr := rv.ParseQuery(u.RawQuery)
			if q := rq.options(); q.list != want || (q.listErr == nil) != (wantErr == nil) {
				t.Fatalf("%s %s: ListOptions %+v, %v; rv.ParseQuery %+v, %v", method, target, q.list, q.listErr, want, wantErr)
			}
		}
		if !rq.info.ResourceRequest {
			return
		}
		if tg, err := s.route(method, rq); err == nil {
			if !rq.pathOK || tg.name != rq.name || string(tg.verb) != rq.info.Verb && !(tg.verb == verbGet && method == "HEAD") {
				t.Fatalf("%s %s: routed %+v from %+v", method, target, tg, rq)
			}
		}
	})
}

// splitPath gives strings.Split's segments of the trimmed path, in the
// request's own array up to eight segments and past it too.
func TestSplitPath(t *testing.T) {
	for _, p := range []string{"", "/", "//", "/api", "/api/", "api/v1", "/api/v1/namespaces/ns/configmaps",
		"/apis/g/v1/namespaces/ns/widgets/w/status", "/apis/g/v1/namespaces/ns/widgets/w/status/x/y",
		"/api//v1", "/a/b/", "///a"} {
		var buf [8]string
		got, ok := splitPath(buf[:0], p)
		var want []string
		if t := strings.Trim(p, "/"); t != "" {
			want = strings.Split(t, "/")
		}
		if !slices.Equal(got, want) || ok != !strings.Contains(p, "//") {
			t.Errorf("splitPath(%q) = %q, %v; want %q, %v", p, got, ok, want, !strings.Contains(p, "//"))
		}
	}
}
