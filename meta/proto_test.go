package meta

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

func unix(sec int64) Time { return NewTime(time.Unix(sec, 0).UTC()) }

func fullObjectMeta() ObjectMeta {
	return ObjectMeta{
		Name: "cm", GenerateName: "cm-", Namespace: "default", SelfLink: "/api/v1/x",
		UID: "0b1e", ResourceVersion: "42", Generation: 7,
		CreationTimestamp:          unix(1784710800),
		DeletionTimestamp:          ptr(unix(1784710900)),
		DeletionGracePeriodSeconds: ptr[int64](0),
		Labels:                     map[string]string{"app": "web", "tier": ""},
		Annotations:                map[string]string{"note": "x"},
		OwnerReferences: []OwnerReference{
			{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "u1", Controller: ptr(true)},
			{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "u2", BlockOwnerDeletion: ptr(false)},
		},
		Finalizers: []string{"kubernetes", "example.com/f"},
		ManagedFields: []ManagedFieldsEntry{
			{Manager: "kubectl", Operation: "Apply", APIVersion: "v1", Time: ptr(unix(5)),
				FieldsType: "FieldsV1", FieldsV1: &FieldsV1{Raw: []byte(`{"f:data":{}}`)}, Subresource: "status"},
			{Manager: "m", FieldsV1: &FieldsV1{}},
			{},
		},
	}
}

// emptyObjectMeta is ObjectMeta{} as Kubernetes writes it: strings 1-6,
// generation 7 and the creationTimestamp value field 8, all empty.
const emptyObjectMeta = "0a0012001a0022002a00320038004200"

// TestVectors checks the output against bytes that k8s.io/api and
// k8s.io/apimachinery v0.37.2 produce for the same values (each row says
// which rule it shows).
func TestVectors(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		got    []byte
		want   string
	}{
		{"Time{1s,2ns}", "nanos dropped",
			AppendTime(nil, NewTime(time.Unix(1, 2))), "08011000"},
		{"Time{}", "zero time is empty",
			AppendTime(nil, Time{}), ""},
		{"MicroTime{1s,2345ns}", "nanos truncated to microseconds",
			AppendMicroTime(nil, MicroTime{time.Unix(1, 2345)}), "080110d00f"},
		{"ObjectMeta{}", "value fields always written",
			AppendObjectMeta(nil, &ObjectMeta{}), emptyObjectMeta},
		{"ObjectMeta{Name:a}", "",
			AppendObjectMeta(nil, &ObjectMeta{Name: "a"}), "0a016112001a0022002a00320038004200"},
		{"ObjectMeta{Name:200×a}", "length of two bytes",
			AppendObjectMeta(nil, &ObjectMeta{Name: strings.Repeat("a", 200)}),
			"0ac801" + strings.Repeat("61", 200) + "12001a0022002a00320038004200"},
		{"ObjectMeta{CreationTimestamp:1s}", "",
			AppendObjectMeta(nil, &ObjectMeta{CreationTimestamp: NewTime(time.Unix(1, 0))}),
			"0a0012001a0022002a003200380042 04 08011000"},
		{"ObjectMeta{Labels:{b:2,a:1}}", "keys sorted",
			AppendObjectMeta(nil, &ObjectMeta{Labels: map[string]string{"b": "2", "a": "1"}}),
			emptyObjectMeta + "5a060a0161120131 5a060a0162120132"},
		{"ObjectMeta{ManagedFields:[{}]}", "field 17 tag is two bytes",
			AppendObjectMeta(nil, &ObjectMeta{ManagedFields: []ManagedFieldsEntry{{}}}),
			emptyObjectMeta + "8a01 0a 0a0012001a0032004200"},
		{"ObjectMeta{OwnerReferences:[{}]}", "OwnerReference{} inside field 13",
			AppendObjectMeta(nil, &ObjectMeta{OwnerReferences: []OwnerReference{{}}}),
			emptyObjectMeta + "6a08 0a001a0022002a00"},
		{"ObjectMeta{DeletionTimestamp:&zero}", "non-nil pointer to zero Time is 4a 00",
			AppendObjectMeta(nil, &ObjectMeta{DeletionTimestamp: &Time{}}),
			emptyObjectMeta + "4a00"},
		{"ObjectMeta{ManagedFields:[{FieldsV1:&{}}]}", "empty FieldsV1 is an empty message",
			AppendObjectMeta(nil, &ObjectMeta{ManagedFields: []ManagedFieldsEntry{{FieldsV1: &FieldsV1{}}}}),
			emptyObjectMeta + "8a01 0c 0a0012001a0032003a004200"},
		{"ListMeta{}", "strings always written",
			AppendListMeta(nil, &ListMeta{}), "0a0012001a00"},
		{"metadata field of ConfigMap{}", "",
			AppendObjectMetadata(nil, &ObjectMeta{}), "0a10" + emptyObjectMeta},
	}
	for _, tt := range tests {
		if want := mustHex(t, tt.want); !bytes.Equal(tt.got, want) {
			t.Errorf("%s (%s):\n got %x\nwant %x", tt.name, tt.reason, tt.got, want)
		}
	}
}

// TestVectorsAllFields writes every field once, the bytes spelled out by
// hand from the field numbers (tag = number<<3 | wire type), so that a
// wrong number or presence rule shows even for the pointer fields.
func TestVectorsAllFields(t *testing.T) {
	m := ObjectMeta{
		Name: "n", GenerateName: "g", Namespace: "s", SelfLink: "l", UID: "u", ResourceVersion: "7",
		Generation:                 3,
		CreationTimestamp:          unix(1),
		DeletionTimestamp:          ptr(unix(2)),
		DeletionGracePeriodSeconds: ptr[int64](30),
		Labels:                     map[string]string{"a": "1"},
		Annotations:                map[string]string{"x": "y"},
		OwnerReferences: []OwnerReference{{
			APIVersion: "v1", Kind: "K", Name: "o", UID: "i",
			Controller: ptr(true), BlockOwnerDeletion: ptr(false),
		}},
		Finalizers: []string{"f"},
		ManagedFields: []ManagedFieldsEntry{{
			Manager: "m", Operation: "Update", APIVersion: "v1", Time: ptr(unix(1)),
			FieldsType: "FieldsV1", FieldsV1: &FieldsV1{Raw: []byte("{}")},
		}},
	}
	want := "0a016e 120167 1a0173 22016c 2a0175 320137" + // strings 1-6
		"3803" + // generation
		"4204 08011000" + // creationTimestamp
		"4a04 08021000" + // deletionTimestamp
		"501e" + // deletionGracePeriodSeconds
		"5a06 0a0161 120131" + // labels
		"6206 0a0178 120179" + // annotations
		"6a11 0a014b 1a016f 220169 2a027631 3001 3800" + // ownerReferences: kind, name, uid, apiVersion, controller, blockOwnerDeletion
		"720166" + // finalizers
		"8a0127 0a016d 1206557064617465 1a027631 220408011000 32084669656c64735631 3a040a027b7d 4200" // managedFields
	if got := AppendObjectMeta(nil, &m); !bytes.Equal(got, mustHex(t, want)) {
		t.Errorf("AppendObjectMeta:\n got %x\nwant %s", got, want)
	}
	if n := SizeObjectMeta(&m); n != len(mustHex(t, want)) {
		t.Errorf("SizeObjectMeta = %d; want %d", n, len(mustHex(t, want)))
	}
	lm := ListMeta{SelfLink: "s", ResourceVersion: "5", Continue: "c", RemainingItemCount: ptr[int64](2)}
	if got, want := AppendListMeta(nil, &lm), mustHex(t, "0a0173 120135 1a0163 2002"); !bytes.Equal(got, want) {
		t.Errorf("AppendListMeta = %x; want %x", got, want)
	}
}

func TestObjectMetaRoundTrip(t *testing.T) {
	for _, m := range []ObjectMeta{{}, {Name: "a"}, fullObjectMeta()} {
		b := AppendObjectMeta(nil, &m)
		if len(b) != SizeObjectMeta(&m) {
			t.Errorf("len = %d; SizeObjectMeta = %d", len(b), SizeObjectMeta(&m))
		}
		if n := SizeObjectMetadata(&m); n != len(AppendObjectMetadata(nil, &m)) {
			t.Errorf("SizeObjectMetadata = %d; want %d", n, len(AppendObjectMetadata(nil, &m)))
		}
		got, err := ConsumeObjectMeta(b)
		if err != nil {
			t.Fatalf("ConsumeObjectMeta: %v", err)
		}
		if diff := cmp.Diff(m, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
		if again := AppendObjectMeta(nil, &got); !bytes.Equal(again, b) {
			t.Errorf("re-encoding differs:\n got %x\nwant %x", again, b)
		}
	}
}

// The decoded ObjectMeta must not alias the input: a server keeps it after
// the request buffer is gone.
func TestConsumeObjectMetaCopies(t *testing.T) {
	m := fullObjectMeta()
	b := AppendObjectMeta(nil, &m)
	got, err := ConsumeObjectMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	clear(b)
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("decoded value changed with its input (-want +got):\n%s", diff)
	}
}

func TestConsumeObjectMetaLenient(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want ObjectMeta
	}{
		{"unknown fields 15, 16 and 99 skipped; the last name wins", "0a0161 7801 8201 00 9806 01 0a0162",
			ObjectMeta{Name: "b"}},
		{"a repeated label keeps the last value", "5a06 0a016b 120131 5a06 0a016b 120132",
			ObjectMeta{Labels: map[string]string{"k": "2"}}},
		{"a group is skipped whole", "9b06 0801 0b 0a0100 0c 9c06 0a0161", // 99 start, {1: 1, group 1 {1: ""}}, 99 end
			ObjectMeta{Name: "a"}},
		{"fixed fields are skipped", "7d01020304 7901020304050607 08 0a0161", ObjectMeta{Name: "a"}},
		{"nanos of a time are ignored", "4204 08011002", ObjectMeta{CreationTimestamp: unix(1)}},
		{"a missing map key or value is empty", "5a00 6202 0a00", ObjectMeta{
			Labels: map[string]string{"": ""}, Annotations: map[string]string{"": ""}}},
	}
	for _, tt := range tests {
		got, err := ConsumeObjectMeta(mustHex(t, tt.in))
		if err != nil {
			t.Errorf("%s: ConsumeObjectMeta(%s) = err %v", tt.name, tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: ConsumeObjectMeta(%s) (-want +got):\n%s", tt.name, tt.in, diff)
		}
	}
}

func TestConsumeObjectMetaErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"name as varint", "0801", ErrMalformed},
		{"generation as bytes", "3a00", ErrMalformed},
		{"creationTimestamp as varint", "4001", ErrMalformed},
		{"deletionTimestamp with bad body", "4a02 0a00", ErrMalformed},
		{"deletionGracePeriodSeconds as bytes", "5200", ErrMalformed},
		{"label entry truncated", "5a02 0a05", io.ErrUnexpectedEOF},
		{"label key as varint", "5a02 0801", ErrMalformed},
		{"annotations as varint", "6001", ErrMalformed},
		{"ownerReference controller as bytes", "6a02 3200", ErrMalformed},
		{"ownerReference kind as varint", "6a02 0801", ErrMalformed},
		{"finalizer as varint", "7001", ErrMalformed},
		{"managedFields as varint", "8801 01", ErrMalformed},
		{"managedFields time as varint", "8a01 02 2001", ErrMalformed},
		{"managedFields fieldsV1 raw as varint", "8a01 04 3a02 0801", ErrMalformed},
		{"managedFields manager as varint", "8a01 02 0801", ErrMalformed},
		{"truncated", "0a05 61", io.ErrUnexpectedEOF},
		{"truncated tag", "8a", io.ErrUnexpectedEOF},
		{"truncated varint", "3880", io.ErrUnexpectedEOF},
		{"truncated fixed32", "7d01", io.ErrUnexpectedEOF},
		{"truncated fixed64", "7901", io.ErrUnexpectedEOF},
		{"truncated group", "9b06 0801", io.ErrUnexpectedEOF},
		{"varint overflow", "38 ffffffffffffffffff7f", ErrMalformed},
		// No byte that follows can make a tenth byte with its high bit
		// set valid: malformed, not truncated (as protowire reports it).
		{"ten-byte varint that continues", "38 ffffffffffffffffff80", ErrMalformed},
		{"field number 0", "0200", ErrMalformed},
		{"end group without start", "0c", ErrMalformed},
		{"mismatched end group", "9b06 0c", ErrMalformed},
		{"reserved wire type", "0e", ErrMalformed},
	}
	for _, tt := range tests {
		if _, err := ConsumeObjectMeta(mustHex(t, tt.in)); !errors.Is(err, tt.want) {
			t.Errorf("%s: ConsumeObjectMeta(%s) = err %v; want %v", tt.name, tt.in, err, tt.want)
		}
	}
	// Groups of the unknown field 99 (tags 9b06, 9c06), closed: skipped up
	// to protowire's nesting limit, malformed past it, and never a stack
	// overflow.
	nested := func(depth int) []byte {
		return mustHex(t, strings.Repeat("9b06", depth)+strings.Repeat("9c06", depth))
	}
	if _, err := ConsumeObjectMeta(nested(protowire.DefaultRecursionLimit)); err != nil {
		t.Errorf("groups nested %d deep: %v; want them skipped", protowire.DefaultRecursionLimit, err)
	}
	deep := protowire.DefaultRecursionLimit + 2
	if _, err := ConsumeObjectMeta(nested(deep)); !errors.Is(err, ErrMalformed) || errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("groups nested %d deep: err %v; want ErrMalformed, not truncation", deep, err)
	}
}

func TestListMeta(t *testing.T) {
	for _, m := range []ListMeta{{}, {SelfLink: "s", ResourceVersion: "9", Continue: "tok", RemainingItemCount: ptr[int64](0)}} {
		b := AppendListMeta(nil, &m)
		if len(b) != SizeListMeta(&m) {
			t.Errorf("len = %d; SizeListMeta = %d", len(b), SizeListMeta(&m))
		}
		got, err := ConsumeListMeta(b)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(m, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
	for _, in := range []string{"0801", "2200", "1205"} {
		if _, err := ConsumeListMeta(mustHex(t, in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ConsumeListMeta(%s) = err %v; want ErrMalformed", in, err)
		}
	}
	// A second occurrence of a list's metadata merges into the first.
	m := ListMeta{ResourceVersion: "12"}
	if err := MergeListMeta(&m, mustHex(t, "1a046e657874")); err != nil || m.ResourceVersion != "12" || m.Continue != "next" {
		t.Errorf("MergeListMeta = %+v, %v; want resourceVersion 12, continue next", m, err)
	}
}

func TestTimeProto(t *testing.T) {
	tests := []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, ""},
		{time.Unix(0, 0), "0800 1000"},
		{time.Unix(1, 999999999), "0801 1000"},
		{time.Date(2026, 7, 22, 10, 0, 0, 0, time.FixedZone("x", 3600)), "08908d82d306 1000"}, // 1784710800
		{time.Unix(-1, 0), "08ffffffffffffffffff01 1000"},
	}
	for _, tt := range tests {
		got := AppendTime(nil, NewTime(tt.t))
		if !bytes.Equal(got, mustHex(t, tt.want)) {
			t.Errorf("AppendTime(%v) = %x; want %s", tt.t, got, tt.want)
		}
		if len(got) != SizeTime(NewTime(tt.t)) {
			t.Errorf("SizeTime(%v) = %d; want %d", tt.t, SizeTime(NewTime(tt.t)), len(got))
		}
		back, err := ConsumeTime(got)
		if err != nil || !back.Equal(tt.t.Truncate(time.Second)) {
			t.Errorf("ConsumeTime(AppendTime(%v)) = %v, %v", tt.t, back, err)
		}
		if !back.IsZero() && back.Location() != time.UTC {
			t.Errorf("ConsumeTime(AppendTime(%v)) is in %v; want UTC", tt.t, back.Location())
		}
	}
	if got, err := ConsumeTime(mustHex(t, "1001")); err != nil || !got.Equal(time.Unix(0, 0)) {
		t.Errorf("ConsumeTime(nanos only) = %v, %v; want the epoch", got, err)
	}
	for _, in := range []string{"0a00", "1200", "08"} {
		if _, err := ConsumeTime(mustHex(t, in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ConsumeTime(%s) = err %v; want ErrMalformed", in, err)
		}
	}
}

func TestMicroTimeProto(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"", time.Time{}},
		{"0801 10d00f", time.Unix(1, 2000)},
		{"0801 10d10f", time.Unix(1, 2000)},      // truncated to microseconds
		{"0801 10ffffffff0f", time.Unix(1, 0)},   // negative nanos are 0
		{"0801 1080a8d6b907", time.Unix(1, 0)},   // 2e9 nanos are 0
		{"0801 10d00f 1a00", time.Unix(1, 2000)}, // unknown field skipped
		{"0802", time.Unix(2, 0)},                // nanos absent
	}
	for _, tt := range tests {
		got, err := ConsumeMicroTime(mustHex(t, tt.in))
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("ConsumeMicroTime(%s) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if !got.IsZero() && got.Location() != time.UTC {
			t.Errorf("ConsumeMicroTime(%s) is in %v; want UTC", tt.in, got.Location())
		}
	}
	mt := MicroTime{time.Unix(1, 2345)}
	if n := SizeMicroTime(mt); n != len(AppendMicroTime(nil, mt)) {
		t.Errorf("SizeMicroTime = %d; want %d", n, len(AppendMicroTime(nil, mt)))
	}
	if SizeMicroTime(MicroTime{}) != 0 {
		t.Errorf("SizeMicroTime(zero) != 0")
	}
	if _, err := ConsumeMicroTime(mustHex(t, "1200")); !errors.Is(err, ErrMalformed) {
		t.Errorf("ConsumeMicroTime(nanos as bytes) = err %v; want ErrMalformed", err)
	}
}
