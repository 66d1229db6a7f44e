package api

import (
	"errors"
	"fmt"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"google.golang.org/protobuf/encoding/protowire"
)

// ErrProto is wrapped by every protobuf decoding error of this package.
var ErrProto = errors.New("api: malformed protobuf")

func protoErr(msg string, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrProto, msg, err)
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func sizeString(num protowire.Number, s string) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(len(s))
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeBool(v))
}

func sizeBool(num protowire.Number) int { return protowire.SizeTag(num) + 1 }

func appendMessage(b []byte, num protowire.Number, size int, body func([]byte) []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(size))
	return body(b)
}

func sizeMessage(num protowire.Number, size int) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(size)
}

// decodeObject decodes the protobuf encoding b into o, an empty object:
// field 1, the metadata every object has, here and every other field with
// field, which ignores the numbers it does not know. Errors wrap ErrProto
// and name the kind.
func decodeObject(b []byte, o server.Object, field func(envelope.Field) error) (server.Object, error) {
	err := envelope.RangeFields(b, func(f envelope.Field) error {
		if f.Num != 1 {
			return field(f)
		}
		body, err := f.AsBytes()
		if err != nil {
			return err
		}
		m, err := meta.ConsumeObjectMeta(body)
		*o.Meta() = m
		return err
	})
	if err != nil {
		return nil, protoErr(Kind(o), err)
	}
	return o, nil
}

// decodeSub decodes the fields of the embedded message f with fn.
func decodeSub(f envelope.Field, fn func(envelope.Field) error) error {
	body, err := f.AsBytes()
	if err != nil {
		return err
	}
	return envelope.RangeFields(body, fn)
}

// decodeOptionalBool decodes a bool field of a *bool.
func decodeOptionalBool(f envelope.Field) (*bool, error) {
	v, err := f.AsBool()
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// decodeTime decodes a metav1.Time field.
func decodeTime(f envelope.Field) (meta.Time, error) {
	body, err := f.AsBytes()
	if err != nil {
		return meta.Time{}, err
	}
	return meta.ConsumeTime(body)
}
