package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// The status subresource, as Kubernetes serves it for custom resources
// (and most built-in types): /status writes only status, the object's
// writes keep the stored status, a create drops it.
func TestStatusSubresource(t *testing.T) {
	doodads := server.UnstructuredResource(server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Doodad", ListKind: "DoodadList",
		Plural: "doodads", Singular: "doodad", Namespaced: true, StatusSubresource: true,
	})
	_, base := newServer(t, server.Options{Resources: []*server.Resource{doodads, gizmos}})
	url := base + "/apis/demo.io/v1/namespaces/ns/doodads"
	type doodad struct {
		Metadata struct {
			ResourceVersion string            `json:"resourceVersion"`
			Generation      int64             `json:"generation"`
			Labels          map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec   map[string]any `json:"spec"`
		Status map[string]any `json:"status"`
	}
	obj := func(rv, spec, status string) string {
		b := `{"apiVersion":"demo.io/v1","kind":"Doodad","metadata":{"name":"d","labels":{"l":"1"}` + rv + `},"spec":` + spec
		if status != "" {
			b += `,"status":` + status
		}
		return b + `}`
	}
	var d doodad
	if code := send(t, "POST", url, "application/json", obj("", `{"size":1}`, `{"ready":true}`), &d); code != 201 || d.Status != nil {
		t.Fatalf("create: %d, status %v; want 201 and no status", code, d.Status)
	}
	rv := func() string { return `,"resourceVersion":"` + d.Metadata.ResourceVersion + `"` }

	steps := []struct {
		name, method, path, ctype string
		body                      func() string
		code                      int
		spec, status              string // as %v prints them
		generation                int64
	}{
		{"an update of the object keeps the stored status", "PUT", "/d", "application/json",
			func() string { return obj(rv(), `{"size":2}`, `{"ready":true}`) }, 200, "map[size:2]", "map[]", 2},
		{"an update of status changes status alone", "PUT", "/d/status", "application/json",
			func() string { return obj(rv(), `{"size":9}`, `{"ready":true}`) }, 200, "map[size:2]", "map[ready:true]", 2},
		{"a patch of status", "PATCH", "/d/status", "application/merge-patch+json",
			constant(`{"status":{"phase":"up"},"spec":{"size":7},"metadata":{"labels":{"l":"2"}}}`), 200, "map[size:2]", "map[phase:up ready:true]", 2},
		{"a patch of the object", "PATCH", "/d", "application/merge-patch+json",
			constant(`{"status":{"phase":"down"},"spec":{"size":3}}`), 200, "map[size:3]", "map[phase:up ready:true]", 3},
		{"get of status is the object", "GET", "/d/status", "", constant(""), 200, "map[size:3]", "map[phase:up ready:true]", 3},
	}
	for _, st := range steps {
		body := st.body()
		d = doodad{}
		code := send(t, st.method, url+st.path, st.ctype, body, &d)
		spec, stat := fmtMap(d.Spec), fmtMap(d.Status)
		if code != st.code || spec != st.spec || stat != st.status || d.Metadata.Generation != st.generation || d.Metadata.Labels["l"] != "1" {
			t.Errorf("%s: %d spec %s status %s generation %d labels %v; want %d %s %s %d l=1",
				st.name, code, spec, stat, d.Metadata.Generation, d.Metadata.Labels, st.code, st.spec, st.status, st.generation)
		}
	}

	var e status.Status
	if code := send(t, "PUT", url+"/d/status", "application/json", obj(`,"resourceVersion":"1"`, `{}`, `{}`), &e); code != 409 {
		t.Errorf("status update at a stale resourceVersion: %d %q; want 409", code, e.Message)
	}
	for _, tt := range []struct {
		method, path string
		code         int
	}{
		{"DELETE", url + "/d/status", 405},
		{"POST", url + "/d/status", 405},
		{"GET", url + "/d/scale", 404},
		{"GET", base + "/apis/demo.io/v1/namespaces/ns/gizmos/g/status", 404}, // no status subresource
	} {
		if code := send(t, tt.method, tt.path, "application/json", "{}", nil); code != tt.code {
			t.Errorf("%s %s: %d; want %d", tt.method, tt.path, code, tt.code)
		}
	}
	var list struct {
		Resources []struct {
			Name  string   `json:"name"`
			Verbs []string `json:"verbs"`
		} `json:"resources"`
	}
	send(t, "GET", base+"/apis/demo.io/v1", "", "", &list)
	var names []string
	for _, r := range list.Resources {
		names = append(names, r.Name+" "+strings.Join(r.Verbs, ","))
	}
	if got := strings.Join(names, "; "); !strings.Contains(got, "doodads/status get,patch,update") {
		t.Errorf("discovery lists %s; want doodads/status with get, patch, update", got)
	}
}

func constant(s string) func() string { return func() string { return s } }

// fmtMap prints m as %v does, "map[]" for nil too.
func fmtMap(m map[string]any) string {
	if m == nil {
		return "map[]"
	}
	return fmt.Sprint(m)
}
