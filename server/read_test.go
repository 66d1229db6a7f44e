package server

import (
	"context"
	"strings"
	"testing"

	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/store"
)

// TestRead: Resource.Read finishes every object read from storage, as
// Kubernetes' storage decoding defaults a custom resource with its
// current schema. Objects stored without spec.color (through the store,
// bypassing the write path) read with the color Read gives them, in
// every answer (watch events share the encoding of list items) and as
// the old object of a patch.
func TestRead(t *testing.T) {
	res := gizmoResource(t)
	res.Read = func(o Object) Object {
		u := o.(*Unstructured)
		if _, ok, _ := jsonvalue.NestedString(u.Content, "spec", "color"); ok {
			return o
		}
		c := u.DeepCopy()
		if c.Content == nil {
			c.Content = map[string]any{}
		}
		spec, _ := c.Content["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			c.Content["spec"] = spec
		}
		spec["color"] = "grey"
		return c
	}
	s, base := startTestServer(t, res)
	for _, name := range []string{"a", "b"} {
		o := &Unstructured{Content: map[string]any{"spec": map[string]any{"size": int64(1)}}}
		o.Name, o.Namespace = name, "ns"
		if _, err := s.StoreOf(res).Create(context.Background(), o, store.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, method, path, body, ctype, accept, want string
	}{
		{name: "get", method: "GET", path: gizmos + "/a", want: `"spec":{"color":"grey","size":1}`},
		{name: "list", method: "GET", path: gizmos + "?limit=1", want: `"spec":{"color":"grey","size":1}`},
		{name: "table", method: "GET", path: gizmos, accept: "application/json;as=Table;g=meta.k8s.io;v=v1", want: `"cells":["a","grey",1,"0s"]`},
		{name: "field selector", method: "GET", path: gizmos + "?fieldSelector=spec.color%3Dgrey", want: `"name":"b"`},
		{name: "patch of the read object", method: "PATCH", path: gizmos + "/b", body: `{"spec":{"size":2}}`, ctype: "application/merge-patch+json",
			want: `"spec":{"color":"grey","size":2}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := []string{}
			if tc.ctype != "" {
				hdr = append(hdr, "Content-Type", tc.ctype)
			}
			if tc.accept != "" {
				hdr = append(hdr, "Accept", tc.accept)
			}
			r := do(t, 200, base, tc.method, tc.path, tc.body, hdr...)
			if !strings.Contains(r.body, tc.want) {
				t.Errorf("%s lacks %s", r.body, tc.want)
			}
		})
	}
}
