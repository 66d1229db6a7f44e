package server

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// FuzzUnstructuredJSON decodes untrusted bodies: decoding never panics,
// the strict and plain decoders agree, and what decodes encodes to bytes
// that decode to the same bytes again (the encoding is canonical).
func FuzzUnstructuredJSON(f *testing.F) {
	for _, s := range []string{
		`{"kind":"Gizmo","apiVersion":"demo.io/v1","metadata":{"name":"g","labels":{"a":"b"}},"spec":{"x":[1,2.5,"s",null,true]}}`,
		`{"metadata":{"creationTimestamp":"2024-05-06T07:08:09+02:00","deletionTimestamp":null,"managedFields":[{"manager":"m","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]}}`,
		`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u","controller":true}],"finalizers":["f"]}}`,
		`{"n":9223372036854775808,"m":-0,"e":1E400}`,
		`{"a":1,"a":2,"metadata":{"x":1}}`,
		`{"s":"<\u2028\ud800>"}`,
		`[]`, `null`, `{"kind":5}`, `{"metadata":"x"}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return // bodies are bounded by the server's MaxBodyBytes; keep runs fast
		}
		var u, s Unstructured
		err := u.UnmarshalJSON(data)
		_, serr := s.UnmarshalJSONStrict(data)
		if (err == nil) != (serr == nil) {
			t.Fatalf("UnmarshalJSON: %v; UnmarshalJSONStrict: %v", err, serr)
		}
		if err != nil {
			return
		}
		if !rfc3339Years(&u) {
			// store.Time, as metav1.Time, writes any year, but RFC 3339
			// reads back only 0000 to 9999.
			return
		}
		b1, err := json.Marshal(&u)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		if b, _ := json.Marshal(&s); !bytes.Equal(b, b1) {
			t.Fatalf("strict decoding gives %s; plain %s", b, b1)
		}
		if b, _ := json.Marshal(u.DeepCopy()); !bytes.Equal(b, b1) {
			t.Fatalf("copy encodes to %s; original %s", b, b1)
		}
		var again Unstructured
		if err := json.Unmarshal(b1, &again); err != nil {
			t.Fatalf("Unmarshal(%s): %v", b1, err)
		}
		if b2, _ := json.Marshal(&again); !bytes.Equal(b1, b2) {
			t.Fatalf("not canonical:\n%s\n%s", b1, b2)
		}
	})
}

// rfc3339Years reports whether u's timestamps are in years RFC 3339 can
// write.
func rfc3339Years(u *Unstructured) bool {
	ok := func(t time.Time) bool { y := t.UTC().Year(); return t.IsZero() || y >= 0 && y <= 9999 }
	if !ok(u.CreationTimestamp.Time) || u.DeletionTimestamp != nil && !ok(u.DeletionTimestamp.Time) {
		return false
	}
	for _, f := range u.ManagedFields {
		if f.Time != nil && !ok(f.Time.Time) {
			return false
		}
	}
	return true
}
