package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/apisem/apisem/server"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
)

// FuzzDecodeProto feeds arbitrary bytes to every protobuf decoder: it must
// not panic, must fail only with ErrProto, and what it accepts must encode
// to a fixed point (decode(encode(x)) encodes to the same bytes).
func FuzzDecodeProto(f *testing.F) {
	for _, o := range []server.ProtoObject{
		&ConfigMap{ObjectMeta: fullMeta(), Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"b": {1}}},
		&Secret{ObjectMeta: fullMeta(), Data: map[string][]byte{"p": nil}, Type: "Opaque"},
		&Event{ObjectMeta: fullMeta(), Series: &EventSeries{Count: 1}, Related: &ObjectReference{Name: "r"},
			EventTime: meta.MicroTime{Time: time.Unix(5, 7000)}},
	} {
		f.Add(o.AppendProto(nil))
	}
	f.Add([]byte{0x0a, 0xff})
	var decoders []func([]byte) (server.Object, error)
	for _, r := range Resources() {
		if r.DecodeProto != nil && r.Kind != "Namespace" { // package namespace fuzzes its own
			decoders = append(decoders, r.DecodeProto)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, decode := range decoders {
			o, err := decode(b)
			if err != nil {
				if !errors.Is(err, ErrProto) {
					t.Fatalf("error does not wrap ErrProto: %v", err)
				}
				continue
			}
			once := o.(server.ProtoObject).AppendProto(nil)
			if len(once) != o.(server.ProtoObject).SizeProto() {
				t.Fatalf("SizeProto %d, AppendProto wrote %d", o.(server.ProtoObject).SizeProto(), len(once))
			}
			o2, err := decode(once)
			if err != nil {
				t.Fatalf("re-decoding our own encoding: %v", err)
			}
			if twice := o2.(server.ProtoObject).AppendProto(nil); !bytes.Equal(once, twice) {
				t.Fatalf("encoding is not a fixed point:\n%x\n%x", once, twice)
			}
		}
	})
}

// FuzzValidateSecret gives arbitrary Secrets to the Secret validation: it
// must not panic, and a docker config Secret is refused for its content
// exactly when the content is not a JSON object or null, the one thing
// Kubernetes asks of it (encoding/json decoding it into a map).
func FuzzValidateSecret(f *testing.F) {
	for _, s := range [][2]string{
		{SecretTypeDockerConfigJSON, `{"auths":{"r":{"auth":"dTpw"}}}`},
		{SecretTypeDockerConfigJSON, ` null `},
		{SecretTypeDockercfg, `[]`},
		{SecretTypeDockercfg, `{"a":1} x`},
		{SecretTypeTLS, ""},
		{"Opaque", "\xff"},
	} {
		f.Add(s[0], []byte(s[1]))
	}
	var validate func(o, old server.Object) []FieldError
	for _, r := range Resources() {
		if r.Kind == "Secret" {
			validate = r.Validate
		}
	}
	f.Fuzz(func(t *testing.T, typ string, value []byte) {
		s := &Secret{Type: typ, Data: map[string][]byte{".dockercfg": value, ".dockerconfigjson": value}}
		errs := validate(s, nil)
		if typ != SecretTypeDockercfg && typ != SecretTypeDockerConfigJSON {
			return
		}
		trimmed := bytes.TrimSpace(value)
		object := json.Valid(value) && (len(trimmed) > 0 && trimmed[0] == '{' || string(trimmed) == "null")
		if refused := len(errs) == 1 && errs[0].BadValue == "<secret contents redacted>"; refused == object || len(errs) > 1 {
			t.Fatalf("%s %q: errors %v", typ, value, errs)
		}
	})
}
