package meta

import (
	"errors"
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// ErrMalformed reports bytes that are not a valid protobuf encoding of the
// message being read: a bad tag or varint, a length past the end of the
// input, or a known field with the wrong wire type. Truncated input also
// matches io.ErrUnexpectedEOF.
var ErrMalformed = errors.New("meta: malformed protobuf")

// The wire format is protowire's; what follows writes and reads whole
// fields (tag and value) and wraps protowire's errors in ErrMalformed.

// wireError wraps protowire's negative length n: truncation is
// io.ErrUnexpectedEOF, as protowire.ParseError reports it.
func wireError(n int) error {
	return fmt.Errorf("%w: %w", ErrMalformed, protowire.ParseError(n))
}

// appendVarint is protowire.AppendVarint with the one-byte case inlined:
// in metadata that is every tag and most lengths, and protowire's
// function is too large for the compiler to inline (BenchmarkObjectMetaProto
// Append measured about 40% slower with a call per varint).
func appendVarint(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

func appendTag(b []byte, num protowire.Number, t protowire.Type) []byte {
	return appendVarint(b, protowire.EncodeTag(num, t))
}

// appendLen appends the tag and length of a length-delimited field of n
// bytes; the caller appends the content.
func appendLen(b []byte, num protowire.Number, n int) []byte {
	if tag := protowire.EncodeTag(num, protowire.BytesType); tag < 0x80 && n < 0x80 {
		return append(b, byte(tag), byte(n))
	}
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.BytesType), uint64(n))
}

// sizeLen is the size of a length-delimited field with n bytes of content.
// It spells out protowire.SizeTag and SizeBytes so that the compiler
// inlines it, and folds the tag's size where num is a constant.
func sizeLen(num protowire.Number, n int) int {
	return protowire.SizeVarint(protowire.EncodeTag(num, 0)) + protowire.SizeVarint(uint64(n)) + n
}

// Kubernetes writes non-pointer scalars even when they are zero, so none
// of these skip empty values: callers decide presence.

func appendString(b []byte, num protowire.Number, s string) []byte {
	return append(appendLen(b, num, len(s)), s...)
}

func sizeString(num protowire.Number, s string) int { return sizeLen(num, len(s)) }

// appendInt writes a signed integer field as a varint of its 64-bit two's
// complement, so negative numbers take ten bytes.
func appendInt(b []byte, num protowire.Number, v int64) []byte {
	return appendVarint(appendTag(b, num, protowire.VarintType), uint64(v))
}

func sizeInt(num protowire.Number, v int64) int {
	return protowire.SizeVarint(protowire.EncodeTag(num, 0)) + protowire.SizeVarint(uint64(v))
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	return appendVarint(appendTag(b, num, protowire.VarintType), protowire.EncodeBool(v))
}

func sizeBool(num protowire.Number) int { return protowire.SizeTag(num) + 1 }

// appendTimeField writes a Time-valued field: tag and length always, body
// per AppendTime (a value field; a pointer field calls it when non-nil).
func appendTimeField(b []byte, num protowire.Number, t Time) []byte {
	return AppendTime(appendLen(b, num, SizeTime(t)), t)
}

func sizeTimeField(num protowire.Number, t Time) int { return sizeLen(num, SizeTime(t)) }

// appendStringMap appends m as the map<string, string> field num: entries
// {1: key, 2: value} in byte-wise key order, the value always written.
func appendStringMap(b []byte, num protowire.Number, m map[string]string) []byte {
	if len(m) == 0 {
		return b
	}
	var arr [16]string // small maps sort without allocating
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := m[k]
		b = appendLen(b, num, sizeString(1, k)+sizeString(2, v))
		b = appendString(b, 1, k)
		b = appendString(b, 2, v)
	}
	return b
}

func sizeStringMap(num protowire.Number, m map[string]string) int {
	n := 0
	for k, v := range m {
		n += sizeLen(num, sizeString(1, k)+sizeString(2, v))
	}
	return n
}

// field is one field as it appears on the wire. bytes aliases the input.
type field struct {
	num   protowire.Number
	typ   protowire.Type
	u     uint64 // a varint's value
	bytes []byte // a length-delimited field's content
}

// consumeField reads the field at the start of b and reports its size.
// No metadata field is fixed-width or a group: those values are skipped
// (a group whole, within protowire's nesting limit), and a known field
// of such a type fails want.
func consumeField(b []byte) (field, int, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return field{}, 0, wireError(n)
	}
	f := field{num: num, typ: typ}
	var m int
	switch typ {
	case protowire.VarintType:
		f.u, m = protowire.ConsumeVarint(b[n:])
	case protowire.BytesType:
		f.bytes, m = protowire.ConsumeBytes(b[n:])
	default:
		m = protowire.ConsumeFieldValue(num, typ, b[n:])
	}
	if m < 0 {
		return field{}, 0, wireError(m)
	}
	return f, n + m, nil
}

func (f field) want(t protowire.Type) error {
	if f.typ == t {
		return nil
	}
	return fmt.Errorf("%w: field %d has wire type %s, want %s", ErrMalformed, f.num, typeName(f.typ), typeName(t))
}

// typeName names a wire type in errors (protowire.Type has no String).
func typeName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "varint"
	case protowire.Fixed32Type:
		return "fixed32"
	case protowire.Fixed64Type:
		return "fixed64"
	case protowire.BytesType:
		return "bytes"
	case protowire.StartGroupType, protowire.EndGroupType:
		return "group"
	}
	return fmt.Sprintf("%d", uint8(t))
}

func (f field) content() ([]byte, error) {
	if err := f.want(protowire.BytesType); err != nil {
		return nil, err
	}
	return f.bytes, nil
}

func (f field) string() (string, error) {
	b, err := f.content()
	return string(b), err
}

func (f field) int64() (int64, error) {
	if err := f.want(protowire.VarintType); err != nil {
		return 0, err
	}
	return int64(f.u), nil
}

// int32 keeps the low 32 bits, as Go's generated decoders do.
func (f field) int32() (int32, error) {
	if err := f.want(protowire.VarintType); err != nil {
		return 0, err
	}
	return int32(f.u), nil
}

func (f field) bool() (bool, error) {
	if err := f.want(protowire.VarintType); err != nil {
		return false, err
	}
	return protowire.DecodeBool(f.u), nil
}

// addStringMapEntry decodes one entry of a map<string, string> field into
// m, allocated when nil; a repeated key keeps the last value.
func addStringMapEntry(m map[string]string, f field) (map[string]string, error) {
	entry, err := f.content()
	if err != nil {
		return m, err
	}
	var k, v []byte
	for len(entry) > 0 {
		f, n, err := consumeField(entry)
		if err != nil {
			return m, err
		}
		switch f.num {
		case 1:
			k, err = f.content()
		case 2:
			v, err = f.content()
		}
		if err != nil {
			return m, err
		}
		entry = entry[n:]
	}
	if m == nil {
		m = make(map[string]string)
	}
	m[string(k)] = string(v)
	return m, nil
}
