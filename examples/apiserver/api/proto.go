package api

import (
	"errors"
	"fmt"

	"github.com/apisem/apisem/envelope"
	"google.golang.org/protobuf/encoding/protowire"
)

// ProtoObject is implemented by the types that have a protobuf form.
type ProtoObject interface {
	Object
	// AppendProto appends the object's protobuf encoding (without an
	// envelope) to b.
	AppendProto(b []byte) []byte
	// SizeProto returns the length AppendProto appends.
	SizeProto() int
}

// ErrProto is wrapped by every protobuf decoding error of this package.
var ErrProto = errors.New("api: malformed protobuf")

func protoErr(msg string, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrProto, msg, err)
}

// appendMetadata writes metadata as field 1, which every object has.
func appendMetadata(b []byte, m *envelope.ObjectMeta) []byte {
	return envelope.AppendObjectMetadata(b, m)
}

func sizeMetadata(m *envelope.ObjectMeta) int {
	n := envelope.SizeObjectMeta(m)
	return protowire.SizeTag(1) + protowire.SizeBytes(n)
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

// decodeMetadata decodes field 1 of an object.
func decodeMetadata(f envelope.Field) (envelope.ObjectMeta, error) {
	body, err := f.AsBytes()
	if err != nil {
		return envelope.ObjectMeta{}, err
	}
	return envelope.ConsumeObjectMeta(body)
}

func addStringEntry(m map[string]string, f envelope.Field) (map[string]string, error) {
	entry, err := f.AsBytes()
	if err != nil {
		return m, err
	}
	k, v, err := envelope.ConsumeStringMapEntry(entry)
	if err != nil {
		return m, err
	}
	if m == nil {
		m = make(map[string]string)
	}
	m[k] = v
	return m, nil
}

// addBytesEntry copies the value: the envelope decoder aliases its input,
// and a stored object must own its memory.
func addBytesEntry(m map[string][]byte, f envelope.Field) (map[string][]byte, error) {
	entry, err := f.AsBytes()
	if err != nil {
		return m, err
	}
	k, v, err := envelope.ConsumeBytesMapEntry(entry)
	if err != nil {
		return m, err
	}
	if m == nil {
		m = make(map[string][]byte)
	}
	m[k] = append([]byte{}, v...)
	return m, nil
}
