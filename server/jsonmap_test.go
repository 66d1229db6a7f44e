package server

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	kjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/store"
)

// jsonMapCases are inputs for decodeObjectMap, which must decode each as
// kjson's preserve-ints decoding does, less metadata.managedFields.
var jsonMapCases = []string{
	`{}`,
	` { } `,
	`{"metadata":{"name":"a","managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}]},"data":{"k":"v"}}`,
	`{"metadata":{"managedFields":null}}`,
	`{"metadata":{"managedFields":"x"}}`,
	`{"metadata":{"managedFields":[{"a":"}]"}] ,"name":"n"}}`,
	`{"metadata":{"managedFields":1}}`,
	`{"metadata":{"managedFields":"`,
	`{"metadata":{"managedFields":[`,
	`{"metadata":{"managedFields":}}`,
	`{"metadata":{"managedFields":[}]}}`,
	`{"spec":{"managedFields":[1]},"metadata":{"labels":{"managedFields":"kept"}}}`,
	`{"a":[1,-2,3.5,1e3,-0,9223372036854775807,9223372036854775808,-9223372036854775809,1E-7,0.0]}`,
	`{"s":"plain","e":"\"\\\/\b\f\n\r\t\u00e9\u2028\ud83d\ude00","h":"\u003c\u003e\u0026","u":"é😀","bad":"\ud800"}`,
	"{\"invalid utf-8\":\"\xff\xfe\"}",
	"{\"control\":\"a\x01b\"}",
	`{"t":true,"f":false,"n":null,"empty":[],"nested":[[{}],{"x":[null]}]}`,
	`{"dup":1,"dup":2}`,
	`{"big":1e400}`,
	`{"lead":01}`,
	`{"trailing":1}x`,
	`{"open":[1,2}`,
	`[1]`,
	`"s"`,
	`{"a":1,}`,
	`{"a" 1}`,
	`{"n":-}`,
	`{"n":1.}`,
	`{"l":tru}`,
	``,
}

func TestDecodeObjectMap(t *testing.T) {
	for _, in := range jsonMapCases {
		checkDecodeObjectMap(t, []byte(in))
	}
}

func FuzzDecodeObjectMap(f *testing.F) {
	for _, in := range jsonMapCases {
		f.Add([]byte(in))
	}
	f.Fuzz(checkDecodeObjectMap)
}

func checkDecodeObjectMap(t *testing.T, in []byte) {
	var want map[string]any
	wantErr := kjson.UnmarshalCaseSensitivePreserveInts(in, &want)
	if md, ok := want["metadata"].(map[string]any); ok && wantErr == nil {
		delete(md, "managedFields")
	}
	got, err := decodeObjectMap(in)
	if (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("decodeObjectMap(%q) = err %v; want %v", in, err, wantErr)
	}
	if err != nil {
		return
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("decodeObjectMap(%q) (-want +got):\n%s", in, d)
	}
}

// objectMap only reads the object it maps: a stored object may be encoded
// by other requests at the same time (the race detector would see a
// write), and its managedFields stay as they are, out of the map.
func TestObjectMapOnlyReads(t *testing.T) {
	o := &Unstructured{Content: map[string]any{"data": map[string]any{"k": "v"}}}
	o.Name = "a"
	o.ManagedFields = []meta.ManagedFieldsEntry{{Manager: "m", Operation: "Update"}}
	done := make(chan int)
	go func() {
		n := 0
		for range 200 {
			n += len(o.Meta().ManagedFields)
		}
		done <- n
	}()
	for range 200 {
		m, err := objectMap(o)
		if err != nil {
			t.Fatal(err)
		}
		if md, _ := m["metadata"].(map[string]any); md == nil || md["managedFields"] != nil || md["name"] != "a" {
			t.Fatalf("objectMap = %v; want metadata with the name and without managedFields", m)
		}
	}
	if n := <-done; n != 200 {
		t.Errorf("a reader saw %d entries in 200 reads; want 200", n)
	}
}

// storedMap, which decodes a stored object's cached JSON, is objectMap of
// that object: for a typed resource whose list items carry kind and
// apiVersion, and for an unstructured one.
func TestStoredMapIsObjectMap(t *testing.T) {
	ctx := t.Context()
	gadgets := testResources()[0]
	gizmos := gizmoResource(t)
	s := newTestServer(t, Options{Resources: []*Resource{gadgets, gizmos}})
	g := &gadget{}
	g.Namespace, g.Name = "ns", "g"
	g.Spec.Size = 3
	u := &Unstructured{Content: map[string]any{"spec": map[string]any{"color": "red", "size": int64(2)}}}
	u.Namespace, u.Name = "ns", "u"
	for _, tc := range []struct {
		res *Resource
		obj Object
	}{{gadgets, g}, {gizmos, u}} {
		tc.obj.Meta().ManagedFields = []meta.ManagedFieldsEntry{{Manager: "m", Operation: "Update"}}
		stored, err := s.StoreOf(tc.res).Create(ctx, tc.obj, store.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rs := s.reg.Load().byDef[tc.res]
		got, err := rs.codec.storedMap(stored)
		if err != nil {
			t.Fatal(err)
		}
		want, err := objectMap(stored)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: storedMap differs from objectMap (-want +got):\n%s", tc.res.Kind, d)
		}
	}
}
