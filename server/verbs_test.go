package server_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

type knob struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
}

func (k *knob) Types() *meta.TypeMeta { return &k.TypeMeta }
func (k *knob) DeepCopyObject() server.Object {
	c := *k
	k.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// A resource that lists its verbs serves only those: another is the
// router's 405, and discovery lists what is served, as kube-apiserver
// does for namespaces, which have no deletecollection.
func TestResourceVerbs(t *testing.T) {
	res := &server.Resource{Version: "v1", Kind: "Knob", ListKind: "KnobList", Plural: "knobs", Singular: "knob",
		New:   func() server.Object { return &knob{} },
		Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"}}
	_, base := newServer(t, server.Options{Resources: []*server.Resource{res}})
	if code := send(t, "POST", base+"/api/v1/knobs", "application/json", `{"metadata":{"name":"a"}}`, nil); code != 201 {
		t.Fatalf("create: %d", code)
	}
	var st struct {
		Code    int
		Reason  string
		Message string
	}
	if code := send(t, "DELETE", base+"/api/v1/knobs", "", "", &st); code != http.StatusMethodNotAllowed ||
		st.Reason != "MethodNotAllowed" || st.Message != "the server does not allow this method on the requested resource" {
		t.Errorf("DELETE of the collection = %d %+v; want the router's 405", code, st)
	}
	if code := send(t, "DELETE", base+"/api/v1/knobs/a", "", "", nil); code != 200 {
		t.Errorf("DELETE of an object = %d; want 200", code)
	}
	var list struct {
		Resources []struct {
			Name  string
			Verbs []string
		}
	}
	send(t, "GET", base+"/api/v1", "", "", &list)
	if len(list.Resources) != 1 || !slices.Equal(list.Resources[0].Verbs, res.Verbs) {
		t.Errorf("discovery = %+v; want the resource's verbs %v", list.Resources, res.Verbs)
	}
}
