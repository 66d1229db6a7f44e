package builtin

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// A field selector on a field the kind lacks answers what the reference
// answered for every resource it lists
// (testdata/reference/fieldselector-unknown.json: GET
// <resource>?fieldSelector=spec.foo=bar&limit=1): the text of the kind's
// field label conversion, `field label not supported: spec.foo` for Pods,
// `field label "spec.foo" not supported for Job` for Jobs, the default
// conversion's for ConfigMaps.
func TestUnknownFieldSelectorMatchesReference(t *testing.T) {
	b, err := os.ReadFile("testdata/reference/fieldselector-unknown.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := namespace.New(namespace.Options{})
	_, url := servertest.New(t, server.Options{Resources: append(res, ns.Resource())})
	n := 0
	for _, r := range append(res, ns.Resource()) {
		path := r.GroupVersion() + "/" + r.Plural
		w, ok := want[path]
		if !ok {
			continue // not the preferred version: not recorded
		}
		n++
		prefix := "/apis/"
		if r.Group == "" {
			prefix = "/api/"
		}
		resp, err := http.Get(url + prefix + path + "?fieldSelector=spec.foo=bar&limit=1")
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err != nil || resp.StatusCode != w.Code || st.Code != w.Code || st.Message != w.Message {
			t.Errorf("%s: %d %q (%v); want %d %q", path, resp.StatusCode, st.Message, err, w.Code, w.Message)
		}
	}
	if n < 50 {
		t.Errorf("compared %d resources, want every one recorded", n)
	}
}

// Every field a kind's selectors accept is one its field label
// conversion accepts, as kube-apiserver's: a ReplicaSet's registry
// gives status.replicas, which the cluster refuses in a selector.
func TestSelectableFieldsAreConvertible(t *testing.T) {
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The kinds of the table, in order, besides bindings and the reviews
	// (no kinds of it: they keep no objects).
	res = slices.DeleteFunc(res, func(r *server.Resource) bool { return r.Create != nil })
	for i, r := range res {
		for f := range r.Fields {
			if _, _, err := scheme.ConvertFieldLabel(all[i].gvk(), f, ""); err != nil {
				t.Errorf("%s accepts %s: %v", r.GroupVersion()+"/"+r.Plural, f, err)
			}
		}
	}
}
