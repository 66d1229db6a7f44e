package demo

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Discovery answers as an unaggregated Kubernetes server
// (k8s.io/apiserver/pkg/endpoints/discovery), byte for byte: the
// storageVersionHash values are kube-apiserver 1.37's, and a group
// version's resources are sorted by name.
func TestDiscovery(t *testing.T) {
	_, base := newTestServer(t, Options{})
	host := strings.TrimPrefix(base, "http://")
	const verbs = `"verbs":["create","delete","deletecollection","get","list","patch","update","watch"]`
	for _, tt := range []struct{ path, want string }{
		{"/api", `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"` + host + `"}]}`},
		{"/api/v1", `{"kind":"APIResourceList","groupVersion":"v1","resources":[` +
			`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap",` + verbs + `,"shortNames":["cm"],"storageVersionHash":"qFsyl6wFWjQ="},` +
			`{"name":"events","singularName":"event","namespaced":true,"kind":"Event",` + verbs + `,"shortNames":["ev"],"storageVersionHash":"r2yiGXH7wu8="},` +
			`{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace",` +
			`"verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"],"storageVersionHash":"Q3oi5N2YM8M="},` +
			`{"name":"namespaces/finalize","singularName":"","namespaced":false,"kind":"Namespace","verbs":["update"]},` +
			`{"name":"namespaces/status","singularName":"","namespaced":false,"kind":"Namespace","verbs":["get","patch","update"]},` +
			`{"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret",` + verbs + `,"storageVersionHash":"S6u1pOWzb84="}]}`},
		{"/apis", `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apiextensions.k8s.io","versions":[{"groupVersion":"apiextensions.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apiextensions.k8s.io/v1","version":"v1"}},{"name":"example.apisem.dev","versions":[{"groupVersion":"example.apisem.dev/v1","version":"v1"}],"preferredVersion":{"groupVersion":"example.apisem.dev/v1","version":"v1"}}]}`},
		{"/apis/example.apisem.dev", `{"kind":"APIGroup","apiVersion":"v1","name":"example.apisem.dev","versions":[{"groupVersion":"example.apisem.dev/v1","version":"v1"}],"preferredVersion":{"groupVersion":"example.apisem.dev/v1","version":"v1"}}`},
		{"/apis/example.apisem.dev/v1", `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"example.apisem.dev/v1","resources":[` +
			`{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget",` + verbs + `,"shortNames":["wd"],"categories":["all"],"storageVersionHash":"xAgbw+S4sYA="},` +
			`{"name":"widgets/status","singularName":"","namespaced":true,"kind":"Widget","verbs":["get","patch","update"]}]}`},
	} {
		// Clients that ask for plain JSON get the unaggregated documents
		// (the aggregated form is tested in package server).
		r := must(t, 200, base, "GET", tt.path, "", "Accept", "application/json")
		if r.body != tt.want+"\n" {
			t.Errorf("GET %s:\n%s\nwant\n%s", tt.path, r.body, tt.want)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("GET %s: Content-Type %q", tt.path, ct)
		}
	}
	v := must(t, 200, base, "GET", "/version", "")
	if field(t, v.body, "gitVersion") != "v1.37.0+apisem" || field(t, v.body, "major") != "1" || field(t, v.body, "minor") != "37" {
		t.Errorf("/version: %s", v.body)
	}
}

// URLs follow the spec's "Resource URIs"; everything else is a Status 404
// or 405 rather than a guess.
func TestRouting(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	const notFound = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}` + "\n"
	for _, tt := range []struct {
		method, path string
		code         int
		body         string // exact, when set
	}{
		{"GET", "/api/v1/namespaces/ns1/configmaps/cm", 200, ""},
		{"GET", "/api/v1/configmaps", 200, ""},
		{"GET", "/api/v1/namespaces/ns1/configmaps/", 200, ""},
		{"GET", "/api/v1/namespaces/ns1", 200, ""},
		{"GET", "/api/v1/namespaces/ns1/status", 200, ""}, // as a cluster serves it
		{"GET", "/apis/example.apisem.dev/v1/namespaces/ns1/widgets", 200, ""},
		{"GET", "/apis/example.apisem.dev/v1/widgets", 200, ""},
		{"GET", "/api/v1/watch/namespaces/ns1/configmaps/cm?timeoutSeconds=1", 200, ""},

		{"GET", "/", 200, ""}, // the served paths, as a cluster lists its own
		// Outside the API and in groups not served, a cluster's answer is
		// Go's plain text.
		{"GET", "/healthz/etcd", 404, "404 page not found\n"},
		{"GET", "/api/v2", 404, notFound},
		{"GET", "/api/v1/pods", 404, notFound},
		{"GET", "/apis/apps/v1", 404, "404 page not found\n"},
		{"GET", "/apis/example.apisem.dev/v2/widgets", 404, notFound},
		{"GET", "/apis/example.apisem.dev/v1/configmaps", 404, notFound},
		{"GET", "/api/v1/widgets", 404, notFound},
		{"GET", "/api/v1/configmaps/cm", 404, notFound},
		{"GET", "/api/v1/namespaces/ns1/configmaps/cm/status", 404, notFound},
		{"PUT", "/api/v1/namespaces/ns1/finalize", 400, ""}, // served: the empty body is no Namespace
		{"GET", "/api/v1/namespaces/ns1/configmaps/cm/x/y", 404, notFound},
		{"GET", "/api/v1//configmaps", 404, notFound},
		{"GET", "/api/v1/namespaces/ns1/namespaces/x", 404, notFound},

		{"POST", "/api/v1/configmaps", 405, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}` + "\n"},
		{"DELETE", "/api/v1/configmaps", 405, ""},
		{"PUT", "/api/v1/namespaces/ns1/configmaps", 405, ""},
		{"PATCH", "/api/v1/namespaces/ns1/configmaps", 405, ""},
		{"POST", "/api/v1/namespaces/ns1/configmaps/cm", 405, ""},
		{"OPTIONS", "/api/v1/namespaces/ns1/configmaps/cm", 405, ""},
		{"POST", "/api/v1/watch/namespaces/ns1/configmaps", 405, ""},
		{"POST", "/api/v1", 405, ""},
	} {
		r := call(t, base, tt.method, tt.path, "")
		if r.code != tt.code || tt.body != "" && r.body != tt.body {
			t.Errorf("%s %s: %d %s; want %d %s", tt.method, tt.path, r.code, r.body, tt.code, tt.body)
		}
	}
}

// /openapi/v3 lists a document per group version, and each resource's
// PATCH operation names the fieldValidation parameter, which is what
// kubectl checks before it sends fieldValidation=Strict.
func TestOpenAPI(t *testing.T) {
	_, base := newTestServer(t, Options{})
	root := must(t, 200, base, "GET", "/openapi/v3", "")
	paths, _ := field(t, root.body, "paths").(map[string]any)
	if len(paths) != 3 || paths["api/v1"] == nil || paths["apis/example.apisem.dev/v1"] == nil || paths["apis/apiextensions.k8s.io/v1"] == nil {
		t.Fatalf("/openapi/v3: %s", root.body)
	}
	for p, ref := range paths {
		url := ref.(map[string]any)["serverRelativeURL"].(string)
		if !strings.HasPrefix(url, "/openapi/v3/"+p+"?hash=") {
			t.Errorf("%s: serverRelativeURL %s", p, url)
		}
		doc := must(t, 200, base, "GET", url, "")
		ops := field(t, doc.body, "paths").(map[string]any)
		found := 0
		for path, o := range ops {
			patch, ok := o.(map[string]any)["patch"].(map[string]any)
			if !ok {
				continue
			}
			found++
			var names []string
			for _, prm := range patch["parameters"].([]any) {
				names = append(names, prm.(map[string]any)["name"].(string))
			}
			gvk := patch["x-kubernetes-group-version-kind"].(map[string]any)
			if !strings.Contains(strings.Join(names, ","), "fieldValidation") || gvk["kind"] == "" {
				t.Errorf("%s PATCH: parameters %v, gvk %v", path, names, gvk)
			}
			// kubectl apply computes strategic merge patches from the
			// schemas of the kinds whose PATCH accepts them: the built-in
			// kinds, not the custom resource.
			content := patch["requestBody"].(map[string]any)["content"].(map[string]any)
			if _, smp := content["application/strategic-merge-patch+json"]; smp != (gvk["group"] != "example.apisem.dev") {
				t.Errorf("%s PATCH: request body types %v", path, content)
			}
		}
		if want := map[string]int{"api/v1": 5, "apis/example.apisem.dev/v1": 2, "apis/apiextensions.k8s.io/v1": 2}[p]; found != want { // each with its status
			t.Errorf("%s: %d PATCH operations; want %d", p, found, want)
		}
	}
	must(t, 404, base, "GET", "/openapi/v3/apis/apps/v1", "")
	must(t, 200, base, "GET", "/openapi/v2", "")
}

// Shutdown stops every goroutine New started (broadcasters, the namespace
// controller) and ends open watches.
func TestShutdownLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	must(t, 201, hs.URL, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	w := openWatch(t, hs.URL, "/api/v1/namespaces?watch=1")
	if e := w.next(); e.Type != "ADDED" {
		t.Fatalf("first event %s", e.Type)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The watch ends: its response is over.
	if _, err := w.lines.ReadBytes('\n'); err == nil {
		t.Errorf("the watch is still open after Shutdown")
	}
	must(t, 503, hs.URL, "GET", "/api/v1/namespaces", "")
	w.close()
	hs.Close()
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Shutdown, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
