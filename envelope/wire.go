package envelope

import (
	"errors"
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// ErrMalformed reports bytes that are not a valid protobuf encoding of the
// message being read: a bad tag or varint, a length past the end of the
// input, or a known field carrying the wrong wire type. Truncated input also
// matches io.ErrUnexpectedEOF. Metadata decoded by package meta fails with
// meta.ErrMalformed instead; where this package decodes metadata itself (a
// list's or a Status's), the error matches both.
var ErrMalformed = errors.New("envelope: malformed protobuf")

// metaError makes an error of package meta's decoders match ErrMalformed
// too.
func metaError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}

// parseError turns a negative protowire length into an error. protowire maps
// truncation to io.ErrUnexpectedEOF, so wrapping both keeps that visible.
func parseError(n int) error {
	return fmt.Errorf("%w: %w", ErrMalformed, protowire.ParseError(n))
}

// Field is one field of a message as it appears on the wire, as returned by
// ConsumeField. It aliases the input: Bytes points into the decoded buffer.
type Field struct {
	Num  protowire.Number
	Type protowire.Type

	// Uint is the value of a varint, fixed32 or fixed64 field.
	Uint uint64

	// Bytes is the content of a length-delimited field (without its
	// length). For a group it is the group's encoded body including the end
	// marker.
	Bytes []byte
}

// ConsumeField reads the field at the start of b and reports how many bytes
// it occupies. It is the building block for decoding messages this package
// has no type for: loop over the message, switch on Num, call the As
// accessors, and ignore unknown numbers as Kubernetes' generated decoders do.
func ConsumeField(b []byte) (Field, int, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return Field{}, 0, parseError(n)
	}
	f := Field{Num: num, Type: typ}
	var m int
	switch typ {
	case protowire.VarintType:
		f.Uint, m = protowire.ConsumeVarint(b[n:])
	case protowire.Fixed32Type:
		var v uint32
		v, m = protowire.ConsumeFixed32(b[n:])
		f.Uint = uint64(v)
	case protowire.Fixed64Type:
		f.Uint, m = protowire.ConsumeFixed64(b[n:])
	case protowire.BytesType:
		f.Bytes, m = protowire.ConsumeBytes(b[n:])
	default:
		// Groups are obsolete but legal; reserved and stray end-group wire
		// types are rejected by ConsumeFieldValue.
		m = protowire.ConsumeFieldValue(num, typ, b[n:])
		if m >= 0 {
			f.Bytes = b[n : n+m]
		}
	}
	if m < 0 {
		return Field{}, 0, parseError(m)
	}
	return f, n + m, nil
}

// RangeFields calls fn for each field of the message b, in wire order, and
// stops at the first error, from the wire or from fn.
func RangeFields(b []byte, fn func(Field) error) error {
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func (f Field) want(t protowire.Type) error {
	if f.Type == t {
		return nil
	}
	return fmt.Errorf("%w: field %d has wire type %s, want %s", ErrMalformed, f.Num, wireTypeName(f.Type), wireTypeName(t))
}

func wireTypeName(t protowire.Type) string {
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
	return fmt.Sprintf("%d", t)
}

// AsBytes returns the content of a length-delimited field (a bytes, string
// or message field). It aliases the input.
func (f Field) AsBytes() ([]byte, error) {
	if err := f.want(protowire.BytesType); err != nil {
		return nil, err
	}
	return f.Bytes, nil
}

// AsString returns a string field's value as a new string.
func (f Field) AsString() (string, error) {
	if err := f.want(protowire.BytesType); err != nil {
		return "", err
	}
	return string(f.Bytes), nil
}

// AsInt64 returns an int64 field's value.
func (f Field) AsInt64() (int64, error) {
	if err := f.want(protowire.VarintType); err != nil {
		return 0, err
	}
	return int64(f.Uint), nil
}

// AsInt32 returns an int32 field's value. Like Go's generated decoders it
// keeps the low 32 bits of the varint (negative values arrive sign-extended).
func (f Field) AsInt32() (int32, error) {
	if err := f.want(protowire.VarintType); err != nil {
		return 0, err
	}
	return int32(f.Uint), nil
}

// AsBool returns a bool field's value: any non-zero varint is true.
func (f Field) AsBool() (bool, error) {
	if err := f.want(protowire.VarintType); err != nil {
		return false, err
	}
	return f.Uint != 0, nil
}

// Small encoders shared by the messages in this package. Kubernetes writes
// non-pointer scalars even when they are zero, so none of these skip empty
// values: callers decide presence.

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func sizeString(num protowire.Number, s string) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(len(s))
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func sizeBytes(num protowire.Number, n int) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}

// appendInt writes a signed integer field; int32 values are sign-extended to
// 64 bits first, as protobuf requires, so negative numbers take ten bytes.
func appendInt(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func sizeInt(num protowire.Number, v int64) int {
	return protowire.SizeTag(num) + protowire.SizeVarint(uint64(v))
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeBool(v))
}

func sizeBool(num protowire.Number) int {
	return protowire.SizeTag(num) + 1
}

// AppendMessageFunc appends field num as a length-delimited field whose
// content appendValue writes directly into b, so nested messages (an object
// inside an envelope, ObjectMeta inside an object, an item inside a list)
// need no intermediate buffer.
//
// The length varint is reserved before appendValue runs and filled in after.
// sizeHint is the expected content size: when it is exact (from a Size
// function) the content never moves; when it is wrong the content is moved
// once to keep the length varint minimal, which Kubernetes' encoder always
// produces. A hint of 0 is fine for content under 128 bytes.
//
// appendValue must only append to its argument and return the result.
func AppendMessageFunc(b []byte, num protowire.Number, sizeHint int, appendValue func([]byte) []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return appendLengthPrefixed(b, sizeHint, appendValue)
}

// appendLengthPrefixed appends a varint length followed by what fn appends.
func appendLengthPrefixed(b []byte, sizeHint int, fn func([]byte) []byte) []byte {
	if sizeHint < 0 {
		sizeHint = 0
	}
	at := len(b)
	reserved := protowire.SizeVarint(uint64(sizeHint))
	b = append(b, make([]byte, reserved)...)
	start := len(b)
	b = fn(b)
	if len(b) < start {
		panic("envelope: append function returned a shorter buffer than it was given")
	}
	n := len(b) - start
	need := protowire.SizeVarint(uint64(n))
	switch {
	case need > reserved:
		b = append(b, make([]byte, need-reserved)...)
		copy(b[at+need:], b[start:start+n])
	case need < reserved:
		copy(b[at+need:], b[start:start+n])
		b = b[:at+need+n]
	}
	putVarint(b[at:at+need], uint64(n))
	return b
}

// putVarint writes v into exactly len(dst) bytes, which must be
// protowire.SizeVarint(v).
func putVarint(dst []byte, v uint64) {
	i := 0
	for ; i < len(dst)-1; i++ {
		dst[i] = byte(v) | 0x80
		v >>= 7
	}
	dst[i] = byte(v)
}

// Maps. Kubernetes sorts keys before writing so its output is
// deterministic; each entry is a small message {1: key, 2: value}.

// sortedKeys returns m's keys in byte-wise order, using buf's storage when
// it is large enough so that small maps cost no allocation.
func sortedKeys[V any](m map[string]V, buf []string) []string {
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// AppendStringMap appends m as the map<string, string> field num, entries in
// byte-wise key order. The value is always written, even when empty. An
// empty or nil map writes nothing.
func AppendStringMap(b []byte, num protowire.Number, m map[string]string) []byte {
	if len(m) == 0 {
		return b
	}
	var arr [16]string
	for _, k := range sortedKeys(m, arr[:]) {
		v := m[k]
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeString(1, k)+sizeString(2, v)))
		b = appendString(b, 1, k)
		b = appendString(b, 2, v)
	}
	return b
}

// SizeStringMap reports the size of AppendStringMap's output.
func SizeStringMap(num protowire.Number, m map[string]string) int {
	n := 0
	for k, v := range m {
		e := sizeString(1, k) + sizeString(2, v)
		n += protowire.SizeTag(num) + protowire.SizeBytes(e)
	}
	return n
}

// AppendBytesMap appends m as the map<string, bytes> field num, entries in
// byte-wise key order. Kubernetes distinguishes nil from empty values here:
// a nil value is left out of the entry, an empty non-nil value is written
// as an empty field. An empty or nil map writes nothing.
func AppendBytesMap(b []byte, num protowire.Number, m map[string][]byte) []byte {
	if len(m) == 0 {
		return b
	}
	var arr [16]string
	for _, k := range sortedKeys(m, arr[:]) {
		v := m[k]
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeBytesEntry(k, v)))
		b = appendString(b, 1, k)
		if v != nil {
			b = appendBytes(b, 2, v)
		}
	}
	return b
}

func sizeBytesEntry(k string, v []byte) int {
	n := sizeString(1, k)
	if v != nil {
		n += sizeBytes(2, len(v))
	}
	return n
}

// SizeBytesMap reports the size of AppendBytesMap's output.
func SizeBytesMap(num protowire.Number, m map[string][]byte) int {
	n := 0
	for k, v := range m {
		n += protowire.SizeTag(num) + protowire.SizeBytes(sizeBytesEntry(k, v))
	}
	return n
}

// ConsumeStringMapEntry decodes one entry of a map<string, string> field
// (the content of the field, as in Field.Bytes). A missing key or value is
// "". Unknown fields in the entry are skipped.
func ConsumeStringMapEntry(entry []byte) (key, value string, err error) {
	k, v, err := consumeMapEntry(entry)
	return string(k), string(v), err
}

// ConsumeBytesMapEntry decodes one entry of a map<string, bytes> field. The
// value aliases entry; a missing value decodes as an empty, non-nil slice,
// as in Kubernetes' generated decoders.
func ConsumeBytesMapEntry(entry []byte) (key string, value []byte, err error) {
	k, v, err := consumeMapEntry(entry)
	if err != nil {
		return "", nil, err
	}
	if v == nil {
		v = []byte{}
	}
	return string(k), v, nil
}

func consumeMapEntry(b []byte) (key, value []byte, err error) {
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return nil, nil, err
		}
		switch f.Num {
		case 1:
			if key, err = f.AsBytes(); err != nil {
				return nil, nil, err
			}
		case 2:
			if value, err = f.AsBytes(); err != nil {
				return nil, nil, err
			}
		}
		b = b[n:]
	}
	return key, value, nil
}
