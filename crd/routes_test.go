package crd

import (
	"strings"
	"testing"

	"github.com/apisem/apisem/server/servertest"
)

// routeAnswer is one request to a custom resource and what kube-apiserver
// 1.37.1 answered it (../shared/reference, with testdata/definitions/widgets.yaml and
// gizmosCRD installed, the widget w1 in the namespace demo and no other
// objects). The body is the whole answer, or, for a 2xx, a part of it.
type routeAnswer struct {
	method, path, body string
	code               int
	ctype              string
	want               string
}

// gizmosCRD is a cluster-scoped definition without subresources, with a
// version that is not served.
const gizmosCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.example.com"},` +
	`"spec":{"group":"example.com","scope":"Cluster","names":{"plural":"gizmos","singular":"gizmo","kind":"Gizmo","listKind":"GizmoList"},` +
	`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},` +
	`{"name":"v1beta1","served":false,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

func statusJSON(code, reason, msg, details string) string {
	s := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":` + msg + `,"reason":"` + reason + `",`
	if details != "" {
		s += `"details":` + details + `,`
	}
	return s + `"code":` + code + "}\n"
}

// TestRecordedRoutes checks the answers apiextensions-apiserver's handler
// gives where its routing differs from built-ins': a subresource the
// definition lacks is the 404 of the object's name; a verb that status
// and scale do not take is a 405 naming the verb; a path of the other
// scope, and every write to a namespaced resource's all-namespaces path,
// is passed on to the plain-text 404; a PUT or PATCH of a collection is
// the 400 `name must be provided`; HEAD is a get; a POST to an object's
// path creates the body's object; under /watch/ every method watches;
// segments after the subresource are not read.
func TestRecordedRoutes(t *testing.T) {
	s, c, url := newServer(t)
	for name, def := range map[string]string{"widgets.example.com": widgetCRD(t), "gizmos.example.com": gizmosCRD} {
		do(t, "POST", url+crdsURL, def, 201)
		waitFor(t, s, name+" established", func() bool {
			d, err := c.WaitEstablished(t.Context(), name)
			return err == nil && d.IsEstablished()
		})
	}
	const (
		ns      = "/apis/example.com/v1/namespaces/demo/widgets"
		widget  = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"b"},"spec":{"color":"red"}}`
		gizmo   = `{"apiVersion":"example.com/v1","kind":"Gizmo","metadata":{"name":"g"}}`
		page404 = "404 page not found\n"
		plain   = "text/plain; charset=utf-8"
	)
	do(t, "POST", url+ns, strings.Replace(widget, `"b"`, `"w1"`, 1), 201)
	notFound := func(plural, name string) string {
		return statusJSON("404", "NotFound", `"`+plural+`.example.com \"`+name+`\" not found"`,
			`{"name":"`+name+`","group":"example.com","kind":"`+plural+`"}`)
	}
	notSupported := func(verb string) string {
		return statusJSON("405", "MethodNotAllowed", `"`+verb+` is not supported on resources of kind \"widgets.example.com\""`,
			`{"group":"example.com","kind":"widgets"}`)
	}
	nameRequired := statusJSON("400", "BadRequest", `"name must be provided"`, "")
	for _, tt := range []routeAnswer{
		// A subresource the definition does not have.
		{method: "GET", path: ns + "/a/foo", code: 404, want: notFound("widgets", "a")},
		{method: "POST", path: ns + "/a/foo", body: widget, code: 404, want: notFound("widgets", "a")},
		{method: "PUT", path: ns + "/a/foo", body: widget, code: 404, want: notFound("widgets", "a")},
		{method: "PATCH", path: ns + "/a/foo", body: "{}", code: 404, want: notFound("widgets", "a")},
		{method: "DELETE", path: ns + "/a/foo", code: 404, want: notFound("widgets", "a")},
		{method: "GET", path: ns + "/w1/foo", code: 404, want: notFound("widgets", "w1")},
		{method: "GET", path: "/apis/example.com/v1/gizmos/a/status", code: 404, want: notFound("gizmos", "a")},
		{method: "GET", path: "/apis/example.com/v1/gizmos/a/scale", code: 404, want: notFound("gizmos", "a")},
		{method: "DELETE", path: "/apis/example.com/v1/gizmos/a/status", code: 404, want: notFound("gizmos", "a")},
		{method: "GET", path: "/apis/example.com/v1/watch/namespaces/demo/widgets/a/foo", code: 404, want: notFound("widgets", "a")},
		// Segments after the subresource are not read.
		{method: "GET", path: ns + "/a/status/x", code: 404, want: notFound("widgets", "a")},
		{method: "GET", path: ns + "/w1/status/x", code: 200, want: `"name":"w1"`},
		// Verbs status and scale do not take; methods with no verb.
		{method: "DELETE", path: ns + "/a/status", code: 405, want: notSupported("delete")},
		{method: "POST", path: ns + "/a/status", body: widget, code: 405, want: notSupported("create")},
		{method: "DELETE", path: ns + "/a/scale", code: 405, want: notSupported("delete")},
		{method: "GET", path: "/apis/example.com/v1/watch/namespaces/demo/widgets/a/status", code: 405, want: notSupported("watch")},
		{method: "OPTIONS", path: ns + "/a", code: 405, want: notSupported("")},
		{method: "OPTIONS", path: ns, code: 405, want: notSupported("")},
		// A collection's PUT and PATCH.
		{method: "PUT", path: ns, body: widget, code: 400, want: nameRequired},
		{method: "PATCH", path: ns, body: "{}", code: 400, want: nameRequired},
		{method: "PUT", path: "/apis/example.com/v1/gizmos", body: gizmo, code: 400, want: nameRequired},
		{method: "PATCH", path: "/apis/example.com/v1/gizmos", body: "{}", code: 400, want: nameRequired},
		// Paths of the other scope, writes to all namespaces, versions
		// and resources not served: passed on.
		{method: "POST", path: "/apis/example.com/v1/widgets", body: widget, code: 404, ctype: plain, want: page404},
		{method: "PUT", path: "/apis/example.com/v1/widgets", body: widget, code: 404, ctype: plain, want: page404},
		{method: "PATCH", path: "/apis/example.com/v1/widgets", body: "{}", code: 404, ctype: plain, want: page404},
		{method: "DELETE", path: "/apis/example.com/v1/widgets", code: 404, ctype: plain, want: page404},
		{method: "GET", path: "/apis/example.com/v1/widgets/a", code: 404, ctype: plain, want: page404},
		{method: "PUT", path: "/apis/example.com/v1/widgets/a", body: widget, code: 404, ctype: plain, want: page404},
		{method: "GET", path: "/apis/example.com/v1/widgets/a/status", code: 404, ctype: plain, want: page404},
		{method: "GET", path: "/apis/example.com/v1/namespaces/demo/gizmos/a", code: 404, ctype: plain, want: page404},
		{method: "POST", path: "/apis/example.com/v1/namespaces/demo/gizmos", body: gizmo, code: 404, ctype: plain, want: page404},
		{method: "GET", path: "/apis/example.com/v1beta1/gizmos/a", code: 404, ctype: plain, want: page404},
		{method: "GET", path: "/apis/example.com/v2/gizmos", code: 404, ctype: plain, want: page404},
		{method: "GET", path: "/apis/example.com/v1/foos/x", code: 404, ctype: plain, want: page404},
		{method: "POST", path: "/apis/example.com/v1/foos", body: "{}", code: 404, ctype: plain, want: page404},
		// HEAD is a get.
		{method: "HEAD", path: ns + "/a", code: 404},
		{method: "HEAD", path: ns + "/w1", code: 200},
		// A POST to an object's path creates the body's object.
		{method: "POST", path: ns + "/c", body: widget, code: 201, want: `"name":"b","namespace":"demo"`},
		{method: "POST", path: "/apis/example.com/v1/gizmos/zz", body: gizmo, code: 201, want: `"name":"g"`},
		{method: "POST", path: ns + "/c", body: `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"color":"red"}}`, code: 422,
			want: statusJSON("422", "Invalid", `"Widget.example.com \"\" is invalid: metadata.name: Required value: name or generateName is required"`,
				`{"group":"example.com","kind":"Widget","causes":[{"reason":"FieldValueRequired","message":"Required value: name or generateName is required","field":"metadata.name"}]}`)},
		// Under /watch/ every method watches.
		{method: "PUT", path: "/apis/example.com/v1/watch/namespaces/demo/widgets/b?timeoutSeconds=1", body: widget, code: 200,
			want: `{"type":"ADDED","object":{"apiVersion":"example.com/v1","kind":"Widget",`},
		{method: "DELETE", path: "/apis/example.com/v1/watch/namespaces/demo/widgets?timeoutSeconds=1", code: 200,
			want: `{"type":"ADDED","object":{"apiVersion":"example.com/v1","kind":"Widget",`},
	} {
		ctype := "application/json"
		if tt.method == "PATCH" {
			ctype = "application/merge-patch+json"
		}
		r := servertest.Do(t, tt.method, url+tt.path, tt.body, "Content-Type", ctype, "User-Agent", "recorded")
		wantType := tt.ctype
		if wantType == "" {
			wantType = "application/json"
		}
		ok := r.Code == tt.code && r.Header.Get("Content-Type") == wantType
		switch {
		case tt.method == "HEAD":
		case tt.code < 300:
			ok = ok && strings.Contains(r.Body, tt.want)
		default:
			ok = ok && r.Body == tt.want
		}
		if !ok {
			t.Errorf("%s %s: %d %s %q\nwant %d %s %q", tt.method, tt.path, r.Code, r.Header.Get("Content-Type"), r.Body, tt.code, wantType, tt.want)
		}
	}
}
