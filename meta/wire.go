package meta

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
)

// ErrMalformed reports bytes that are not a valid protobuf encoding of the
// message being read: a bad tag or varint, a length past the end of the
// input, or a known field with the wrong wire type. Truncated input also
// matches io.ErrUnexpectedEOF.
var ErrMalformed = errors.New("meta: malformed protobuf")

// The protobuf wire format, as far as metadata needs it. It is written
// against encoding/binary, whose unsigned varints are protobuf's, so that
// this package depends on the standard library only.

type wireType uint8

const (
	varintType     wireType = 0
	fixed64Type    wireType = 1
	bytesType      wireType = 2
	startGroupType wireType = 3
	endGroupType   wireType = 4
	fixed32Type    wireType = 5
)

// maxGroupDepth bounds the nesting of obsolete groups in skipped fields,
// as protobuf-go's default recursion limit does.
const maxGroupDepth = 10000

func errTruncated() error { return fmt.Errorf("%w: %w", ErrMalformed, io.ErrUnexpectedEOF) }

func appendTag(b []byte, num int, t wireType) []byte {
	return binary.AppendUvarint(b, uint64(num)<<3|uint64(t))
}

func sizeVarint(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

func sizeTag(num int) int { return sizeVarint(uint64(num) << 3) }

// appendLen appends the tag and length of a length-delimited field of n
// bytes; the caller appends the content.
func appendLen(b []byte, num, n int) []byte {
	b = appendTag(b, num, bytesType)
	return binary.AppendUvarint(b, uint64(n))
}

// sizeLen is the size of a length-delimited field with n bytes of content.
func sizeLen(num, n int) int { return sizeTag(num) + sizeVarint(uint64(n)) + n }

// Kubernetes writes non-pointer scalars even when they are zero, so none
// of these skip empty values: callers decide presence.

func appendString(b []byte, num int, s string) []byte {
	return append(appendLen(b, num, len(s)), s...)
}

func sizeString(num int, s string) int { return sizeLen(num, len(s)) }

// appendInt writes a signed integer field as a varint of its 64-bit two's
// complement, so negative numbers take ten bytes.
func appendInt(b []byte, num int, v int64) []byte {
	b = appendTag(b, num, varintType)
	return binary.AppendUvarint(b, uint64(v))
}

func sizeInt(num int, v int64) int { return sizeTag(num) + sizeVarint(uint64(v)) }

func appendBool(b []byte, num int, v bool) []byte {
	var x int64
	if v {
		x = 1
	}
	return appendInt(b, num, x)
}

func sizeBool(num int) int { return sizeTag(num) + 1 }

// appendTimeField writes a Time-valued field: tag and length always, body
// per AppendTime (a value field; a pointer field calls it when non-nil).
func appendTimeField(b []byte, num int, t Time) []byte {
	return AppendTime(appendLen(b, num, SizeTime(t)), t)
}

func sizeTimeField(num int, t Time) int { return sizeLen(num, SizeTime(t)) }

// appendStringMap appends m as the map<string, string> field num: entries
// {1: key, 2: value} in byte-wise key order, the value always written.
func appendStringMap(b []byte, num int, m map[string]string) []byte {
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

func sizeStringMap(num int, m map[string]string) int {
	n := 0
	for k, v := range m {
		n += sizeLen(num, sizeString(1, k)+sizeString(2, v))
	}
	return n
}

// field is one field as it appears on the wire. bytes aliases the input.
type field struct {
	num   int
	typ   wireType
	u     uint64 // a varint, fixed32 or fixed64 value
	bytes []byte // a length-delimited field's content
}

func consumeVarint(b []byte) (uint64, int, error) {
	v, n := binary.Uvarint(b)
	switch {
	case n == 0:
		return 0, 0, errTruncated()
	case n < 0:
		return 0, 0, fmt.Errorf("%w: varint overflows 64 bits", ErrMalformed)
	}
	return v, n, nil
}

func consumeTag(b []byte) (int, wireType, int, error) {
	v, n, err := consumeVarint(b)
	if err != nil {
		return 0, 0, 0, err
	}
	num := v >> 3
	if num == 0 || num > math.MaxInt32 {
		return 0, 0, 0, fmt.Errorf("%w: invalid field number", ErrMalformed)
	}
	return int(num), wireType(v & 7), n, nil
}

// consumeField reads the field at the start of b and reports its size.
// Groups are obsolete but legal: they are skipped whole.
func consumeField(b []byte) (field, int, error) {
	return consumeFieldDepth(b, 0)
}

func consumeFieldDepth(b []byte, depth int) (field, int, error) {
	num, typ, n, err := consumeTag(b)
	if err != nil {
		return field{}, 0, err
	}
	f := field{num: num, typ: typ}
	rest := b[n:]
	switch typ {
	case varintType:
		var m int
		if f.u, m, err = consumeVarint(rest); err != nil {
			return field{}, 0, err
		}
		return f, n + m, nil
	case fixed32Type:
		if len(rest) < 4 {
			return field{}, 0, errTruncated()
		}
		f.u = uint64(binary.LittleEndian.Uint32(rest))
		return f, n + 4, nil
	case fixed64Type:
		if len(rest) < 8 {
			return field{}, 0, errTruncated()
		}
		f.u = binary.LittleEndian.Uint64(rest)
		return f, n + 8, nil
	case bytesType:
		l, m, err := consumeVarint(rest)
		if err != nil {
			return field{}, 0, err
		}
		if l > uint64(len(rest)-m) {
			return field{}, 0, errTruncated()
		}
		f.bytes = rest[m : m+int(l)]
		return f, n + m + int(l), nil
	case startGroupType:
		if depth >= maxGroupDepth {
			return field{}, 0, fmt.Errorf("%w: groups nested too deeply", ErrMalformed)
		}
		for i := 0; ; {
			if i >= len(rest) {
				return field{}, 0, errTruncated()
			}
			g, m, err := consumeFieldDepth(rest[i:], depth+1)
			if err != nil {
				return field{}, 0, err
			}
			i += m
			if g.typ == endGroupType {
				if g.num != num {
					return field{}, 0, fmt.Errorf("%w: mismatched end group", ErrMalformed)
				}
				f.bytes = rest[:i]
				return f, n + i, nil
			}
		}
	case endGroupType:
		if depth > 0 {
			return f, n, nil // the caller's group ends here
		}
		return field{}, 0, fmt.Errorf("%w: end group without start", ErrMalformed)
	}
	return field{}, 0, fmt.Errorf("%w: reserved wire type %d", ErrMalformed, typ)
}

func (f field) want(t wireType) error {
	if f.typ == t {
		return nil
	}
	return fmt.Errorf("%w: field %d has wire type %s, want %s", ErrMalformed, f.num, f.typ, t)
}

func (t wireType) String() string {
	switch t {
	case varintType:
		return "varint"
	case fixed32Type:
		return "fixed32"
	case fixed64Type:
		return "fixed64"
	case bytesType:
		return "bytes"
	case startGroupType, endGroupType:
		return "group"
	}
	return fmt.Sprintf("%d", uint8(t))
}

func (f field) content() ([]byte, error) {
	if err := f.want(bytesType); err != nil {
		return nil, err
	}
	return f.bytes, nil
}

func (f field) string() (string, error) {
	b, err := f.content()
	return string(b), err
}

func (f field) int64() (int64, error) {
	if err := f.want(varintType); err != nil {
		return 0, err
	}
	return int64(f.u), nil
}

// int32 keeps the low 32 bits, as Go's generated decoders do.
func (f field) int32() (int32, error) {
	if err := f.want(varintType); err != nil {
		return 0, err
	}
	return int32(f.u), nil
}

func (f field) bool() (bool, error) {
	if err := f.want(varintType); err != nil {
		return false, err
	}
	return f.u != 0, nil
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
