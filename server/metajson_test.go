package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
)

// metaJSONCases are ObjectMetas whose encoding appendMetaJSON must write
// as encoding/json does, each for a reason.
var metaJSONCases = []struct {
	name string
	m    meta.ObjectMeta
}{
	{"empty", meta.ObjectMeta{}},
	{"a stored ConfigMap's", meta.ObjectMeta{Name: "cm-1", Namespace: "ns", UID: "0e6a5c2e-1b9f-4e0c-9b4c-3c2f0f6b8a11",
		ResourceVersion: "42", CreationTimestamp: meta.NewTime(time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC)),
		Labels: map[string]string{"app": "a1"},
		ManagedFields: []meta.ManagedFieldsEntry{{Manager: "kubectl", Operation: "Update", APIVersion: "v1",
			Time: ptr(meta.NewTime(time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC))), FieldsType: "FieldsV1",
			FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`)}}}}},
	{"every field", meta.ObjectMeta{Name: "n", GenerateName: "g-", Namespace: "ns", SelfLink: "/x", UID: "u",
		ResourceVersion: "1", Generation: -3,
		CreationTimestamp:          meta.NewTime(time.Date(1999, 1, 2, 3, 4, 5, 999, time.FixedZone("x", 3600))),
		DeletionTimestamp:          ptr(meta.NewTime(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))),
		DeletionGracePeriodSeconds: ptr(int64(0)),
		Labels:                     map[string]string{"b": "2", "a": "1", "": ""},
		Annotations:                map[string]string{"z": "<&>", "y": "\u2028\u2029", "x": "\xff\"\\\n\t\x01"},
		OwnerReferences: []meta.OwnerReference{{}, {APIVersion: "v1", Kind: "K", Name: "o", UID: "u",
			Controller: ptr(true), BlockOwnerDeletion: ptr(false)}},
		Finalizers: []string{"a/b", "<c>"},
		ManagedFields: []meta.ManagedFieldsEntry{{}, {Subresource: "status", Time: &meta.Time{}},
			{FieldsV1: &meta.FieldsV1{}}}}},
	{"a zero deletionTimestamp is null", meta.ObjectMeta{DeletionTimestamp: &meta.Time{}}},
	{"empty maps and slices are left out", meta.ObjectMeta{Labels: map[string]string{}, Annotations: map[string]string{},
		OwnerReferences: []meta.OwnerReference{}, Finalizers: []string{}, ManagedFields: []meta.ManagedFieldsEntry{}}},
	{"many labels", meta.ObjectMeta{Labels: func() map[string]string {
		m := map[string]string{}
		for i := range 40 {
			m[strings.Repeat("k", i%7)+string(rune('a'+i%26))+string(rune('0'+i/26))] = "v"
		}
		return m
	}()}},
	{"fieldsV1 with spaces is compacted", meta.ObjectMeta{ManagedFields: []meta.ManagedFieldsEntry{
		{FieldsV1: &meta.FieldsV1{Raw: []byte("{ \"f:a\" : {} }\n")}}}}},
	{"fieldsV1 with HTML is escaped", meta.ObjectMeta{ManagedFields: []meta.ManagedFieldsEntry{
		{FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:<a>&":{},"f:` + "\u2028" + `":{}}`)}}}}},
	{"a year past 9999", meta.ObjectMeta{CreationTimestamp: meta.NewTime(time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC))}},
}

func ptr[T any](v T) *T { return &v }

func TestAppendMetaJSON(t *testing.T) {
	for _, tc := range metaJSONCases {
		want, wantErr := json.Marshal(&tc.m)
		got, err := appendMetaJSON([]byte("prefix"), &tc.m)
		if err != nil || wantErr != nil {
			t.Fatalf("%s: err %v, encoding/json's %v", tc.name, err, wantErr)
		}
		if !bytes.Equal(got[len("prefix"):], want) || string(got[:len("prefix")]) != "prefix" {
			t.Errorf("%s: appendMetaJSON =\n%s\nwant\n%s", tc.name, got[len("prefix"):], want)
		}
	}
}

// Invalid fieldsV1 fails as it fails in encoding/json.
func TestAppendMetaJSONInvalidFields(t *testing.T) {
	m := &meta.ObjectMeta{ManagedFields: []meta.ManagedFieldsEntry{{FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:a":`)}}}}
	_, wantErr := json.Marshal(m)
	_, err := appendMetaJSON(nil, m)
	if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
		t.Errorf("appendMetaJSON: err %v, want encoding/json's %v", err, wantErr)
	}
}

// FuzzAppendMetaJSON is a differential test against encoding/json, on
// metadata whose strings, maps, times and fieldsV1 come from the input.
func FuzzAppendMetaJSON(f *testing.F) {
	for _, tc := range metaJSONCases {
		b, _ := json.Marshal(&tc.m)
		f.Add(b, tc.m.Name, int64(tc.m.CreationTimestamp.Unix()), uint8(0))
	}
	f.Add([]byte(`{"f:a":{}}`), "<\xff>", int64(-62135596800), uint8(0xff))
	f.Fuzz(func(t *testing.T, raw []byte, s string, secs int64, mask uint8) {
		var m meta.ObjectMeta
		// A metadata of the input, decoded as a request's would be, then
		// given what decoding cannot: any string, time and fieldsV1.
		_ = json.Unmarshal(raw, &m)
		if mask&1 != 0 {
			m.Name, m.Finalizers = s, append(m.Finalizers, s)
		}
		if mask&2 != 0 {
			if m.Labels == nil {
				m.Labels = map[string]string{}
			}
			m.Labels[s] = s
		}
		if mask&4 != 0 {
			m.CreationTimestamp = meta.NewTime(time.Unix(secs, 0))
			m.DeletionTimestamp = ptr(meta.NewTime(time.Unix(secs/3, secs%1e9)))
		}
		if mask&8 != 0 {
			m.ManagedFields = append(m.ManagedFields, meta.ManagedFieldsEntry{Manager: s, FieldsV1: &meta.FieldsV1{Raw: raw}})
		}
		if mask&16 != 0 {
			m.OwnerReferences = append(m.OwnerReferences, meta.OwnerReference{Name: s, Controller: ptr(mask&32 != 0)})
		}
		want, wantErr := json.Marshal(&m)
		got, err := appendMetaJSON(nil, &m)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("err %v, encoding/json's %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("appendMetaJSON =\n%s\nwant\n%s", got, want)
		}
	})
}

// BenchmarkMetaJSON is a stored ConfigMap's metadata, with its
// managedFields entry, by encoding/json and by appendMetaJSON.
func BenchmarkMetaJSON(b *testing.B) {
	m := &metaJSONCases[1].m
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = appendMetaJSON(buf[:0], m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// fieldsTree takes the objects-of-objects Kubernetes writes as fieldsV1
// and leaves everything else to json.Valid; it never takes what
// json.Valid refuses (FuzzFieldsTree).
func TestFieldsTree(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want bool
	}{
		{`{}`, true},
		{`{"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`, true},
		{`{"k:{\"name\":\"c\"}":{}}`, false}, // an escape: json.Valid's
		{`{"f:a":{"f:b":{"f:c":{}}},"f:d":{}}`, true},
		{`{"f:é":{}}`, false}, // not ASCII: json.Valid's
		{`{"f:a":1}`, false},
		{`{"f:a":{}`, false},
		{`{"f:a":{}}}`, false},
		{`{"f:a":{}},`, false},
		{`{}{}`, false},
		{`{"f:a":{},}`, false},
		{`{,"f:a":{}}`, false},
		{`{"f:a"{}}`, false},
		{`{"f:a:{}}`, false},
		{`[]`, false},
		{``, false},
		{strings.Repeat(`{"a":`, 10001) + `{}` + strings.Repeat(`}`, 10001), false},
	} {
		if got := fieldsTree([]byte(tt.raw)); got != tt.want {
			t.Errorf("fieldsTree(%.60q) = %v; want %v", tt.raw, got, tt.want)
		}
		if fieldsTree([]byte(tt.raw)) && !json.Valid([]byte(tt.raw)) {
			t.Errorf("fieldsTree(%.60q) takes what json.Valid refuses", tt.raw)
		}
	}
}

// FuzzFieldsTree: what fieldsTree takes is valid JSON, so plainJSON's
// answer is json.Valid's with or without it.
func FuzzFieldsTree(f *testing.F) {
	for _, s := range []string{`{}`, `{"f:a":{"f:b":{}},"f:c":{}}`, `{"f:a":{}}}`, `{"a":{},}`, `{"\u0041":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if fieldsTree(raw) && !json.Valid(raw) {
			t.Fatalf("fieldsTree(%q) = true, but json.Valid refuses it", raw)
		}
	})
}
