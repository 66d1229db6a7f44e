package server

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"testing"

	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/meta"
)

// referenceUnstructuredJSON is what Kubernetes does with an unstructured
// object: one map of every member, metadata a decoded map, handed to
// encoding/json.
func referenceUnstructuredJSON(u *Unstructured, tm meta.TypeMeta) ([]byte, error) {
	md, err := jsonvalue.MapOf(&u.ObjectMeta)
	if err != nil {
		return nil, err
	}
	m := maps.Clone(u.Content)
	if m == nil {
		m = map[string]any{}
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	if tm.APIVersion != "" {
		m["apiVersion"] = tm.APIVersion
	}
	if tm.Kind != "" {
		m["kind"] = tm.Kind
	}
	m["metadata"] = md
	return json.Marshal(m)
}

// checkSortedMeta fails t unless appendSortedMetaJSON writes m as
// encoding/json writes jsonvalue.MapOf(m), and fails where that fails.
func checkSortedMeta(t *testing.T, name string, m *meta.ObjectMeta) {
	t.Helper()
	var want []byte
	mm, wantErr := jsonvalue.MapOf(m)
	if wantErr == nil {
		want, wantErr = json.Marshal(mm)
	}
	got, err := appendSortedMetaJSON([]byte("prefix"), m)
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("%s: err %v, reference's %v", name, err, wantErr)
	}
	if err == nil && (!bytes.Equal(got[len("prefix"):], want) || string(got[:len("prefix")]) != "prefix") {
		t.Fatalf("%s: appendSortedMetaJSON =\n%s\nwant\n%s", name, got[len("prefix"):], want)
	}
}

func fieldsMeta(raw string) *meta.ObjectMeta {
	return &meta.ObjectMeta{ManagedFields: []meta.ManagedFieldsEntry{{Manager: "m", FieldsV1: &meta.FieldsV1{Raw: []byte(raw)}}}}
}

func TestAppendSortedMetaJSON(t *testing.T) {
	for _, tc := range metaJSONCases {
		checkSortedMeta(t, tc.name, &tc.m)
	}
	for _, raw := range []string{
		`{}`,
		`{"f:spec":{".":{},"f:x":{}},"f:metadata":{}}`,                     // unsorted
		`{"f:a":{},"f:a":{"x":{}}}`,                                        // duplicate: the last
		`{"k:{\"type\":\"Ready\"}":{},"k:{\"a\":1}":{}}`,                   // escaped names sort decoded
		`{"k:{\"a\":1}":{},"k:{\"type\":\"Ready\"}":{".":{},"f:type":{}}}`, // escaped, sorted
		`{"a\"":{},"a#":{}}`, `{"a#":{},"a\"":{}}`,                         // sorted decoded, not as written; and the reverse
		`{"a\\":{},"a\\\"":{},"a]":{}}`, `{"a\\\"":{},"a\\":{}}`, // backslashes
		`{"v:\"x\"":{},"v:\"x\"":{}}`, `{"a\"":{},"a\u0022":{}}`, // duplicates decoded
		`{"a\/":{}}`, `{"a\n":{}}`, `{"a\u0041":{}}`, `{"a\`, `{"a\"}`, // other escapes, cut
		`{"f:a":{"f:b":{"f:c":{}}},"f:b":{}}`,                  // nested, sorted: as it is
		`{"f:a":1,"f:b":1.50,"f:c":[1e-7,"x"],"f:d":null}`,     // not objects
		`{"f:é":{},"f:\u00e9":{}}`,                             // non-ASCII
		`{"f:<":{}}`,                                           // escaped when written
		` {"f:a" : {}} `,                                       // spaces
		`{"f:a":{}`, `{"f:a":{}}x`, `[]`, `"s"`, `{"f:a":{},}`, // invalid or not objects
	} {
		checkSortedMeta(t, raw, fieldsMeta(raw))
	}
	// Invalid UTF-8 becomes U+FFFD in MapOf's decoded strings, which may
	// reorder and merge keys.
	checkSortedMeta(t, "invalid UTF-8", &meta.ObjectMeta{Name: "a\xffb\xc3", Labels: map[string]string{"\xff": "1", "\xef\xbf\xbd": "2", "a": "\xfe"},
		Annotations: map[string]string{"k": "\xe2\x80"}, Finalizers: []string{"\x80"}})
	checkSortedMeta(t, "invalid UTF-8 values", &meta.ObjectMeta{Name: "a\xffb\xc3", Labels: map[string]string{"a": "\xfe"}})
}

func TestUnstructuredMarshalJSONMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		name string
		u    Unstructured
		tm   meta.TypeMeta
	}{
		{"empty", Unstructured{}, meta.TypeMeta{}},
		{"types only", Unstructured{}, meta.TypeMeta{APIVersion: "x/v1", Kind: "K"}},
		{"stored", Unstructured{ObjectMeta: metaJSONCases[1].m, Content: map[string]any{
			"spec": map[string]any{"b": int64(1), "a": []any{1.5, "<>", nil, true}}, "data": "d", "zz": map[string]any{}}},
			meta.TypeMeta{APIVersion: "x/v1", Kind: "K"}},
		{"content's own types and metadata dropped", Unstructured{ObjectMeta: metaJSONCases[2].m, Content: map[string]any{
			"apiVersion": "old", "kind": "Old", "metadata": "bad", "b": 1e-7, "": int64(-1)}},
			meta.TypeMeta{Kind: "K"}},
		{"many members", Unstructured{Content: func() map[string]any {
			m := map[string]any{}
			for i := range 40 {
				m[string(rune('a'+i%26))+string(rune('A'+i))] = int64(i)
			}
			return m
		}()}, meta.TypeMeta{APIVersion: "v"}},
		{"unsupported value", Unstructured{Content: map[string]any{"x": math.NaN()}}, meta.TypeMeta{}},
		{"invalid fieldsV1", Unstructured{ObjectMeta: *fieldsMeta(`{`)}, meta.TypeMeta{}},
	} {
		want, wantErr := referenceUnstructuredJSON(&tc.u, tc.tm)
		got, err := tc.u.appendJSON([]byte("prefix"), tc.tm)
		if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("%s: err %v, reference's %v", tc.name, err, wantErr)
		}
		if err == nil && !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Fatalf("%s: appendJSON =\n%s\nwant\nprefix%s", tc.name, got, want)
		}
	}
}

// FuzzUnstructuredEncoding decodes an arbitrary object as a request's body
// and compares its encoding with Kubernetes' (referenceUnstructuredJSON).
func FuzzUnstructuredEncoding(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"x/v1","kind":"K","metadata":{"name":"n","labels":{"b":"1","a":"2"},"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{".":{},"f:x":{}}}}]},"spec":{"x":[1,2.5,1e-7,"<&>"]}}`,
		`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"u","controller":true}],"finalizers":["a"]},"z":null,"a":{}}`,
		`{"metadata":{"managedFields":[{"fieldsV1":{"k:{\"a\":1}":{},"f:b":{"f:c":1}}}]}}`,
	} {
		f.Add([]byte(s), "x/v1", "K")
	}
	f.Fuzz(func(t *testing.T, data []byte, apiVersion, kind string) {
		var u Unstructured
		if u.UnmarshalJSON(data) != nil {
			return
		}
		tm := meta.TypeMeta{APIVersion: apiVersion, Kind: kind}
		want, wantErr := referenceUnstructuredJSON(&u, tm)
		got, err := u.appendJSON(nil, tm)
		if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("err %v, reference's %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("appendJSON =\n%s\nwant\n%s", got, want)
		}
		checkSortedMeta(t, "metadata", &u.ObjectMeta)
	})
}

// FuzzAppendSortedMetaJSON is FuzzAppendMetaJSON's metadata (any
// string, time and fieldsV1) against jsonvalue.MapOf's encoding.
func FuzzAppendSortedMetaJSON(f *testing.F) {
	for _, tc := range metaJSONCases {
		b, _ := json.Marshal(&tc.m)
		f.Add(b, tc.m.Name, uint8(0))
	}
	f.Add([]byte(`{"f:b":{},"f:a":{"k:{\"x\":\"<\"}":{}}}`), "<\xff>", uint8(0xff))
	f.Add([]byte(`{"managedFields":[{"fieldsV1":{"f:a":{"k:{\"x\":\"a\\\\\"}":{},"k:{\"x\":\"b\"}":{}},"v:\"#\"":{},"v:\"\\\"\"":{}}}]}`), "", uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, s string, mask uint8) {
		var m meta.ObjectMeta
		_ = json.Unmarshal(raw, &m)
		if mask&1 != 0 {
			m.Name, m.Finalizers = s, append(m.Finalizers, s)
		}
		if mask&2 != 0 {
			m.Annotations = map[string]string{s: s}
		}
		if mask&4 != 0 {
			m.ManagedFields = append(m.ManagedFields, meta.ManagedFieldsEntry{Manager: s, FieldsV1: &meta.FieldsV1{Raw: raw}})
		}
		if mask&8 != 0 {
			m.OwnerReferences = append(m.OwnerReferences, meta.OwnerReference{Name: s, Controller: ptr(mask&16 != 0), BlockOwnerDeletion: ptr(true)})
		}
		checkSortedMeta(t, "fuzz", &m)
	})
}
