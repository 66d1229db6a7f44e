package server

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/store/selector"
	"github.com/apisem/apisem/watch"
)

// A watch's initial events read only the keys its namespace and a
// metadata.name or metadata.namespace field selector leave (watchKeys),
// and are the same as the whole collection's, filtered.
func TestWatchKeys(t *testing.T) {
	cm := &Resource{Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList", Plural: "configmaps", Singular: "configmap",
		Namespaced: true, New: func() Object { return &configMap{} }}
	nodes := &Resource{Version: "v1", Kind: "Node", ListKind: "NodeList", Plural: "nodes", Singular: "node",
		New: func() Object { return &configMap{} }}
	s := newTestServer(t, Options{Resources: []*Resource{cm, nodes}})
	for _, p := range []string{"/api/v1/namespaces/a/configmaps", "/api/v1/namespaces/b/configmaps", "/api/v1/nodes"} {
		for _, n := range []string{"x", "xy"} {
			r := httptest.NewRequest("POST", p, strings.NewReader(`{"metadata":{"name":"`+n+`"}}`))
			r.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
		}
	}

	rs := s.reg.Load().byDef
	fields := func(sel string) selector.Fields {
		f, err := selector.ParseFields(sel)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	one := func(k string) watch.KeyRange { return watch.KeyRange{Start: k, End: k + "\x00"} }
	all := func(p string) watch.KeyRange { return watch.KeyRange{Start: p, End: store.PrefixEnd(p)} }
	c, n := rs[cm], rs[nodes]
	for _, tc := range []struct {
		rs   *resource
		ns   string
		sel  string
		want watch.KeyRange
	}{
		{c, "a", "metadata.name=x", one(c.store.Key("a", "x"))},
		{c, "", "metadata.name=x", all(c.store.Prefix(""))},
		{c, "", "metadata.name=x,metadata.namespace=b", one(c.store.Key("b", "x"))},
		{c, "", "metadata.namespace=b", all(c.store.Prefix("b"))},
		{c, "a", "", all(c.store.Prefix("a"))},
		{c, "a", "metadata.name!=x", all(c.store.Prefix("a"))},
		{n, "", "metadata.name=x", one(n.store.Key("", "x"))},
		{n, "", "", all(n.store.Prefix(""))},
	} {
		if got := watchKeys(tc.rs, tc.ns, fields(tc.sel)); got != tc.want {
			t.Errorf("%s %q %q: %q; want %q", tc.rs.gr, tc.ns, tc.sel, got, tc.want)
		}
	}

	// The initial events, in key order.
	added := regexp.MustCompile(`"type":"ADDED","object":\{"kind":"[A-Za-z]+","apiVersion":"v1","metadata":\{"name":"([a-z]+)"(?:,"namespace":"([a-z]+)")?`)
	for _, tc := range []struct{ path, want string }{
		{"/api/v1/namespaces/a/configmaps?fieldSelector=metadata.name%3Dx", "a/x"},
		{"/api/v1/configmaps?fieldSelector=metadata.name%3Dx", "a/x b/x"},
		{"/api/v1/configmaps?fieldSelector=metadata.namespace%3Db", "b/x b/xy"},
		{"/api/v1/configmaps?fieldSelector=metadata.namespace%3Db,metadata.name%3Dxy", "b/xy"},
		{"/api/v1/namespaces/a/configmaps?fieldSelector=metadata.namespace%3Db", ""},
		{"/api/v1/nodes?fieldSelector=metadata.name%3Dxy", "/xy"},
		{"/api/v1/watch/namespaces/b/configmaps/x", "b/x"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			path := tc.path
			if strings.Contains(path, "?") {
				path += "&watch=1&timeoutSeconds=1"
			} else {
				path += "?timeoutSeconds=1"
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
			if w.Code != http.StatusOK {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			var got []string
			for _, m := range added.FindAllStringSubmatch(w.Body.String(), -1) {
				got = append(got, m[2]+"/"+m[1])
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("initial events %v; want %s\n%s", got, tc.want, w.Body)
			}
		})
	}
}
