package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// recorded is one request and what kube-apiserver 1.37.1 answered it
// (../shared/reference, a configmap or widget in place of the test
// server's resources; headers that vary per request left out).
type recorded struct {
	method, path, body string
	code               int
	ctype              string // "" means application/json
	want               string // the body, exactly
}

func (tt recorded) check(t *testing.T, s http.Handler) {
	t.Helper()
	r := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
	if tt.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("User-Agent", "recorded")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	ctype := tt.ctype
	if ctype == "" {
		ctype = "application/json"
	}
	if w.Code != tt.code || w.Header().Get("Content-Type") != ctype || w.Body.String() != tt.want {
		t.Errorf("%s %s: %d %s %q\nwant %d %s %q", tt.method, tt.path, w.Code,
			w.Header().Get("Content-Type"), w.Body, tt.code, ctype, tt.want)
	}
}

const recorded405 = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}` + "\n"

// A method a path does not serve: kube-apiserver's router answers every
// such request to a built-in resource with one text and empty details
// (PUT /api/v1/namespaces/default/configmaps, POST
// .../configmaps/x, POST /api/v1/configmaps, DELETE .../pods/x/status,
// HEAD .../configmaps).
func TestRecordedMethodNotAllowed(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, tt := range []recorded{
		{method: "PUT", path: "/apis/test.apisem.dev/v1/namespaces/default/gadgets", body: "{}", code: 405, want: recorded405},
		{method: "POST", path: "/apis/test.apisem.dev/v1/namespaces/default/gadgets/x", body: "{}", code: 405, want: recorded405},
		{method: "POST", path: "/apis/test.apisem.dev/v1/gadgets", body: "{}", code: 405, want: recorded405},
		{method: "DELETE", path: "/apis/test.apisem.dev/v1/namespaces/default/gadgets/x/status", code: 405, want: recorded405},
		{method: "POST", path: "/api/v1/knobs/x", body: "{}", code: 405, want: recorded405},
	} {
		tt.check(t, s)
	}
}

// A resourceVersion that is not a number: a 500 with no reason for a get
// and a watch (the cluster's watch cache returns a bare field error), a
// 400 for a list (GET .../configmaps/kube-root-ca.crt?resourceVersion=abc,
// ...?watch=1&resourceVersion=abc, ...configmaps?resourceVersion=abc).
func TestRecordedResourceVersionNotANumber(t *testing.T) {
	s := newTestServer(t, Options{})
	const read500 = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax","code":500}` + "\n"
	for _, tt := range []recorded{
		{method: "GET", path: "/apis/test.apisem.dev/v1/namespaces/default/gadgets/x?resourceVersion=abc", code: 500, want: read500},
		{method: "GET", path: "/apis/test.apisem.dev/v1/namespaces/default/gadgets?watch=1&resourceVersion=abc", code: 500, want: read500},
		{method: "GET", path: "/api/v1/knobs?watch=true&resourceVersion=abc", code: 500, want: read500},
		{method: "GET", path: "/apis/test.apisem.dev/v1/namespaces/default/gadgets?resourceVersion=abc", code: 400,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax","reason":"BadRequest","code":400}` + "\n"},
	} {
		tt.check(t, s)
	}
}

const (
	recordedPage404 = "404 page not found\n"
	recordedJSON404 = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}` + "\n"
	textPlain       = "text/plain; charset=utf-8"
)

// Outside the API, and in a group the server does not serve, a cluster
// answers with Go's plain-text 404; its API routers (/api, /version and
// the groups it serves) with a Status (GET /foo, /healthz/etcdx,
// /openapi, /openapi/v2/x, /versionx, /apis/nogroup,
// /apis/nogroup/v1/x; /api/v2, /apis/apps/v2, /apis/apps/v1/foo,
// /version/x, /api/v1//configmaps; /openapi/v3/apis/nogroup/v1 is an
// empty 404).
func TestRecordedNotFound(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, tt := range []recorded{
		{method: "GET", path: "/foo", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/healthz/etcdx", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/openapi", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/openapi/v2/x", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/versionx", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/index.html/x", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/apis/nogroup", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/apis/nogroup/v1/x", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/apis/nogroup/v1/namespaces/default/x", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/openapi/v3/apis/nogroup/v1", code: 404, ctype: "", want: ""},
		{method: "GET", path: "/api/v2", code: 404, want: recordedJSON404},
		{method: "GET", path: "/api/v1//knobs", code: 404, want: recordedJSON404},
		{method: "GET", path: "/apis/test.apisem.dev/v2", code: 404, want: recordedJSON404},
		{method: "GET", path: "/apis/test.apisem.dev/v1/foo", code: 404, want: recordedJSON404},
		{method: "GET", path: "/version/x", code: 404, want: recordedJSON404},
	} {
		if tt.ctype == "" && tt.want == "" {
			r := httptest.NewRequest(tt.method, tt.path, nil)
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != 404 || w.Body.Len() != 0 {
				t.Errorf("%s: %d %q; want an empty 404", tt.path, w.Code, w.Body)
			}
			continue
		}
		tt.check(t, s)
	}
}

// GET / lists the served paths, sorted, indented and without a final
// newline, whatever the method; kube-apiserver 1.37.1 answered
// {"paths": ["/.well-known/openid-configuration", "/api", "/api/v1",
// "/apis", "/apis/", "/apis/admissionregistration.k8s.io", ...,
// "/healthz", "/healthz/autoregister-completion", ..., "/livez", ...,
// "/openapi/v2", "/openapi/v3", "/openapi/v3/", ..., "/readyz/shutdown",
// "/statusz", "/version"]}, its custom resources' groups and versions
// among the groups.
func TestRecordedRootPaths(t *testing.T) {
	s := newTestServer(t, Options{})
	want := `{
  "paths": [
    "/api",
    "/api/v1",
    "/apis",
    "/apis/",
    "/apis/test.apisem.dev",
    "/apis/test.apisem.dev/v1",
    "/apis/test.apisem.dev/v1beta1",
    "/healthz",
    "/healthz/ping",
    "/livez",
    "/livez/ping",
    "/openapi/v2",
    "/openapi/v3",
    "/openapi/v3/",
    "/readyz",
    "/readyz/ping",
    "/readyz/shutdown",
    "/version"
  ]
}`
	for _, tt := range []recorded{
		{method: "GET", path: "/", code: 200, want: want},
		{method: "POST", path: "/", body: "{}", code: 200, want: want},
		{method: "GET", path: "/index.html", code: 200, want: want},
	} {
		tt.check(t, s)
	}
}
