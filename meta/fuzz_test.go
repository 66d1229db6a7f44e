package meta

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzConsumeObjectMeta decodes untrusted protobuf: it must never panic,
// and what decodes re-encodes to bytes that decode to the same value and
// encode to the same bytes.
func FuzzConsumeObjectMeta(f *testing.F) {
	m := fullObjectMeta()
	f.Add(AppendObjectMeta(nil, &m))
	f.Add(mustHex(f, emptyObjectMeta))
	f.Add(mustHex(f, "9b06 0801 0b 0a0100 0c 9c06 0a0161"))
	f.Add(mustHex(f, "5a00 6202 0a00 4204 08011002"))
	f.Fuzz(func(t *testing.T, data []byte) {
		om, err := ConsumeObjectMeta(data)
		if err != nil {
			return
		}
		b := AppendObjectMeta(nil, &om)
		if len(b) != SizeObjectMeta(&om) {
			t.Fatalf("SizeObjectMeta = %d; appended %d", SizeObjectMeta(&om), len(b))
		}
		again, err := ConsumeObjectMeta(b)
		if err != nil {
			t.Fatalf("re-decode of %x: %v", b, err)
		}
		if diff := cmp.Diff(om, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		if b2 := AppendObjectMeta(nil, &again); !bytes.Equal(b, b2) {
			t.Fatalf("not stable: %x then %x", b, b2)
		}
	})
}

// FuzzConsumeListMeta is FuzzConsumeObjectMeta for ListMeta, and for the
// times, whose decoders take the same untrusted bytes.
func FuzzConsumeListMeta(f *testing.F) {
	f.Add(mustHex(f, "0a0173 120135 1a0163 2002"))
	f.Add(mustHex(f, "0a0012001a00"))
	f.Add(mustHex(f, "08011002"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ConsumeTime(data)
		_, _ = ConsumeMicroTime(data)
		lm, err := ConsumeListMeta(data)
		if err != nil {
			return
		}
		b := AppendListMeta(nil, &lm)
		if len(b) != SizeListMeta(&lm) {
			t.Fatalf("SizeListMeta = %d; appended %d", SizeListMeta(&lm), len(b))
		}
		again, err := ConsumeListMeta(b)
		if err != nil {
			t.Fatalf("re-decode of %x: %v", b, err)
		}
		if diff := cmp.Diff(lm, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

// FuzzObjectMetaJSON decodes untrusted JSON: it must never panic, and what
// decodes must encode and decode again to the same JSON.
func FuzzObjectMetaJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"name":"a","creationTimestamp":"2026-07-24T10:00:00Z"}`,
		`{"deletionTimestamp":null,"creationTimestamp":null}`,
		`{"managedFields":[{"fieldsV1":{"f:a":{}},"time":"2026-07-24T10:00:00.5+02:00"}]}`,
		`{"ownerReferences":[{"controller":true}],"labels":{"a":"b"},"finalizers":["x"]}`,
		`{"creationTimestamp":"bad"}`, `{"managedFields":[{"fieldsV1":[1,2]}]}`,
		// Issue 24: a time of year -1 in UTC, which no RFC 3339 parser
		// reads back once written, is refused.
		`{"mAnAgedFields":[{"fieldsV1":{},"time":"0000-01-01T0:00:00+01:00"}]}`,
		`{"deletionTimestamp":"9999-12-31T23:00:00-01:00"}`,
		`{"creationTimestamp":"0000-01-01T00:00:00Z"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var m ObjectMeta
		if json.Unmarshal(in, &m) != nil {
			return
		}
		b, err := json.Marshal(&m)
		if err != nil {
			t.Fatalf("Marshal after Unmarshal(%q): %v", in, err)
		}
		var m2 ObjectMeta
		if err := json.Unmarshal(b, &m2); err != nil {
			t.Fatalf("Unmarshal(%s) of our own output: %v", b, err)
		}
		if b2, _ := json.Marshal(&m2); string(b2) != string(b) {
			t.Fatalf("not stable: %s then %s", b, b2)
		}
	})
}
