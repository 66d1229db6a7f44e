package serverstore_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

type configMap struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
}

func (c *configMap) Types() *meta.TypeMeta { return &c.TypeMeta }
func (c *configMap) DeepCopyObject() server.Object {
	d := *c
	c.ObjectMeta.DeepCopyInto(&d.ObjectMeta)
	return &d
}

// On an etcd nobody wrote to, lists and the bookmark that ends a streaming
// list's initial events carry etcd's revision (1), as kube-apiserver's
// answers always carry one (server's TestTranscriptEmptyStore has its
// recorded answers; the in-memory storage starts at 1 to match).
func TestEmptyEtcdResourceVersion(t *testing.T) {
	_, c := newEtcd(t)
	s, err := server.New(server.Options{Storage: serverstore.Storage(serverstore.Options{Client: c}),
		Resources: []*server.Resource{{Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList", Plural: "configmaps",
			Singular: "configmap", Namespaced: true, New: func() server.Object { return &configMap{} }}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	const (
		cms  = "/api/v1/namespaces/x/configmaps"
		list = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}` + "\n"
	)
	for _, tt := range []struct{ path, want string }{
		{cms, list},
		{cms + "?resourceVersion=0", list},
		{cms + "?limit=1", list},
		{cms + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1",
			`{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"1","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"},
	} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", tt.path, nil))
		if w.Code != 200 || w.Body.String() != tt.want {
			t.Errorf("GET %s: %d %s\nwant 200 %s", tt.path, w.Code, w.Body, tt.want)
		}
	}
}

// A deletecollection with limit and continue deletes the page a list with
// the same query answers, at the token's revision, and answers with that
// page as listed, on etcd as in memory (server's
// TestTranscriptDeleteCollectionPage has kube-apiserver's answers).
func TestDeleteCollectionPage(t *testing.T) {
	_, c := newEtcd(t)
	_, base := newServer(t, c)
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	for i := 1; i <= 6; i++ {
		must(t, 201, base, "POST", cms, fmt.Sprintf(`{"metadata":{"name":"c%d"}}`, i))
	}
	first := must(t, 200, base, "GET", cms+"?limit=2", "").body
	rv, token := str(t, first, "metadata.resourceVersion"), str(t, first, "metadata.continue")
	page := must(t, 200, base, "DELETE", cms+"?limit=2&continue="+url.QueryEscape(token), "").body
	if got := names(t, page); !slices.Equal(got, []string{"c3", "c4"}) || str(t, page, "metadata.resourceVersion") != rv ||
		str(t, page, "metadata.continue") == "" || field(t, page, "metadata.remainingItemCount") != 2.0 {
		t.Errorf("deletecollection of the second page: %s", page)
	}
	if got := names(t, must(t, 200, base, "GET", cms, "").body); !slices.Equal(got, []string{"c1", "c2", "c5", "c6"}) {
		t.Errorf("left after the second page's deletion: %v; want c1 c2 c5 c6", got)
	}
}
