package envelope

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// The test encoders below write core/v1 types with this package's helpers,
// the way a user (or the example server) encodes its own types.

type configMap struct {
	Metadata   ObjectMeta
	Data       map[string]string
	BinaryData map[string][]byte
	Immutable  *bool
}

// appendConfigMap writes ConfigMap: metadata 1, data 2, binaryData 3,
// immutable 4 (ascending numbers, whatever the .proto order).
func appendConfigMap(b []byte, c *configMap) []byte {
	b = AppendObjectMetadata(b, &c.Metadata)
	b = AppendStringMap(b, 2, c.Data)
	b = AppendBytesMap(b, 3, c.BinaryData)
	if c.Immutable != nil {
		b = appendBool(b, 4, *c.Immutable)
	}
	return b
}

func consumeConfigMap(b []byte) (configMap, error) {
	var c configMap
	err := RangeFields(b, func(f Field) error {
		switch f.Num {
		case 1:
			body, err := f.AsBytes()
			if err != nil {
				return err
			}
			c.Metadata, err = ConsumeObjectMeta(body)
			return err
		case 2:
			entry, err := f.AsBytes()
			if err != nil {
				return err
			}
			k, v, err := ConsumeStringMapEntry(entry)
			if err != nil {
				return err
			}
			if c.Data == nil {
				c.Data = map[string]string{}
			}
			c.Data[k] = v
		case 3:
			entry, err := f.AsBytes()
			if err != nil {
				return err
			}
			k, v, err := ConsumeBytesMapEntry(entry)
			if err != nil {
				return err
			}
			if c.BinaryData == nil {
				c.BinaryData = map[string][]byte{}
			}
			c.BinaryData[k] = v
		case 4:
			v, err := f.AsBool()
			if err != nil {
				return err
			}
			c.Immutable = &v
		}
		return nil
	})
	return c, err
}

type secret struct {
	Metadata ObjectMeta
	Data     map[string][]byte
	Type     string
}

func appendSecret(b []byte, s *secret) []byte {
	b = AppendObjectMetadata(b, &s.Metadata)
	b = AppendBytesMap(b, 2, s.Data)
	return appendString(b, 3, s.Type)
}

type namespace struct {
	Metadata   ObjectMeta
	Finalizers []string
	Phase      string
}

func appendNamespace(b []byte, ns *namespace) []byte {
	b = AppendObjectMetadata(b, &ns.Metadata)
	b = AppendMessageFunc(b, 2, 0, func(b []byte) []byte {
		for _, f := range ns.Finalizers {
			b = appendString(b, 1, f)
		}
		return b
	})
	return AppendMessageFunc(b, 3, 0, func(b []byte) []byte {
		return appendString(b, 1, ns.Phase)
	})
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// emptyObjectMeta is ObjectMeta{} as Kubernetes writes it: strings 1-6,
// generation 7 and the creationTimestamp value field 8, all empty.
const emptyObjectMeta = "0a0012001a0022002a00320038004200"

func ptr[T any](v T) *T { return &v }

// TestVectors checks the output against bytes that k8s.io/api and
// k8s.io/apimachinery v0.37.2 produced, or composed only of such bytes
// plus the layout of k8s.io/apimachinery/pkg/runtime/serializer/protobuf
// and the field numbers of the generated.proto files.
func TestVectors(t *testing.T) {
	configMapEmpty := appendConfigMap(nil, &configMap{})
	tests := []struct {
		name   string
		source string
		got    []byte
		want   string
	}{
		{"Time{1s,2ns}", "v0.37.2: nanos dropped",
			AppendTime(nil, time.Unix(1, 2)), "08011000"},
		{"Time{}", "v0.37.2: zero time is empty",
			AppendTime(nil, time.Time{}), ""},
		{"ObjectMeta{}", "v0.37.2",
			AppendObjectMeta(nil, &ObjectMeta{}), emptyObjectMeta},
		{"ObjectMeta{Name:a}", "v0.37.2",
			AppendObjectMeta(nil, &ObjectMeta{Name: "a"}), "0a016112001a0022002a00320038004200"},
		{"ObjectMeta{CreationTimestamp:1s}", "v0.37.2",
			AppendObjectMeta(nil, &ObjectMeta{CreationTimestamp: time.Unix(1, 0)}),
			"0a0012001a0022002a003200380042 04 08011000"},
		{"ObjectMeta{Labels:{b:2,a:1}}", "v0.37.2: keys sorted",
			AppendObjectMeta(nil, &ObjectMeta{Labels: map[string]string{"b": "2", "a": "1"}}),
			emptyObjectMeta + "5a060a0161120131 5a060a0162120132"},
		{"ObjectMeta{ManagedFields:[{}]}", "v0.37.2: field 17 tag is two bytes",
			AppendObjectMeta(nil, &ObjectMeta{ManagedFields: []ManagedFieldsEntry{{}}}),
			emptyObjectMeta + "8a01 0a 0a0012001a0032004200"},
		{"ObjectMeta{OwnerReferences:[{}]}", "v0.37.2: OwnerReference{} inside field 13",
			AppendObjectMeta(nil, &ObjectMeta{OwnerReferences: []OwnerReference{{}}}),
			emptyObjectMeta + "6a08 0a001a0022002a00"},
		{"ObjectMeta{DeletionTimestamp:&zero}", "generated.proto: non-nil pointer to zero Time is 4a 00",
			AppendObjectMeta(nil, &ObjectMeta{DeletionTimestamp: &time.Time{}}),
			emptyObjectMeta + "4a00"},
		{"ListMeta{}", "v0.37.2",
			AppendListMeta(nil, &ListMeta{}), "0a0012001a00"},
		{"Status{}", "v0.37.2",
			AppendStatus(nil, &Status{}), "0a06 0a0012001a00 12001a0022003000"},
		{"Status{Details:&{}}", "v0.37.2: StatusDetails{} inside field 5",
			AppendStatus(nil, &Status{Details: &StatusDetails{}}),
			"0a06 0a0012001a00 12001a002200 2a0a 0a0012001a0028003200 3000"},
		{"WatchEvent{}", "v0.37.2",
			AppendWatchEvent(nil, "", nil), "0a001200"},
		{"ConfigMap{}", "v0.37.2",
			configMapEmpty, "0a10" + emptyObjectMeta},
		{"ConfigMap{Data,BinaryData,Immutable}", "v0.37.2: nil bytes value left out, empty written",
			appendConfigMap(nil, &configMap{
				Data:       map[string]string{"k": "v"},
				BinaryData: map[string][]byte{"a": {}, "b": nil},
				Immutable:  ptr(false),
			}),
			"0a10" + emptyObjectMeta + "12060a016b120176 1a050a01611200 1a030a0162 2000"},
		{"Secret{}", "v0.37.2: type always written",
			appendSecret(nil, &secret{}), "0a10" + emptyObjectMeta + "1a00"},
		{"Namespace{}", "v0.37.2: spec and status always written",
			appendNamespace(nil, &namespace{}), "0a10" + emptyObjectMeta + "1200 1a020a00"},
		{"Envelope(v1, ConfigMap, ConfigMap{})", "envelope layout: magic, typeMeta, raw, empty contentEncoding and contentType",
			AppendEnvelope(nil, "v1", "ConfigMap", configMapEmpty),
			"6b387300" +
				"0a0f 0a027631 1209436f6e6669674d6170" +
				"1212 0a10" + emptyObjectMeta +
				"1a00 2200"},
		{"Envelope(\"\", \"\", empty)", "v0.37.2: runtime.Unknown{} plus the raw field the serializer always writes",
			AppendEnvelope(nil, "", "", nil), "6b387300 0a040a001200 1200 1a002200"},
		{"WatchEvent(ADDED, envelope)", "watch event: object.raw holds the enveloped object",
			AppendWatchEvent(nil, "ADDED", AppendEnvelope(nil, "v1", "ConfigMap", configMapEmpty)),
			"0a054144444544" + "122f 0a2d" +
				"6b387300 0a0f 0a027631 1209436f6e6669674d6170 1212 0a10" + emptyObjectMeta + "1a00 2200"},
		{"Frame(WatchEvent{})", "watch framing: 4-byte big-endian length",
			AppendFrame(nil, AppendWatchEvent(nil, "", nil)), "00000004 0a001200"},
	}
	for _, tt := range tests {
		want := mustHex(t, tt.want)
		if !bytes.Equal(tt.got, want) {
			t.Errorf("%s (%s):\n got %x\nwant %x", tt.name, tt.source, tt.got, want)
		}
	}
}

// TestVectorsDecode decodes the v0.37.2 vectors back.
func TestVectorsDecode(t *testing.T) {
	// runtime.Unknown{} as the generated marshaller writes it: no raw field.
	e, err := ConsumeEnvelope(mustHex(t, "6b387300 0a040a0012001a002200"))
	if err != nil || e.APIVersion != "" || e.Kind != "" || e.Raw != nil {
		t.Errorf("ConsumeEnvelope(Unknown{}) = %+v, %v; want zero Envelope", e, err)
	}

	cm, err := consumeConfigMap(mustHex(t, "0a10"+emptyObjectMeta+"12060a016b120176 1a050a01611200 1a030a0162 2000"))
	if err != nil {
		t.Fatalf("consumeConfigMap: %v", err)
	}
	if cm.Data["k"] != "v" || cm.Immutable == nil || *cm.Immutable {
		t.Errorf("data/immutable = %v/%v; want {k:v}/false", cm.Data, cm.Immutable)
	}
	// As in k8s.io/apimachinery v0.37.2, a missing bytes value decodes as
	// []byte{}.
	for _, k := range []string{"a", "b"} {
		if v, ok := cm.BinaryData[k]; !ok || v == nil || len(v) != 0 {
			t.Errorf("binaryData[%q] = %v (present %v); want empty non-nil", k, v, ok)
		}
	}

	m, err := ConsumeObjectMeta(mustHex(t, "0a0012001a0022002a00320038004204 08011000"))
	if err != nil || !m.CreationTimestamp.Equal(time.Unix(1, 0)) {
		t.Errorf("ConsumeObjectMeta(creationTimestamp 1s) = %v, %v", m.CreationTimestamp, err)
	}
	// Nanos on the wire are ignored.
	ts, err := ConsumeTime(mustHex(t, "08011002"))
	if err != nil || !ts.Equal(time.Unix(1, 0)) {
		t.Errorf("ConsumeTime(1s,2ns) = %v, %v; want 1s", ts, err)
	}
}

// TestVectorsAllFields writes every field once, with the bytes spelled out
// by hand from the field numbers of
// k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto (tag = number<<3 |
// wire type), so that a wrong number or a wrong presence rule shows up even
// for the pointer fields TestVectors leaves nil.
func TestVectorsAllFields(t *testing.T) {
	meta := ObjectMeta{
		Name: "n", GenerateName: "g", Namespace: "s", SelfLink: "l", UID: "u", ResourceVersion: "7",
		Generation:                 3,
		CreationTimestamp:          time.Unix(1, 0),
		DeletionTimestamp:          ptr(time.Unix(2, 0)),
		DeletionGracePeriodSeconds: ptr[int64](30),
		Labels:                     map[string]string{"a": "1"},
		Annotations:                map[string]string{"x": "y"},
		OwnerReferences: []OwnerReference{{
			APIVersion: "v1", Kind: "K", Name: "o", UID: "i",
			Controller: ptr(true), BlockOwnerDeletion: ptr(false),
		}},
		Finalizers: []string{"f"},
		ManagedFields: []ManagedFieldsEntry{{
			Manager: "m", Operation: "Update", APIVersion: "v1", Time: ptr(time.Unix(1, 0)),
			FieldsType: "FieldsV1", FieldsV1: []byte("{}"),
		}},
	}
	metaHex := "0a016e 120167 1a0173 22016c 2a0175 320137" + // strings 1-6
		"3803" + // generation
		"4204 08011000" + // creationTimestamp
		"4a04 08021000" + // deletionTimestamp
		"501e" + // deletionGracePeriodSeconds
		"5a06 0a0161 120131" + // labels
		"6206 0a0178 120179" + // annotations
		"6a11 0a014b 1a016f 220169 2a027631 3001 3800" + // ownerReferences: kind, name, uid, apiVersion, controller, blockOwnerDeletion
		"720166" + // finalizers
		"8a0127 0a016d 1206557064617465 1a027631 220408011000 32084669656c64735631 3a040a027b7d 4200" // managedFields
	status := Status{
		Metadata: ListMeta{SelfLink: "s", ResourceVersion: "5", Continue: "c", RemainingItemCount: ptr[int64](2)},
		Status:   "Failure", Message: `pods "foo" not found`, Reason: "NotFound",
		Details: &StatusDetails{
			Name: "foo", Group: "g", Kind: "pods", UID: "u", RetryAfterSeconds: 1,
			Causes: []StatusCause{{Type: "FieldValueInvalid", Message: "m", Field: "f"}},
		},
		Code: 404,
	}
	statusHex := "0a0b 0a0173 120135 1a0163 2002" + // metadata: selfLink, resourceVersion, continue, remainingItemCount
		"12074661696c757265" + // status
		"1a14706f6473202266 6f6f22206e6f7420666f756e64" + // message
		"22084e6f74466f756e64" + // reason
		"2a2e 0a03666f6f 120167 1a04706f6473" + // details: name, group, kind
		"2219 0a114669656c6456616c7565496e76616c6964 12016d 1a0166" + // cause
		"2801 320175" + // retryAfterSeconds, uid
		"309403" // code 404
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"ObjectMeta", AppendObjectMeta(nil, &meta), metaHex},
		{"Status", AppendStatus(nil, &status), statusHex},
		{"Status{Code:-1}", AppendStatus(nil, &Status{Code: -1}),
			"0a06 0a0012001a00 12001a002200 30ffffffffffffffffff01"}, // int32 is sign-extended
	}
	for _, tt := range tests {
		want := mustHex(t, tt.want)
		if !bytes.Equal(tt.got, want) {
			t.Errorf("%s:\n got %x\nwant %x", tt.name, tt.got, want)
		}
	}
	if n := SizeObjectMeta(&meta); n != len(mustHex(t, metaHex)) {
		t.Errorf("SizeObjectMeta = %d; want %d", n, len(mustHex(t, metaHex)))
	}
	if n := SizeStatus(&status); n != len(mustHex(t, statusHex)) {
		t.Errorf("SizeStatus = %d; want %d", n, len(mustHex(t, statusHex)))
	}
}
