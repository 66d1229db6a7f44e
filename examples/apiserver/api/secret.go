package api

import (
	"bytes"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"maps"

	"github.com/apisem/apisem/envelope"
)

// SecretTypeOpaque is the default type of a Secret.
const SecretTypeOpaque = "Opaque"

// Secret is core v1 Secret. JSON order: metadata, immutable, data,
// stringData, type; protobuf: metadata 1, data 2, type 3, stringData 4,
// immutable 5.
type Secret struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Immutable       *bool             `json:"immutable,omitempty"`
	Data            map[string][]byte `json:"data,omitempty"`
	// StringData is write-only: on create and update it is merged into
	// Data and cleared, so it is never stored or returned.
	StringData map[string]string `json:"stringData,omitempty"`
	Type       string            `json:"type,omitempty"`
}

// Types returns the object's TypeMeta.
func (s *Secret) Types() *meta.TypeMeta { return &s.TypeMeta }

// DeepCopyObject returns a deep copy of s.
func (s *Secret) DeepCopyObject() server.Object { return s.DeepCopy() }

// DeepCopy returns a deep copy of s.
func (s *Secret) DeepCopy() *Secret {
	out := &Secret{TypeMeta: s.TypeMeta, Immutable: copyBool(s.Immutable), Type: s.Type}
	s.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Data = copyBytesMap(s.Data)
	out.StringData = maps.Clone(s.StringData)
	return out
}

// AppendProto appends the protobuf encoding of s.
func (s *Secret) AppendProto(b []byte) []byte {
	b = meta.AppendObjectMetadata(b, &s.ObjectMeta)
	b = envelope.AppendBytesMap(b, 2, s.Data)
	b = appendString(b, 3, s.Type)
	b = envelope.AppendStringMap(b, 4, s.StringData)
	if s.Immutable != nil {
		b = appendBool(b, 5, *s.Immutable)
	}
	return b
}

// SizeProto returns the length of s's protobuf encoding.
func (s *Secret) SizeProto() int {
	n := meta.SizeObjectMetadata(&s.ObjectMeta) + envelope.SizeBytesMap(2, s.Data) + sizeString(3, s.Type) +
		envelope.SizeStringMap(4, s.StringData)
	if s.Immutable != nil {
		n += sizeBool(5)
	}
	return n
}

func decodeSecret(b []byte) (server.Object, error) {
	s := &Secret{}
	return decodeObject(b, s, func(f envelope.Field) (err error) {
		switch f.Num {
		case 2:
			s.Data, err = envelope.AddBytesMapEntry(s.Data, f)
		case 3:
			s.Type, err = f.AsString()
		case 4:
			s.StringData, err = envelope.AddStringMapEntry(s.StringData, f)
		case 5:
			s.Immutable, err = decodeOptionalBool(f)
		}
		return err
	})
}

// defaultSecret applies Kubernetes' defaulting: the Opaque type, and
// stringData merged over data.
func defaultSecret(o server.Object) {
	s := o.(*Secret)
	if s.Type == "" {
		s.Type = SecretTypeOpaque
	}
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = make(map[string][]byte, len(s.StringData))
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
	}
	s.StringData = nil
}

func validateSecret(o, old server.Object) []FieldError {
	s := o.(*Secret)
	errs := validateKeys(nil, "data", sortedKeys(s.Data), "", nil)
	if dataSize(s.Data) > maxDataSize {
		errs = append(errs, tooLong("data", maxDataSize))
	}
	if old == nil {
		return errs
	}
	prev := old.(*Secret)
	if s.Type != prev.Type {
		errs = append(errs, invalid("type", s.Type, "field is immutable"))
	}
	if isTrue(prev.Immutable) {
		errs = append(errs, frozen(s.Immutable, change{"data", !maps.EqualFunc(s.Data, prev.Data, bytes.Equal)})...)
	}
	return errs
}
