package managedfields

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apisem/apisem/meta"
)

// workloadType is a typed schema with what the comparison of a create
// walks: struct fields holding maps and lists, a list of objects keyed by
// name (with a nested keyed list), a set, an atomic list, a map of
// strings and a map of objects.
func workloadType(t testing.TB) typed.ParseableType {
	t.Helper()
	str := smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.String)}}
	num := smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.Numeric)}}
	deduced := smdschema.TypeRef{NamedType: ptr("__untyped_deduced_")}
	named := func(n string) smdschema.TypeRef { return smdschema.TypeRef{NamedType: ptr(n)} }
	s := &smdschema.Schema{Types: []smdschema.TypeDef{
		{Name: "workload", Atom: smdschema.Atom{Map: &smdschema.Map{Fields: []smdschema.StructField{
			{Name: "apiVersion", Type: str},
			{Name: "kind", Type: str},
			{Name: "metadata", Type: deduced},
			{Name: "spec", Type: named("spec")},
			{Name: "status", Type: deduced},
		}}}},
		{Name: "spec", Atom: smdschema.Atom{Map: &smdschema.Map{Fields: []smdschema.StructField{
			{Name: "replicas", Type: num},
			{Name: "selector", Type: smdschema.TypeRef{Inlined: smdschema.Atom{Map: &smdschema.Map{ElementType: str}}}},
			{Name: "containers", Type: smdschema.TypeRef{Inlined: smdschema.Atom{List: &smdschema.List{
				ElementType: named("container"), ElementRelationship: smdschema.Associative, Keys: []string{"name"}}}}},
			{Name: "tags", Type: smdschema.TypeRef{Inlined: smdschema.Atom{List: &smdschema.List{
				ElementType: str, ElementRelationship: smdschema.Associative}}}},
			{Name: "args", Type: smdschema.TypeRef{Inlined: smdschema.Atom{List: &smdschema.List{
				ElementType: str, ElementRelationship: smdschema.Atomic}}}},
			{Name: "volumes", Type: smdschema.TypeRef{Inlined: smdschema.Atom{Map: &smdschema.Map{ElementType: named("volume")}}}},
		}}}},
		{Name: "container", Atom: smdschema.Atom{Map: &smdschema.Map{Fields: []smdschema.StructField{
			{Name: "name", Type: str},
			{Name: "image", Type: str},
			{Name: "env", Type: smdschema.TypeRef{Inlined: smdschema.Atom{Map: &smdschema.Map{ElementType: str}}}},
			{Name: "ports", Type: smdschema.TypeRef{Inlined: smdschema.Atom{List: &smdschema.List{
				ElementType: named("port"), ElementRelationship: smdschema.Associative, Keys: []string{"port", "protocol"}}}}},
		}}}},
		{Name: "port", Atom: smdschema.Atom{Map: &smdschema.Map{Fields: []smdschema.StructField{
			{Name: "port", Type: num},
			{Name: "protocol", Type: str},
			{Name: "name", Type: str},
		}}}},
		{Name: "volume", Atom: smdschema.Atom{Map: &smdschema.Map{Fields: []smdschema.StructField{
			{Name: "path", Type: str},
			{Name: "options", Type: smdschema.TypeRef{Inlined: smdschema.Atom{Map: &smdschema.Map{ElementType: str}}}},
		}}}},
	}}
	s.Types = append(s.Types, typed.DeducedParseableType.Schema.Types...)
	return typed.ParseableType{Schema: s, TypeRef: named("workload")}
}

// separableType has a list whose items are named by index.
func separableType(t testing.TB) typed.ParseableType {
	t.Helper()
	s := &smdschema.Schema{Types: []smdschema.TypeDef{
		{Name: "o", Atom: smdschema.Atom{Map: &smdschema.Map{Fields: []smdschema.StructField{
			{Name: "metadata", Type: smdschema.TypeRef{NamedType: ptr("__untyped_deduced_")}},
			{Name: "items", Type: smdschema.TypeRef{Inlined: smdschema.Atom{List: &smdschema.List{
				ElementType:         smdschema.TypeRef{NamedType: ptr("__untyped_deduced_")},
				ElementRelationship: smdschema.Separable}}}},
		}}}},
	}}
	s.Types = append(s.Types, typed.DeducedParseableType.Schema.Types...)
	return typed.ParseableType{Schema: s, TypeRef: smdschema.TypeRef{NamedType: ptr("o")}}
}

// createManagers are FieldManagers of the types created is checked with,
// and whether it applies to their empty object.
func createManagers(t testing.TB) []struct {
	name string
	f    *FieldManager
	fast bool
} {
	emptyMeta := obj(`{"metadata":{}}`)
	return []struct {
		name string
		f    *FieldManager
		fast bool
	}{
		{"deduced", newCM(), true},
		{"deduced, empty metadata", New(Options{APIVersion: "v1", Kind: "ConfigMap", Empty: emptyMeta}), true},
		{"deduced, status subresource", New(Options{APIVersion: "v1", Kind: "ConfigMap", Empty: emptyMeta, StatusSubresource: true}), true},
		{"atomic data", New(Options{APIVersion: "v1", Kind: "ConfigMap", Type: atomicMapType(t), Empty: emptyMeta}), true},
		{"atomic data in the empty object", New(Options{APIVersion: "v1", Kind: "ConfigMap", Type: atomicMapType(t), Empty: obj(`{"metadata":{},"data":{}}`)}), false},
		{"empty object with a value", New(Options{APIVersion: "v1", Kind: "ConfigMap", Empty: obj(`{"metadata":{},"x":0}`)}), false},
		{"workload", New(Options{APIVersion: "v1", Kind: "ConfigMap", Type: workloadType(t), Empty: obj(`{"metadata":{},"spec":{}}`)}), true},
		{"workload, status subresource", New(Options{APIVersion: "v1", Kind: "ConfigMap", Type: workloadType(t), Empty: emptyMeta, StatusSubresource: true}), true},
		{"separable list", New(Options{APIVersion: "v1", Kind: "ConfigMap", Type: separableType(t), Empty: emptyMeta}), false},
	}
}

// createObjects are new objects, each a case of the comparison's walk.
var createObjects = []string{
	`{}`,
	`{"metadata":{"name":"a"}}`,
	`{"metadata":{"name":"a","namespace":"n","uid":"u","generation":1,"labels":{"x":"1","y":""},"annotations":{}},"data":{"k":"v","l":""}}`,
	`{"metadata":{"name":"a","finalizers":["f"],"ownerReferences":[{"uid":"1","name":"o"}]},"data":null}`,
	`{"metadata":{"name":"a"},"data":{},"status":{"phase":"x","conditions":[{"type":"A"}]}}`,
	`{"metadata":{"name":"a"},"items":["a","a","b"],"x":1.5,"y":true,"z":null}`,
	`{"metadata":{"name":"a"},"items":[]}`,
	`{"metadata":{"name":"a"},"items":[{"a":[]}]}`,
	`{"metadata":{"name":"a"},"items":[{"a":{"b":{}}},{"a":1}]}`,
	`{"metadata":null}`,
	`{"metadata":"x"}`,
	`{"spec":{"replicas":3,"selector":{"app":"x"},"containers":[{"name":"c","image":"i","env":{"A":"1"},"ports":[{"port":80,"protocol":"TCP"},{"port":80,"protocol":"UDP","name":"u"}]},{"name":"d"}],"tags":["a","b"],"args":["x","x"],"volumes":{"v":{"path":"/p","options":{"ro":"1"}},"w":{}}},"status":{"ready":true}}`,
	`{"spec":{"containers":[{"name":"c"},{"name":"c","image":"dup"}],"tags":["a","a"]}}`,
	`{"spec":{"containers":[{"image":"no name"}],"selector":{}}}`,
	`{"spec":{},"metadata":{"labels":{"a":"b"}}}`,
	`{"spec":null}`,
	`{"spec":{"volumes":{"v":null},"selector":null,"containers":null}}`,
	`{"data":{"x":1}}`,
}

// bigObject has a map of more keys than bigMap, which created walks as a
// sorted view, as update does.
func bigObject() string {
	var sb strings.Builder
	sb.WriteString(`{"metadata":{"name":"big"},"data":{`)
	for i := range bigMap + 10 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `"k%d":"v"`, i)
	}
	sb.WriteString(`}}`)
	return sb.String()
}

// updated is Update's entries for a create without created.
func updated(f *FieldManager, o map[string]any, op Operation) ([]meta.ManagedFieldsEntry, error) {
	m := newManaged()
	if err := f.update(nil, o, m, op); err != nil {
		return nil, err
	}
	capUpdates(m, f.max)
	return encode(m)
}

// checkCreated fails unless created records the create of o as the
// comparison would, where it applies, the first time and again (from the
// shapes it keeps); it reports whether it did.
func checkCreated(t *testing.T, name string, f *FieldManager, o map[string]any, op Operation) bool {
	t.Helper()
	want, wantErr := updated(f, o, op)
	wj, _ := json.Marshal(want)
	for range 2 {
		got, ok, err := f.created(o, op)
		if !ok {
			return false
		}
		gj, _ := json.Marshal(got)
		if (err != nil) != (wantErr != nil) || string(gj) != string(wj) {
			b, _ := json.Marshal(o)
			t.Errorf("%s: created(%s) = %s, %v\nupdate records            %s, %v", name, b, gj, err, wj, wantErr)
		}
	}
	return true
}

// A create's first entry, made from the new object's field set, is the
// one the comparison with the empty object records, for every type and
// object created takes; it declines the empty objects that are not a tree
// of granular maps, the types with lists named by index, and the objects
// with an empty list.
func TestCreatedIsUpdate(t *testing.T) {
	objects := append(slices.Clone(createObjects), bigObject())
	for _, m := range createManagers(t) {
		if m.f.create.ok != m.fast {
			t.Errorf("%s: created applies %v; want %v", m.name, m.f.create.ok, m.fast)
		}
		taken := 0
		for _, js := range objects {
			for _, op := range []Operation{{Manager: "m", Time: t0}, {Time: t0}, {Manager: "m", Subresource: "status", Time: t0}} {
				if checkCreated(t, m.name, m.f, obj(js), op) {
					taken++
				}
			}
		}
		if m.fast && taken == 0 {
			t.Errorf("%s: created took none of the objects", m.name)
		}
	}
	// Objects of one shape share a field set; other values, other kinds
	// of values and other keys are other shapes.
	f := newCM()
	for _, js := range []string{
		`{"metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}`,
		`{"metadata":{"name":"b","labels":{"x":"2"}},"data":{"k":"w"}}`,
		`{"metadata":{"name":"b","labels":{"x":"2"}},"data":{"k":null}}`,
		`{"metadata":{"name":"b","labels":{"x":"2"}},"data":{"k":{}}}`,
		`{"metadata":{"name":"b","labels":{"x":"2"}},"data":{"k":{"l":1}}}`,
		`{"metadata":{"name":"b","labels":{"y":"2"}},"data":{"k":1}}`,
		`{"metadata":{"name":"b","labels":{"y":"2"}},"data":{"\"k\"":1}}`,
	} {
		checkCreated(t, "shapes", f, obj(js), Operation{Manager: "m", Time: t0})
	}
	if n := len(f.shapes.m); n != 6 {
		t.Errorf("%d shapes kept; want 6", n)
	}
	// Declined: an empty list, which the comparison records.
	if _, ok, _ := newCM().created(obj(`{"metadata":{"name":"a"},"items":[]}`), Operation{Manager: "m"}); ok {
		t.Error("created took an object with an empty list")
	}
}

// FuzzCreated checks created against the comparison on arbitrary objects
// of the test types.
func FuzzCreated(f *testing.F) {
	for _, js := range createObjects {
		f.Add([]byte(js))
	}
	managers := createManagers(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		var o map[string]any
		if json.Unmarshal(b, &o) != nil || o == nil {
			return
		}
		for _, m := range managers {
			checkCreated(t, m.name, m.f, o, Operation{Manager: "m", Time: t0})
		}
	})
}
