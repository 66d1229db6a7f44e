package envelope

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
)

// The test encoders below write core/v1 types with this package's helpers,
// the way a user (or the example server) encodes its own types.

type configMap struct {
	Metadata   meta.ObjectMeta
	Data       map[string]string
	BinaryData map[string][]byte
	Immutable  *bool
}

// appendConfigMap writes ConfigMap: metadata 1, data 2, binaryData 3,
// immutable 4 (ascending numbers, whatever the .proto order).
func appendConfigMap(b []byte, c *configMap) []byte {
	b = meta.AppendObjectMetadata(b, &c.Metadata)
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
			c.Metadata, err = meta.ConsumeObjectMeta(body)
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
	Metadata meta.ObjectMeta
	Data     map[string][]byte
	Type     string
}

func appendSecret(b []byte, s *secret) []byte {
	b = meta.AppendObjectMetadata(b, &s.Metadata)
	b = AppendBytesMap(b, 2, s.Data)
	return appendString(b, 3, s.Type)
}

type namespace struct {
	Metadata   meta.ObjectMeta
	Finalizers []string
	Phase      string
}

func appendNamespace(b []byte, ns *namespace) []byte {
	b = meta.AppendObjectMetadata(b, &ns.Metadata)
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
}

// TestVectorsAllFields writes every field of a Status once, with the bytes
// spelled out by hand from the field numbers of
// k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto (tag = number<<3 |
// wire type), so that a wrong number or a wrong presence rule shows up even
// for the pointer fields TestVectors leaves nil.
func TestVectorsAllFields(t *testing.T) {
	status := Status{
		Metadata: meta.ListMeta{SelfLink: "s", ResourceVersion: "5", Continue: "c", RemainingItemCount: ptr[int64](2)},
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
	if n := SizeStatus(&status); n != len(mustHex(t, statusHex)) {
		t.Errorf("SizeStatus = %d; want %d", n, len(mustHex(t, statusHex)))
	}
}
