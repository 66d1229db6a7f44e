package server

import (
	"context"
	"errors"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apisem/apisem/jsonvalue"
	rvpkg "github.com/apisem/apisem/rv"
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
	res.Read = func(o Object) (Object, error) {
		u := o.(*Unstructured)
		if _, ok, _ := jsonvalue.NestedString(u.Content, "spec", "color"); ok {
			return o, nil
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
		return c, nil
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

// TestReadFails: a failing Read fails the reads of the object as
// kube-apiserver 1.37 fails the read of an object it cannot decode (a
// custom resource whose conversion webhook fails, observed on a real
// one): a get with a 500 InternalError, a list with a 500
// StorageReadError, both naming the object's etcd key and revision. The
// failure is not cached: once Read succeeds, so do the reads.
func TestReadFails(t *testing.T) {
	res := gizmoResource(t)
	var fail atomic.Bool
	fail.Store(true)
	res.Read = func(o Object) (Object, error) {
		if fail.Load() {
			return nil, errors.New("conversion webhook for demo.io/v2, Kind=Gizmo failed: down")
		}
		return o, nil
	}
	s, base := startTestServer(t, res)
	o := &Unstructured{Content: map[string]any{"spec": map[string]any{"size": int64(1)}}}
	o.Name, o.Namespace = "a", "ns"
	created, err := s.StoreOf(res).Create(context.Background(), o, store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv := created.Meta().ResourceVersion
	const detail = ", ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision="
	for _, tc := range []struct {
		name, method, path, body, ctype, want string
	}{
		{"get", "GET", gizmos + "/a", "", "", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
			`"message":"Internal error occurred: StorageError: corrupt object, Code: 7, Key: /demo.io/gizmos/ns/a` + detail + rv +
			`: conversion webhook for demo.io/v2, Kind=Gizmo failed: down","reason":"InternalError","details":{"causes":[{"message":` +
			`"StorageError: corrupt object, Code: 7, Key: /demo.io/gizmos/ns/a` + detail + rv + `: conversion webhook for demo.io/v2, Kind=Gizmo failed: down"}]},"code":500}`},
		{"list", "GET", gizmos, "", "", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
			`"message":"failed to read one or more gizmos.demo.io from the storage: StorageError: corrupt object, Code: 7, Key: /registry/demo.io/gizmos/ns/a` + detail + rv +
			`: conversion webhook for demo.io/v2, Kind=Gizmo failed: down","reason":"StorageReadError","details":{"name":"list","group":"demo.io","kind":"gizmos",` +
			`"causes":[{"reason":"UnexpectedServerResponse","message":"StorageError: corrupt object, Code: 7, Key: /registry/demo.io/gizmos/ns/a` + detail + rv +
			`: conversion webhook for demo.io/v2, Kind=Gizmo failed: down","field":"/registry/demo.io/gizmos/ns/a"}]},"code":500}`},
		{"patch", "PATCH", gizmos + "/a", `{"spec":{"size":2}}`, "application/merge-patch+json", `"message":"Internal error occurred: StorageError: corrupt object, Code: 7, Key: /demo.io/gizmos/ns/a` + detail + rv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.ctype != "" {
				hdr = []string{"Content-Type", tc.ctype}
			}
			r := do(t, 500, base, tc.method, tc.path, tc.body, hdr...)
			if !strings.Contains(r.body, tc.want) {
				t.Errorf("got  %s\nwant %s", r.body, tc.want)
			}
		})
	}
	fail.Store(false)
	do(t, 200, base, "GET", gizmos+"/a", "")
	do(t, 200, base, "GET", gizmos, "")
}

// A failed read names the object's key under the resource's EtcdPrefix,
// as kube-apiserver names a built-in kind's.
func TestReadFailsEtcdPrefix(t *testing.T) {
	res := gizmoResource(t)
	res.EtcdPrefix = "gizmos"
	res.Read = func(o Object) (Object, error) { return nil, errors.New("down") }
	s, base := startTestServer(t, res)
	o := &Unstructured{Content: map[string]any{"spec": map[string]any{"size": int64(1)}}}
	o.Name, o.Namespace = "a", "ns"
	if _, err := s.StoreOf(res).Create(context.Background(), o, store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := do(t, 500, base, "GET", gizmos+"/a", ""); !strings.Contains(r.body, "Key: /gizmos/ns/a,") {
		t.Errorf("get: %s; want the key /gizmos/ns/a", r.body)
	}
	if r := do(t, 500, base, "GET", gizmos, ""); !strings.Contains(r.body, `"field":"/registry/gizmos/ns/a"`) {
		t.Errorf("list: %s; want the key /registry/gizmos/ns/a", r.body)
	}
}

// A failed list names the key below the storage's prefix, as
// kube-apiserver started with another --etcd-prefix names its keys.
func TestReadFailsStoragePrefix(t *testing.T) {
	res := gizmoResource(t)
	res.Read = func(o Object) (Object, error) { return nil, errors.New("down") }
	s, err := New(Options{Resources: []*Resource{res}, Storage: func(so store.Options[Object]) (Storage, error) {
		so.StoragePrefix = "/custom"
		return newMemStorage(so), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		hs.Close()
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	o := &Unstructured{Content: map[string]any{"spec": map[string]any{"size": int64(1)}}}
	o.Name, o.Namespace = "a", "ns"
	if _, err := s.StoreOf(res).Create(context.Background(), o, store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := do(t, 500, hs.URL, "GET", gizmos, ""); !strings.Contains(r.body, `"field":"/custom/demo.io/gizmos/ns/a"`) {
		t.Errorf("list: %s; want the key /custom/demo.io/gizmos/ns/a", r.body)
	}
}

// TestToStorage: ToStorage makes the object the storage keeps, after
// validation; Read turns it back. A write that leaves the stored form as
// it was writes nothing (no new resourceVersion), as Kubernetes compares
// the storage version's encodings.
func TestToStorage(t *testing.T) {
	res := gizmoResource(t)
	// Stored with spec.size doubled under spec.twice; read back halved.
	res.ToStorage = func(_ context.Context, o Object) (Object, error) {
		c := o.(*Unstructured).DeepCopy()
		spec := c.Content["spec"].(map[string]any)
		spec["twice"] = spec["size"].(int64) * 2
		delete(spec, "size")
		return c, nil
	}
	res.Read = func(o Object) (Object, error) {
		u := o.(*Unstructured)
		if _, ok := u.Content["spec"].(map[string]any)["twice"]; !ok {
			return o, nil
		}
		c := u.DeepCopy()
		spec := c.Content["spec"].(map[string]any)
		spec["size"] = spec["twice"].(int64) / 2
		delete(spec, "twice")
		return c, nil
	}
	s, base := startTestServer(t, res)
	r := do(t, 201, base, "POST", gizmos, `{"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"name":"a"},"spec":{"size":3}}`, "Content-Type", "application/json")
	if !strings.Contains(r.body, `"spec":{"size":3}`) {
		t.Errorf("create answered %s", r.body)
	}
	stored, err := s.StoreOf(res).Get(context.Background(), "ns", "a", rvpkg.Read{Semantics: rvpkg.MostRecent})
	if err != nil {
		t.Fatal(err)
	}
	if got := stored.(*Unstructured).Content["spec"]; !reflect.DeepEqual(got, map[string]any{"twice": int64(6)}) {
		t.Errorf("stored spec %v", got)
	}
	rv := stored.Meta().ResourceVersion
	r = do(t, 200, base, "PATCH", gizmos+"/a", `{"spec":{"size":3}}`, "Content-Type", "application/merge-patch+json")
	if !strings.Contains(r.body, `"resourceVersion":"`+rv+`"`) {
		t.Errorf("a patch that changes nothing wrote a new version: %s", r.body)
	}
	r = do(t, 200, base, "PATCH", gizmos+"/a", `{"spec":{"size":4}}`, "Content-Type", "application/merge-patch+json")
	if !strings.Contains(r.body, `"spec":{"size":4}`) || strings.Contains(r.body, `"resourceVersion":"`+rv+`"`) {
		t.Errorf("patch answered %s", r.body)
	}
}
