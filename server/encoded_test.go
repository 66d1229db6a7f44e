package server

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/meta"
)

// mapMeta writes its metadata as a map: sorted, unlike meta.ObjectMeta,
// so its encodings are never spliced.
type mapMeta struct {
	meta.TypeMeta `json:"-"`
	Metadata      map[string]any `json:"metadata"`
	Spec          string         `json:"spec"`
	m             meta.ObjectMeta
}

func (o *mapMeta) Meta() *meta.ObjectMeta { return &o.m }
func (o *mapMeta) Types() *meta.TypeMeta  { return &o.TypeMeta }
func (o *mapMeta) DeepCopyObject() Object { c := *o; return &c }

// A change of metadata spliced into an encoding (and the length and
// comparison final makes of it) gives exactly the
// encoding of the changed object, for the types whose metadata splices
// by construction (a plain struct, an Unstructured, with or without kind
// and apiVersion in front) and for those that do not, where it encodes
// again.
func TestWithMetaIsTheEncoding(t *testing.T) {
	gadget := &gadget{}
	gadget.Spec.Size = 3
	u := &Unstructured{Content: map[string]any{"data": map[string]any{"k": `"quoted" \ }{][`}, "zeta": []any{int64(1), "x"}}}
	for _, tc := range []struct {
		name   string
		obj    Object
		typed  bool
		splits bool
	}{
		{"struct", gadget, false, true},
		{"struct with kind", gadget, true, true},
		{"unstructured", u, true, true},
		{"map metadata", &mapMeta{Spec: "s"}, false, false},
	} {
		c := &codec{res: &Resource{Kind: "K", Version: "v1", TypedListItems: tc.typed, New: func() Object { return tc.obj }}}
		c.typed = []byte(`{"kind":"K","apiVersion":"v1",`)
		c.gv = "v1"
		_, c.unstructured = tc.obj.(*Unstructured)
		if c.metaSplices = metaByConstruction(tc.obj); c.metaSplices != tc.splits {
			t.Errorf("%s: metaByConstruction = %v; want %v", tc.name, c.metaSplices, tc.splits)
		}
		o := tc.obj.DeepCopyObject()
		m := o.Meta()
		m.Name, m.Namespace, m.Labels = "a", "ns", map[string]string{"z": "1", "a": "2"}
		e, err := c.encode(o)
		if err != nil {
			t.Fatal(err)
		}
		m.ResourceVersion, m.UID, m.Generation = "42", "u-1", 7
		m.CreationTimestamp = metaJSONCases[1].m.CreationTimestamp
		m.ManagedFields = []meta.ManagedFieldsEntry{{Manager: "m", Operation: "Apply", FieldsType: "FieldsV1",
			FieldsV1: &meta.FieldsV1{Raw: json.RawMessage(`{"f:spec":{}}`)}}, metaJSONCases[1].m.ManagedFields[0]}
		got, err := c.appendWithMeta(nil, e, o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := c.appendJSON(nil, o, tc.typed)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: spliced\n%s\nwant\n%s", tc.name, got, want)
		}
		if tc.splits && !raceEnabled {
			// One allocation, of the result's size: a create's metadata
			// (and its managedFields) would not fit a guess.
			allocs := testing.AllocsPerRun(10, func() { _, _ = c.appendWithMeta(nil, e, o) })
			if allocs != 1 {
				t.Errorf("%s: appendWithMeta makes %v allocations; want 1", tc.name, allocs)
			}
		}
		if n, same, err := c.final(e, o, want); err != nil || n != len(want) || !same {
			t.Errorf("%s: final = %d, %v, %v; want %d, the same", tc.name, n, same, err, len(want))
		}
		if _, same, _ := c.final(e, o, append(want[:len(want)-1:len(want)-1], ' ', '}')); same {
			t.Errorf("%s: final says other bytes are the same", tc.name)
		}
		if (e.end != 0) != tc.splits {
			t.Errorf("%s: metadata found at %d:%d; want splicing %v", tc.name, e.meta, e.end, tc.splits)
		}
	}
}

// specChanged compares the members outside metadata and status.
func TestSpecChanged(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{`{"metadata":{"name":"a"},"spec":{"x":1}}`, `{"metadata":{"name":"b"},"spec":{"x":1}}`, false},
		{`{"metadata":{},"spec":{"x":1},"status":{"y":1}}`, `{"metadata":{},"spec":{"x":1},"status":{"y":2}}`, false},
		{`{"kind":"K","apiVersion":"v","metadata":{},"spec":{"x":"}"}}`, `{"metadata":{},"spec":{"x":"}"}}`, false},
		{`{"metadata":{},"spec":{"x":1}}`, `{"metadata":{},"spec":{"x":2}}`, true},
		{`{"metadata":{},"data":"\"a\""}`, `{"metadata":{},"data":"\"b\""}`, true},
		{`{"metadata":{},"spec":{}}`, `{"metadata":{},"spec":{},"other":1}`, true},
		{`{"metadata":{},"spec":{},"other":1}`, `{"metadata":{},"spec":{}}`, true},
		{`{"metadata":{},"n":1,"m":true}`, `{"metadata":{},"n":1,"m":false}`, true},
	} {
		if got := specChanged([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("specChanged(%s, %s) = %v; want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// managedFieldsBound is at least what the entries add to an encoding, in
// the typed form and the unstructured (sorted) one, escapes included.
func TestManagedFieldsBound(t *testing.T) {
	tm := meta.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	entries := []meta.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: "Apply", APIVersion: "v1", Time: &tm, FieldsType: "FieldsV1",
			FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:data":{".":{},"f:<k>":{}}}`)}},
		{Manager: "<&>\"\u2028", Operation: "Update", APIVersion: "demo.io/v1", Time: &tm, FieldsType: "FieldsV1",
			FieldsV1: &meta.FieldsV1{Raw: []byte(`{ "f:spec" : { "f:x" : { } } }`)}, Subresource: "status"},
		{},
	}
	for _, unstructured := range []bool{false, true} {
		c := &codec{unstructured: unstructured}
		for i := range entries {
			m := &meta.ObjectMeta{Name: "a"}
			without, err := c.metadataJSON(m)
			if err != nil {
				t.Fatal(err)
			}
			m.ManagedFields, m.Generation = entries[:i+1], 1<<62
			with, err := c.metadataJSON(m)
			if err != nil {
				t.Fatal(err)
			}
			if grew, bound := len(with)-len(without), managedFieldsBound(m.ManagedFields); grew > bound {
				t.Errorf("unstructured %v, %d entries: the metadata grew by %d; bound %d", unstructured, i+1, grew, bound)
			}
		}
	}
}

// setMember gives the encoding of the object with the member set, where
// the encoder writes it: a status replaced, removed (first, middle, last,
// alone) or inserted where the other object's encoding shows it goes; and
// where that encoding cannot tell (a member it lacks is next to the
// place), the object's members in another order, which it says.
func TestSetMember(t *testing.T) {
	type status struct {
		Ready bool `json:"ready"`
	}
	type obj struct {
		A      string  `json:"a,omitempty"`
		Status *status `json:"status,omitempty"`
		Z      string  `json:"z,omitempty"`
	}
	up, down := &status{true}, &status{false}
	for _, tt := range []struct {
		name   string
		into   obj // its status becomes from's
		from   obj
		placed bool
	}{
		{"replaced", obj{"a", down, "z"}, obj{"", up, ""}, true},
		{"removed in the middle", obj{"a", up, "z"}, obj{"a", nil, "z"}, true},
		{"removed first", obj{"", up, "z"}, obj{}, true},
		{"removed last", obj{"a", up, ""}, obj{}, true},
		{"removed alone", obj{"", up, ""}, obj{}, true},
		{"absent stays absent", obj{"a", nil, "z"}, obj{"a", nil, ""}, true},
		{"inserted in the middle", obj{"a", nil, "z"}, obj{"a", up, "z"}, true},
		{"inserted first", obj{"", nil, "z"}, obj{"", up, "z"}, true},
		{"inserted last", obj{"a", nil, ""}, obj{"a", up, ""}, true},
		{"inserted alone", obj{}, obj{"", up, ""}, true},
		{"before a member from lacks", obj{"a", nil, "z"}, obj{"a", up, ""}, false},
		{"after a member from lacks", obj{"a", nil, "z"}, obj{"", up, "z"}, false},
		{"among members from lacks", obj{"a", nil, "z"}, obj{"", up, ""}, false},
	} {
		into, _ := json.Marshal(tt.into)
		from, _ := json.Marshal(tt.from)
		var val []byte
		if start, end, ok := memberValue(from, "status"); ok {
			val = from[start:end]
		}
		want := tt.into
		want.Status = tt.from.Status
		wantJSON, _ := json.Marshal(want)
		got, placed := setMember(into, "status", val, from)
		if placed != tt.placed {
			t.Errorf("%s: setMember(%s, status, %s, %s) placed %v; want %v", tt.name, into, val, from, placed, tt.placed)
		}
		if placed && string(got) != string(wantJSON) {
			t.Errorf("%s: setMember(%s, status, %s, %s) = %s; want %s", tt.name, into, val, from, got, wantJSON)
		}
		var dec obj
		if err := json.Unmarshal(got, &dec); err != nil || !reflect.DeepEqual(dec, want) {
			t.Errorf("%s: setMember(%s, status, %s, %s) = %s, which decodes as %+v, %v; want %+v", tt.name, into, val, from, got, dec, err, want)
		}
	}
}

// BenchmarkWithMeta is the stored version's JSON of a create: the
// write's encoding, made before the store and the field manager filled in
// the metadata, with the final metadata (a uid, a resourceVersion, a
// creationTimestamp, a managedFields entry) spliced in. B/op is the
// cached encoding itself, which the version keeps.
func BenchmarkWithMeta(b *testing.B) {
	o := &gadget{}
	o.Spec.Size = 3
	c := &codec{res: &Resource{Kind: "K", Version: "v1", New: func() Object { return &gadget{} }}, metaSplices: true}
	o.Name, o.Namespace, o.Labels = "cm-000001", "ns", map[string]string{"app": "a1"}
	e, err := c.encode(o)
	if err != nil {
		b.Fatal(err)
	}
	final := metaJSONCases[1].m
	final.Name, final.Namespace = o.Name, o.Namespace
	o.ObjectMeta = final
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		if _, err := c.appendWithMeta(nil, e, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
}
