package managedfields

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apisem/apisem/meta"
)

func TestOrderFieldsV1(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"in order", `{"f:a":{},"f:b":{}}`, `{"f:a":{},"f:b":{}}`},
		{"reversed, nested", `{"f:b":{"f:d":{},".":{},"f:c":{}},"f:a":{}}`, `{"f:a":{},"f:b":{"f:c":{},"f:d":{},".":{}}}`},
		{"kinds: fields, keys, values, indices", `{"i:1":{},"v:2":{},"k:{\"x\":1}":{},"f:z":{}}`, `{"f:z":{},"k:{\"x\":1}":{},"v:2":{},"i:1":{}}`},
		{"indices by number", `{"i:10":{},"i:9":{}}`, `{"i:9":{},"i:10":{}}`},
		{"bytes of keys kept, objects rewritten", "{ \"f:b\" : null ,\n\"f:\\u0061\":{ } }", "{\"f:\\u0061\":{},\"f:b\":null}"},
		{"duplicates keep their order", `{"f:b":{"f:x":{}},"f:a":{},"f:b":{"f:y":{}}}`, `{"f:a":{},"f:b":{"f:x":{}},"f:b":{"f:y":{}}}`},
		{"skipped keys go last, values as they are", `{"x:1":[1,"a"],"f:a":{},".":5}`, `{"f:a":{},"x:1":[1,"a"],".":5}`},
	} {
		got, err := orderFieldsV1([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: orderFieldsV1(%s) = %s, %v; want %s", tt.name, tt.in, got, err, tt.want)
		}
		sameSet(t, tt.in, got)
	}
	for _, in := range []string{`[]`, `{"f:a":1}`, `{"f:a":"x"}`, `{"q":{}}`, `{"f:a":{}`, `{"f:a":{}}x`, `{"k:x":{}}`} {
		if got, err := orderFieldsV1([]byte(in)); err == nil {
			t.Errorf("orderFieldsV1(%s) = %s; want an error", in, got)
		}
	}
}

// sameSet fails unless structured-merge-diff reads in and out as the
// same set, or fails on both.
func sameSet(t testing.TB, in string, out []byte) {
	t.Helper()
	var a, b fieldpath.Set
	errA := a.FromJSON(strings.NewReader(in))
	errB := b.FromJSON(bytes.NewReader(out))
	if (errA == nil) != (errB == nil) || errA == nil && !a.Equals(&b) {
		t.Errorf("%s reads as %v (%v); put in order, %s reads as %v (%v)", in, &a, errA, out, &b, errB)
	}
}

// The entries a write carries are put in order before they are decoded;
// the result is the set they say.
func TestDecodeSent(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"f:data":{`)
	const n = 2000
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"f:k` + strconv.Itoa(n-i) + `":{}`)
	}
	b.WriteString(`}}`)
	raw := b.String()
	entries := []meta.ManagedFieldsEntry{
		{Manager: "small", Operation: OperationUpdate, APIVersion: "v1", FieldsType: fieldsTypeV1, FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:b":{},"f:a":{}}`)}},
		{Manager: "big", Operation: OperationUpdate, APIVersion: "v1", FieldsType: fieldsTypeV1, FieldsV1: &meta.FieldsV1{Raw: []byte(raw)}},
	}
	want, err := decode(entries)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeSent(entries)
	if err != nil {
		t.Fatal(err)
	}
	for id, vs := range want.fields {
		if !got.fields[id].Set().Equals(vs.Set()) {
			t.Errorf("%s: decodeSent gives %v; want %v", id, got.fields[id].Set(), vs.Set())
		}
	}
	if string(entries[1].FieldsV1.Raw) != raw {
		t.Error("decodeSent changed the entries it was given")
	}
	entries[1].FieldsV1.Raw = []byte(raw[:len(raw)-1])
	if _, err := decodeSent(entries); err == nil {
		t.Error("decodeSent accepted a truncated fieldsV1")
	}
}

// FuzzOrderFieldsV1: structured-merge-diff reads the same set from a
// fieldsV1 put in order as from the fieldsV1, and whatever orderFieldsV1
// refuses, it refuses too (or is not JSON).
func FuzzOrderFieldsV1(f *testing.F) {
	for _, s := range []string{`{"f:b":{"f:d":{},".":{},"f:c":{}},"f:a":{}}`, `{"i:1":{},"v:2":{},"k:{\"x\":1}":{},"f:z":null}`,
		`{"f:b":{"f:x":{}},"f:a":{},"f:b":{"f:y":{}}}`, `{"x:1":[1,"a"],"f:a":{},".":5}`, `{"f:a":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := orderFieldsV1([]byte(in))
		if err != nil {
			var s fieldpath.Set
			if s.FromJSON(strings.NewReader(in)) == nil && json.Valid([]byte(in)) {
				t.Fatalf("orderFieldsV1(%s): %v; structured-merge-diff reads it", in, err)
			}
			return
		}
		sameSet(t, in, out)
	})
}

// BenchmarkDecodeSent decodes a write's fieldsV1 of 60,000 keys, in order
// and reversed: put in order first, both cost about the same (reversed,
// structured-merge-diff's decoder alone takes seconds).
func BenchmarkDecodeSent(b *testing.B) {
	for _, reversed := range []bool{false, true} {
		var sb strings.Builder
		sb.WriteString(`{"f:data":{`)
		const n = 60000
		for i := range n {
			j := i
			if reversed {
				j = n - 1 - i
			}
			if i > 0 {
				sb.WriteString(",")
			}
			sb.WriteString(`"f:k` + strconv.Itoa(100000+j) + `":{}`)
		}
		sb.WriteString("}}")
		entries := []meta.ManagedFieldsEntry{{Manager: "m", Operation: OperationUpdate, APIVersion: "v1", FieldsType: fieldsTypeV1,
			FieldsV1: &meta.FieldsV1{Raw: []byte(sb.String())}}}
		b.Run("reversed="+strconv.FormatBool(reversed), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeSent(entries); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
