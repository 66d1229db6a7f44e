package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apisem/apisem/auth"
	"github.com/google/go-cmp/cmp"
)

// TestRequestAttributes: the rows of Kubernetes' RequestInfoFactory
// tests (k8s.io/apiserver/pkg/endpoints/request/requestinfo_test.go),
// and each row's agreement with the router where it finds a target.
func TestRequestAttributes(t *testing.T) {
	type A = auth.Attributes
	res := func(verb, group, version, resource, sub, ns, name string) A {
		return A{Verb: verb, ResourceRequest: true, Group: group, Version: version, Resource: resource,
			Subresource: sub, Namespace: ns, Name: name}
	}
	tests := []struct {
		method, url string
		want        A
	}{
		{"GET", "/api/v1/namespaces", res("list", "", "v1", "namespaces", "", "", "")},
		{"GET", "/api/v1/namespaces/other", res("get", "", "v1", "namespaces", "", "other", "other")},
		{"GET", "/api/v1/namespaces/other/status", res("get", "", "v1", "namespaces", "status", "other", "other")},
		{"PUT", "/api/v1/namespaces/other/finalize", res("update", "", "v1", "namespaces", "finalize", "other", "other")},
		{"GET", "/api/v1/namespaces/other/configmaps", res("list", "", "v1", "configmaps", "", "other", "")},
		{"GET", "/api/v1/namespaces/other/configmaps/foo", res("get", "", "v1", "configmaps", "", "other", "foo")},
		{"HEAD", "/api/v1/namespaces/other/configmaps/foo", res("get", "", "v1", "configmaps", "", "other", "foo")},
		{"GET", "/api/v1/configmaps", res("list", "", "v1", "configmaps", "", "", "")},
		{"GET", "/api/v1/configmaps?watch=true", res("watch", "", "v1", "configmaps", "", "", "")},
		{"GET", "/api/v1/configmaps?watch=1", res("watch", "", "v1", "configmaps", "", "", "")},
		{"GET", "/api/v1/configmaps?watch=false", res("list", "", "v1", "configmaps", "", "", "")},
		{"GET", "/api/v1/configmaps?watch=0&limit=x", res("list", "", "v1", "configmaps", "", "", "")},
		{"GET", "/api/v1/watch/configmaps", res("watch", "", "v1", "configmaps", "", "", "")},
		{"GET", "/api/v1/watch/namespaces/other/configmaps/foo", res("watch", "", "v1", "configmaps", "", "other", "foo")},
		{"GET", "/api/v1/namespaces/other/configmaps?fieldSelector=metadata.name%3Dfoo", res("list", "", "v1", "configmaps", "", "other", "foo")},
		{"GET", "/api/v1/namespaces/other/configmaps?watch=true&fieldSelector=metadata.name%3D%3Dfoo", res("watch", "", "v1", "configmaps", "", "other", "foo")},
		{"GET", "/api/v1/namespaces/other/configmaps?fieldSelector=metadata.name%21%3Dfoo", res("list", "", "v1", "configmaps", "", "other", "")},
		{"GET", "/api/v1/namespaces/other/configmaps?fieldSelector=metadata.name%3D..", res("list", "", "v1", "configmaps", "", "other", "")},
		{"POST", "/api/v1/namespaces/other/configmaps", res("create", "", "v1", "configmaps", "", "other", "")},
		{"PUT", "/api/v1/namespaces/other/configmaps/foo", res("update", "", "v1", "configmaps", "", "other", "foo")},
		{"PATCH", "/api/v1/namespaces/other/configmaps/foo", res("patch", "", "v1", "configmaps", "", "other", "foo")},
		{"DELETE", "/api/v1/namespaces/other/configmaps/foo", res("delete", "", "v1", "configmaps", "", "other", "foo")},
		{"DELETE", "/api/v1/namespaces/other/configmaps", res("deletecollection", "", "v1", "configmaps", "", "other", "")},
		{"GET", "/apis/test.apisem.dev/v1/namespaces/other/gadgets/g/status", res("get", "test.apisem.dev", "v1", "gadgets", "status", "other", "g")},
		{"GET", "/apis/test.apisem.dev/v1/gadgets", res("list", "test.apisem.dev", "v1", "gadgets", "", "", "")},
		{"PATCH", "/apis/test.apisem.dev/v1beta1/namespaces/other/gadgets/g", res("patch", "test.apisem.dev", "v1beta1", "gadgets", "", "other", "g")},
		{"GET", "/api/v1/knobs/k", res("get", "", "v1", "knobs", "", "", "k")},
		{"OPTIONS", "/api/v1/knobs", res("", "", "v1", "knobs", "", "", "")},
		{"GET", "/api/v1/knobs?watch", res("watch", "", "v1", "knobs", "", "", "")},
		{"GET", "/api/v1/watch/knobs/k", res("watch", "", "v1", "knobs", "", "", "k")},
		{"POST", "/api/v1/knobs", res("create", "", "v1", "knobs", "", "", "")},
		{"PUT", "/api/v1/knobs/k", res("update", "", "v1", "knobs", "", "", "k")},
		{"DELETE", "/api/v1/knobs", res("deletecollection", "", "v1", "knobs", "", "", "")},
		{"GET", "/apis/test.apisem.dev/v1/namespaces/other/gadgets?fieldSelector=metadata.name%3Dg", res("list", "test.apisem.dev", "v1", "gadgets", "", "other", "g")},
		{"POST", "/apis/test.apisem.dev/v1/namespaces/other/gadgets", res("create", "test.apisem.dev", "v1", "gadgets", "", "other", "")},
		{"DELETE", "/apis/test.apisem.dev/v1/namespaces/other/gadgets/g", res("delete", "test.apisem.dev", "v1", "gadgets", "", "other", "g")},
		{"DELETE", "/apis/test.apisem.dev/v1/namespaces/other/gadgets", res("deletecollection", "test.apisem.dev", "v1", "gadgets", "", "other", "")},
		// Non-resource requests.
		{"GET", "/api", A{Verb: "get"}},
		{"GET", "/api/v1", A{Verb: "get"}},
		{"POST", "/api/v1", A{Verb: "post"}},
		{"GET", "/apis", A{Verb: "get"}},
		{"GET", "/apis/test.apisem.dev", A{Verb: "get"}},
		{"GET", "/apis/test.apisem.dev/v1", A{Verb: "get"}},
		{"GET", "/version", A{Verb: "get"}},
		{"GET", "/healthz", A{Verb: "get"}},
		{"GET", "/openapi/v3/apis/test.apisem.dev/v1", A{Verb: "get"}},
		{"PUT", "/", A{Verb: "put"}},
	}
	s := newTestServer(t, Options{})
	routedRows := 0
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.url, nil)
		rq := parseRequest(r)
		got := rq.attributes()
		want := tt.want
		want.Path = r.URL.Path
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.method, tt.url, diff)
		}
		// Where the router serves the request, it serves what was
		// authorized.
		if !rq.pathOK || !got.ResourceRequest {
			continue
		}
		tg, err := s.route(tt.method, rq)
		if err != nil {
			continue
		}
		routedRows++
		ns := tg.namespace
		if tg.res.def.Plural == "namespaces" {
			ns = tg.name
		}
		v := string(tg.verb)
		routed := res(v, tg.res.def.Group, tg.res.def.Version, tg.res.def.Plural, tg.sub, ns, tg.name)
		routed.Path = got.Path
		if got.Name != tg.name && tg.name == "" {
			routed.Name = got.Name // a list of one name
		}
		if diff := cmp.Diff(routed, got); diff != "" {
			t.Errorf("%s %s: authorized other than routed (-routed +authorized):\n%s", tt.method, tt.url, diff)
		}
	}
	if routedRows < 12 {
		t.Errorf("only %d rows were compared with the router", routedRows)
	}
}

// TestAuthenticateStripsHeaders: a handler never sees a front proxy's headers,
// whatever the authenticator.
func TestAuthenticateStripsHeaders(t *testing.T) {
	bob := auth.AuthenticatorFunc(func(*http.Request) (auth.User, bool, error) {
		return auth.User{Name: "bob"}, true, nil
	})
	s := newTestServer(t, Options{Security: SecurityOptions{Authenticator: bob}})
	r := httptest.NewRequest("GET", "/api/v1/knobs", nil)
	r.Header.Set("X-Remote-User", "eve")
	r.Header.Set("X-Remote-Group", "system:masters")
	r.Header.Set("x-remote-extra-scopes", "all")
	r.Header.Set("Accept", "application/json")
	got := s.authenticate(httptest.NewRecorder(), r)
	if got == nil {
		t.Fatal("authenticate refused the request")
	}
	if diff := cmp.Diff(http.Header{"Accept": {"application/json"}}, got.Header); diff != "" {
		t.Errorf("headers a handler sees (-want +got):\n%s", diff)
	}
	if u, ok := auth.UserFrom(got.Context()); !ok || u.Name != "bob" {
		t.Errorf("UserFrom = %v, %v; want bob", u, ok)
	}
}
