package server

import (
	"encoding/json"
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
	header             []string
}

func (tt recorded) check(t *testing.T, s http.Handler) {
	t.Helper()
	r := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
	if tt.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("User-Agent", "recorded")
	for i := 0; i+1 < len(tt.header); i += 2 {
		r.Header.Set(tt.header[i], tt.header[i+1])
	}
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
// /healthz/, /readyz/ping/,
// /openapi, /openapi/v2/x, /versionx, /apis/nogroup,
// /apis/nogroup/v1/x; /api/v2, /apis/apps/v2, /apis/apps/v1/foo,
// /version/x, /api/v1//configmaps; /openapi/v3/apis/nogroup/v1 is an
// empty 404).
func TestRecordedNotFound(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, tt := range []recorded{
		{method: "GET", path: "/foo", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/healthz/etcdx", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/healthz/", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/readyz/ping/", code: 404, ctype: textPlain, want: recordedPage404},
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
	// A group of custom resources is apiextensions-apiserver's, which
	// passes what it does not serve on to the plain-text 404
	// (/apis/example.com/v9/widgets, /apis/example.com/v1/configmaps,
	// .../v1/namespaces/default/widgetsx).
	custom := testResources()
	for _, r := range custom {
		r.Custom = r.Group != ""
	}
	cs := newTestServer(t, Options{Resources: custom})
	for _, tt := range []recorded{
		{method: "GET", path: "/apis/test.apisem.dev/v9/gadgets", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/apis/test.apisem.dev/v1/configmaps", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/apis/test.apisem.dev/v1/namespaces/default/gadgetsx", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/apis/test.apisem.dev/v9", code: 404, ctype: textPlain, want: recordedPage404},
		{method: "GET", path: "/api/v2", code: 404, want: recordedJSON404},
	} {
		tt.check(t, cs)
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

// serve sends one request to s and returns the response.
func serve(s http.Handler, method, path, ctype, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// A DeleteOptions body of another kind is a 400 (kube-apiserver 1.37.1,
// DELETE .../configmaps/wk with each body; a kind the options scheme
// knows fails to convert, any other is not registered).
func TestRecordedDeleteOptionsKind(t *testing.T) {
	s := newTestServer(t, Options{})
	bad := func(msg string) string {
		return `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":` + msg + `,"reason":"BadRequest","code":400}` + "\n"
	}
	const path = "/apis/test.apisem.dev/v1/namespaces/default/gadgets/none"
	notFound := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"gadgets.test.apisem.dev \"none\" not found","reason":"NotFound","details":{"name":"none","group":"test.apisem.dev","kind":"gadgets"},"code":404}` + "\n"
	for _, tt := range []struct{ body, want string }{
		{`{"kind":"ConfigMap","apiVersion":"v1"}`, bad(`"no kind \"ConfigMap\" is registered for version \"v1\" in scheme \"pkg/runtime/scheme.go:111\""`)},
		{`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"x"}}`, bad(`"no kind \"Pod\" is registered for version \"v1\" in scheme \"pkg/runtime/scheme.go:111\""`)},
		{`{"kind":"Foo","apiVersion":"example.com/v1"}`, bad(`"no kind \"Foo\" is registered for version \"example.com/v1\" in scheme \"pkg/runtime/scheme.go:111\""`)},
		{`{"kind":"Foo"}`, bad(`"no kind \"Foo\" is registered for version \"meta.k8s.io/v1\" in scheme \"pkg/runtime/scheme.go:111\""`)},
		{`{"kind":"Status","apiVersion":"v1"}`, bad(`"converting (v1.Status) to (v1.DeleteOptions): unknown conversion"`)},
		{`{"kind":"ListOptions","apiVersion":"v1"}`, bad(`"no kind \"ListOptions\" is registered for version \"v1\" in scheme \"pkg/runtime/scheme.go:111\""`)},
		{`{"kind":"ListOptions","apiVersion":"meta.k8s.io/v1"}`, bad(`"converting (v1.ListOptions) to (v1.DeleteOptions): unknown conversion"`)},
		{`{"kind":"ListOptions"}`, bad(`"converting (v1.ListOptions) to (v1.DeleteOptions): unknown conversion"`)},
		{`{"kind":"CreateOptions","apiVersion":"v1"}`, bad(`"converting (v1.CreateOptions) to (v1.DeleteOptions): unknown conversion"`)},
		{`{"kind":"PatchOptions","apiVersion":"meta.k8s.io/v1beta1"}`, bad(`"no kind \"PatchOptions\" is registered for version \"meta.k8s.io/v1beta1\" in scheme \"pkg/runtime/scheme.go:111\""`)},
		{`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1beta1"}`, bad(`"converting (v1beta1.PartialObjectMetadataList) to (v1.DeleteOptions): unknown conversion"`)},
		{`{"kind":"APIGroup","apiVersion":"meta.k8s.io/v1beta1"}`, bad(`"converting (v1.APIGroup) to (v1.DeleteOptions): unknown conversion"`)},
		{`{"kind":"ExportOptions","apiVersion":"meta.k8s.io/v1"}`, bad(`"no kind \"ExportOptions\" is registered for version \"meta.k8s.io/v1\" in scheme \"pkg/runtime/scheme.go:111\""`)},
		// Fine: the deletion goes on (to the 404 of an object that is not there).
		{`{"apiVersion":"v1"}`, notFound},
		{`{"kind":"DeleteOptions","apiVersion":"apps/v1"}`, notFound},
		{`{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1"}`, notFound},
		{`{"propagationPolicy":"Background","foo":1}`, notFound},
	} {
		w := serve(s, "DELETE", path, "application/json", tt.body)
		if w.Body.String() != tt.want {
			t.Errorf("DELETE with %s: %d %s\nwant %s", tt.body, w.Code, w.Body, tt.want)
		}
	}
	// In protobuf too: the envelope's kind (apiVersion v1, kind Pod).
	w := serve(s, "DELETE", path, "application/vnd.kubernetes.protobuf", "k8s\x00\x0a\x09\x0a\x02v1\x12\x03Pod\x12\x00")
	if want := bad(`"no kind \"Pod\" is registered for version \"v1\" in scheme \"pkg/runtime/scheme.go:111\""`); w.Body.String() != want {
		t.Errorf("DELETE with a protobuf Pod: %d %s\nwant %s", w.Code, w.Body, want)
	}
}

// With a garbage collector (Options.GarbageCollection), propagationPolicy
// Foreground or Orphan marks the object with the collector's finalizer
// and answers 200 with it; the write that removes the last finalizer
// answers with the object without it (at its last resourceVersion), and
// the object is gone. kube-apiserver 1.37.1 answered
//
//	DELETE .../configmaps/fg?propagationPolicy=Foreground => 200 {"kind":"ConfigMap",...,"resourceVersion":"349",
//	  "deletionTimestamp":"...","deletionGracePeriodSeconds":0,"finalizers":["foregroundDeletion"],...}
//	DELETE .../configmaps/or {"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"} => 200, "finalizers":["orphan"]
//	DELETE .../configmaps/bg?orphanDependents=true => 200, "finalizers":["orphan"]
//	PATCH .../configmaps/fg {"metadata":{"finalizers":null}} => 200, the object without finalizers, "resourceVersion":"349"; then GET => 404
//	DELETE .../configmaps/or?propagationPolicy=Background => 200 {"kind":"Status",...,"status":"Success",...}
//	DELETE .../widgets/f?propagationPolicy=Foreground => 200, the Widget with "finalizers":["foregroundDeletion"],"generation":2
func TestRecordedDeletePropagation(t *testing.T) {
	type meta struct {
		Kind     string `json:"kind"`
		Status   string `json:"status"`
		Metadata struct {
			ResourceVersion            string   `json:"resourceVersion"`
			DeletionTimestamp          *string  `json:"deletionTimestamp"`
			DeletionGracePeriodSeconds *int64   `json:"deletionGracePeriodSeconds"`
			Finalizers                 []string `json:"finalizers"`
			Generation                 int64    `json:"generation"`
		} `json:"metadata"`
	}
	const col = "/apis/test.apisem.dev/v1/namespaces/default/gadgets"
	for _, gc := range []bool{true, false} {
		s := newTestServer(t, Options{GarbageCollection: gc})
		create := func(name string) {
			if w := serve(s, "POST", col, "application/json", `{"metadata":{"name":"`+name+`"}}`); w.Code != 201 {
				t.Fatalf("create %s: %d %s", name, w.Code, w.Body)
			}
		}
		del := func(path, body string) (int, meta) {
			ctype := ""
			if body != "" {
				ctype = "application/json"
			}
			w := serve(s, "DELETE", col+"/"+path, ctype, body)
			var m meta
			if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
				t.Fatalf("DELETE %s: %v: %s", path, err, w.Body)
			}
			return w.Code, m
		}
		for _, tt := range []struct {
			name, query, body string
			finalizer         string
		}{
			{"fg", "?propagationPolicy=Foreground", "", "foregroundDeletion"},
			{"or", "", `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"}`, "orphan"},
			{"bg", "?orphanDependents=true", "", "orphan"},
		} {
			create(tt.name)
			code, m := del(tt.name+tt.query, tt.body)
			if !gc {
				if code != 200 || m.Kind != "Status" || m.Status != "Success" {
					t.Errorf("without a collector, DELETE %s%s: %d %+v; want the Status of a deletion", tt.name, tt.query, code, m)
				}
				continue
			}
			md := m.Metadata
			if code != 200 || m.Kind != "Gadget" || md.DeletionTimestamp == nil || md.DeletionGracePeriodSeconds == nil ||
				*md.DeletionGracePeriodSeconds != 0 || len(md.Finalizers) != 1 || md.Finalizers[0] != tt.finalizer {
				t.Errorf("DELETE %s%s %s: %d %+v; want the Gadget marked with %s", tt.name, tt.query, tt.body, code, m, tt.finalizer)
			}
		}
		if !gc {
			continue
		}
		// The write that removes the last finalizer.
		w := serve(s, "GET", col+"/fg", "", "")
		var before meta
		json.Unmarshal(w.Body.Bytes(), &before)
		w = serve(s, "PATCH", col+"/fg", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
		var after meta
		json.Unmarshal(w.Body.Bytes(), &after)
		if w.Code != 200 || after.Kind != "Gadget" || after.Metadata.Finalizers != nil || after.Metadata.DeletionTimestamp == nil ||
			after.Metadata.ResourceVersion != before.Metadata.ResourceVersion {
			t.Errorf("PATCH removing the last finalizer: %d %s; want the object without it at resourceVersion %s",
				w.Code, w.Body, before.Metadata.ResourceVersion)
		}
		if w := serve(s, "GET", col+"/fg", "", ""); w.Code != 404 {
			t.Errorf("GET after the last finalizer went: %d", w.Code)
		}
		// Background takes the collector's finalizers away: nothing holds it.
		if code, m := del("or?propagationPolicy=Background", ""); code != 200 || m.Kind != "Status" || m.Status != "Success" {
			t.Errorf("Background on an object held by orphan: %d %+v; want the Status of a deletion", code, m)
		}
		// Foreground on an object already marked by orphan swaps them.
		if code, m := del("bg?propagationPolicy=Foreground", ""); code != 200 || len(m.Metadata.Finalizers) != 1 || m.Metadata.Finalizers[0] != "foregroundDeletion" {
			t.Errorf("Foreground on an object held by orphan: %d %+v", code, m)
		}
	}
}

// kube-apiserver's router (go-restful) checks a built-in resource's
// Accept header, and a patch's Content-Type, before its handler: each
// entry without parameters must equal a type the route produces or
// consumes, case included (GET .../configmaps/acc and .../configmaps with
// Accept: application/*, ?watch=1 with text/html, POST, PATCH, DELETE
// and deletecollection with application/*, PATCH with Content-Type
// text/plain, none, application/json or Application/merge-patch+json;
// a custom resource's list with application/* is a 200).
func TestRecordedRouterMediaTypes(t *testing.T) {
	custom := testResources()
	for _, r := range custom {
		r.Custom = r.Group != ""
	}
	builtin := newTestServer(t, Options{})
	cr := newTestServer(t, Options{Resources: custom})
	const (
		obj   = "/apis/test.apisem.dev/v1/namespaces/default/gadgets/acc"
		col   = "/apis/test.apisem.dev/v1/namespaces/default/gadgets"
		n406  = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"NotAcceptable","details":{},"code":406}` + "\n"
		n406s = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch","reason":"NotAcceptable","details":{},"code":406}` + "\n"
		u415  = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"415: Unsupported Media Type","reason":"UnsupportedMediaType","details":{},"code":415}` + "\n"
	)
	// Written indented where the Accept header names nothing the error
	// could be written in, as kube-apiserver's WriteRawJSON does.
	indented406 := "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n" +
		"  \"message\": \"406: Not Acceptable\\n\\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch\",\n" +
		"  \"reason\": \"NotAcceptable\",\n  \"details\": {},\n  \"code\": 406\n}"
	if w := serve(builtin, "POST", col, "application/json", `{"metadata":{"name":"acc"}}`); w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	for _, tt := range []recorded{
		{method: "GET", path: obj, code: 406, want: n406, header: []string{"Accept", "application/*"}},
		{method: "GET", path: col, code: 406, want: n406s, header: []string{"Accept", "application/*"}},
		{method: "GET", path: col + "?watch=1", code: 406, want: indented406, header: []string{"Accept", "text/html"}},
		{method: "POST", path: col, body: `{"metadata":{"name":"acc2"}}`, code: 406, want: n406, header: []string{"Accept", "application/*"}},
		{method: "PATCH", path: obj, body: `{}`, code: 406, want: n406, header: []string{"Accept", "application/*", "Content-Type", "application/merge-patch+json"}},
		{method: "DELETE", path: obj, code: 406, want: n406, header: []string{"Accept", "application/*"}},
		{method: "DELETE", path: col + "?labelSelector=x%3Dy", code: 406, want: n406, header: []string{"Accept", "application/*"}},
		{method: "PATCH", path: obj, body: `{}`, code: 415, want: u415, header: []string{"Content-Type", "text/plain", "Accept", "application/*"}},
		{method: "PATCH", path: obj, body: `{}`, code: 415, want: u415, header: []string{"Content-Type", "application/json"}},
		{method: "PATCH", path: obj, body: `{}`, code: 415, want: u415, header: []string{"Content-Type", "Application/merge-patch+json"}},
		{method: "PATCH", path: obj, body: `{}`, code: 415, want: u415, header: []string{"Content-Type", ""}},
	} {
		tt.check(t, builtin)
	}
	// Accepted: parameters are cut off; one entry in a list will do.
	for _, h := range [][]string{
		{"Content-Type", "application/merge-patch+json; charset=utf-8"},
		{"Content-Type", "application/merge-patch+json", "Accept", "text/html, application/json;as=Table;g=meta.k8s.io;v=v1"},
	} {
		r := httptest.NewRequest("PATCH", obj, strings.NewReader(`{}`))
		for i := 0; i+1 < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
		w := httptest.NewRecorder()
		builtin.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Errorf("PATCH with %q: %d %s", h, w.Code, w.Body)
		}
	}
	// A custom resource's handler takes application/* (JSON).
	if w := serve(cr, "GET", col, "", ""); w.Code != 200 {
		t.Fatalf("list: %d", w.Code)
	}
	r := httptest.NewRequest("GET", col, nil)
	r.Header.Set("Accept", "application/*")
	w := httptest.NewRecorder()
	cr.ServeHTTP(w, r)
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("custom resource list with application/*: %d %s", w.Code, w.Body)
	}
}
