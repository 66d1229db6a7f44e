package negotiation

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/meta"
)

// Tables are written by appending, byte for byte what encoding/json's
// Marshal writes for them (HTML-safe strings, compacted embedded objects),
// because Marshal spends half of a large Table's cost re-scanning each
// row's object with its generic scanner, through reflection. Only what
// the fast path does not cover goes through encoding/json: cells of other
// types than strings, bools, integers and finite floats, and objects the
// fast compactor rejects (invalid or nested deeper than it tracks), so
// that the output and the errors stay encoding/json's.

// appendTableJSON appends t as json.Marshal(t) writes it.
func appendTableJSON(b []byte, t *Table) ([]byte, error) {
	b = appendTableHead(b, t)
	if t.Rows == nil {
		return append(b, "null}"...), nil
	}
	b = append(b, '[')
	for i := range t.Rows {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendRowJSON(b, &t.Rows[i]); err != nil {
			return nil, err
		}
	}
	return append(b, "]}"...), nil
}

// appendTableHead appends the JSON of t up to its rows' value.
func appendTableHead(b []byte, t *Table) []byte {
	b = append(b, '{')
	if t.Kind != "" {
		b = append(b, `"kind":`...)
		b = jsonvalue.AppendString(b, t.Kind)
		b = append(b, ',')
	}
	if t.APIVersion != "" {
		b = append(b, `"apiVersion":`...)
		b = jsonvalue.AppendString(b, t.APIVersion)
		b = append(b, ',')
	}
	b = append(b, `"metadata":`...)
	b = AppendListMetaJSON(b, &t.Metadata)
	b = append(b, `,"columnDefinitions":`...)
	if t.ColumnDefinitions == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range t.ColumnDefinitions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendColumnJSON(b, &t.ColumnDefinitions[i])
		}
		b = append(b, ']')
	}
	return append(b, `,"rows":`...)
}

// tableJSONSizeHint estimates the size of t's JSON from its longest parts,
// so that writing it rarely needs to grow the buffer.
func tableJSONSizeHint(t *Table) int {
	n := 256
	for i := range t.ColumnDefinitions {
		n += 80 + len(t.ColumnDefinitions[i].Description)
	}
	for i := range t.Rows {
		n += 64 + 24*len(t.Rows[i].Cells) + len(t.Rows[i].Object)
	}
	return n
}

// AppendListMetaJSON appends m exactly as encoding/json writes
// meta.ListMeta (every field omitempty), without its reflection.
func AppendListMetaJSON(b []byte, m *meta.ListMeta) []byte {
	b = append(b, '{')
	sep := false
	field := func(name string) {
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, name...)
	}
	if m.SelfLink != "" {
		field(`"selfLink":`)
		b = jsonvalue.AppendString(b, m.SelfLink)
	}
	if m.ResourceVersion != "" {
		field(`"resourceVersion":`)
		b = jsonvalue.AppendString(b, m.ResourceVersion)
	}
	if m.Continue != "" {
		field(`"continue":`)
		b = jsonvalue.AppendString(b, m.Continue)
	}
	if m.RemainingItemCount != nil {
		field(`"remainingItemCount":`)
		b = strconv.AppendInt(b, *m.RemainingItemCount, 10)
	}
	return append(b, '}')
}

func appendColumnJSON(b []byte, c *TableColumnDefinition) []byte {
	b = append(b, `{"name":`...)
	b = jsonvalue.AppendString(b, c.Name)
	b = append(b, `,"type":`...)
	b = jsonvalue.AppendString(b, c.Type)
	b = append(b, `,"format":`...)
	b = jsonvalue.AppendString(b, c.Format)
	b = append(b, `,"description":`...)
	b = jsonvalue.AppendString(b, c.Description)
	b = append(b, `,"priority":`...)
	b = strconv.AppendInt(b, int64(c.Priority), 10)
	return append(b, '}')
}

func appendRowJSON(b []byte, r *TableRow) ([]byte, error) {
	b = append(b, `{"cells":`...)
	if r.Cells == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range r.Cells {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCellJSON(b, c); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if len(r.Conditions) > 0 {
		b = append(b, `,"conditions":[`...)
		for i := range r.Conditions {
			if i > 0 {
				b = append(b, ',')
			}
			c := &r.Conditions[i]
			b = append(b, `{"type":`...)
			b = jsonvalue.AppendString(b, c.Type)
			b = append(b, `,"status":`...)
			b = jsonvalue.AppendString(b, c.Status)
			if c.Reason != "" {
				b = append(b, `,"reason":`...)
				b = jsonvalue.AppendString(b, c.Reason)
			}
			if c.Message != "" {
				b = append(b, `,"message":`...)
				b = jsonvalue.AppendString(b, c.Message)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"object":`...)
	if r.Object == nil {
		b = append(b, "null"...) // json.RawMessage's MarshalJSON
	} else {
		var err error
		if b, err = appendRawJSON(b, r.Object); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendCellJSON appends a cell. The types columns return (strings,
// numbers, bools) are written here; any other goes through encoding/json,
// as do NaN and infinities, for its error.
func appendCellJSON(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return jsonvalue.AppendString(b, v), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case float64:
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			return appendJSONFloat(b, v, 64), nil
		}
	case float32:
		if f := float64(v); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return appendJSONFloat(b, f, 32), nil
		}
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

// appendJSONFloat writes a finite float as encoding/json does: the
// shortest representation that reads back as the same value, in
// exponent form only outside [1e-6, 1e21), with a one-digit negative
// exponent written without its leading zero (1e-7, not 1e-07).
func appendJSONFloat(b []byte, f float64, bitSize int) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if bitSize == 32 {
		if a := float32(abs); a != 0 && (a < 1e-6 || a >= 1e21) {
			format = 'e'
		}
	} else if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, bitSize)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// appendRawJSON appends an embedded JSON value (a json.RawMessage) as
// encoding/json writes it: validated, compacted, HTML-escaped. Errors are
// encoding/json's own.
func appendRawJSON(b, v []byte) ([]byte, error) {
	if out, ok := appendCompactFast(b, v, true); ok {
		return out, nil
	}
	j, err := json.Marshal(json.RawMessage(v))
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

// appendCompactJSON appends the JSON value v as json.Compact writes it:
// validated, without insignificant whitespace, otherwise unchanged.
func appendCompactJSON(b, v []byte) ([]byte, error) {
	if out, ok := appendCompactFast(b, v, false); ok {
		return out, nil
	}
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxFastDepth is how deeply nested a value appendCompactFast handles;
// deeper ones, which real objects never are, take encoding/json's path
// (whose own limit is 10000).
const maxFastDepth = 512

// appendCompactFast appends the JSON value src without insignificant
// whitespace, with <, >, &, U+2028 and U+2029 escaped in strings when html
// is set, exactly as encoding/json compacts. It reports false, having
// appended garbage, for anything it does not accept: invalid JSON, or
// nesting deeper than maxFastDepth.
//
// It is one pass that looks up a table per byte of a string, where
// encoding/json calls a state function per byte, and it copies the input
// in runs: already-compact input without escapes is a single copy.
func appendCompactFast(dst, src []byte, html bool) ([]byte, bool) {
	const (
		wantValue = iota
		wantKey
		afterValue
	)
	var objects [maxFastDepth / 64]uint64 // bit d: level d is an object
	depth := uint(0)
	state := wantValue
	start, i := 0, 0 // src[start:i] is output not yet appended to dst
	var ok bool
	for {
		dst, start, i = skipJSONSpace(dst, src, start, i)
		if i == len(src) {
			return append(dst, src[start:]...), state == afterValue && depth == 0
		}
		c := src[i]
		switch state {
		case wantKey:
			if c != '"' {
				return dst, false
			}
			if dst, start, i, ok = scanJSONString(dst, src, start, i, html); !ok {
				return dst, false
			}
			if dst, start, i = skipJSONSpace(dst, src, start, i); i == len(src) || src[i] != ':' {
				return dst, false
			}
			i++
			state = wantValue

		case afterValue:
			if depth == 0 {
				return dst, false // more after the top-level value
			}
			inObject := objects[(depth-1)/64]&(1<<((depth-1)%64)) != 0
			switch {
			case c == ',':
				i++
				state = wantValue
				if inObject {
					state = wantKey
				}
			case c == '}' && inObject, c == ']' && !inObject:
				i++
				depth--
			default:
				return dst, false
			}

		case wantValue:
			switch {
			case c == '{' || c == '[':
				if depth == maxFastDepth {
					return dst, false
				}
				mask := uint64(1) << (depth % 64)
				objects[depth/64] &^= mask
				if c == '{' {
					objects[depth/64] |= mask
				}
				depth++
				i++
				state = wantValue
				if dst, start, i = skipJSONSpace(dst, src, start, i); i < len(src) && src[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
					i++
					depth--
					state = afterValue
				} else if c == '{' {
					state = wantKey
				}
				continue
			case c == '"':
				if dst, start, i, ok = scanJSONString(dst, src, start, i, html); !ok {
					return dst, false
				}
			case c == '-' || '0' <= c && c <= '9':
				if i = scanJSONNumber(src, i); i < 0 {
					return dst, false
				}
			case c == 't' || c == 'f' || c == 'n':
				lit := "null"
				if c == 't' {
					lit = "true"
				} else if c == 'f' {
					lit = "false"
				}
				if len(src)-i < len(lit) || string(src[i:i+len(lit)]) != lit {
					return dst, false
				}
				i += len(lit)
			default:
				return dst, false
			}
			state = afterValue
		}
	}
}

// skipJSONSpace skips the whitespace at src[i:], first appending the
// pending output src[start:i] to dst if there is any to drop.
func skipJSONSpace(dst, src []byte, start, i int) ([]byte, int, int) {
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\n' || src[j] == '\r' || src[j] == '\t') {
		j++
	}
	if j == i {
		return dst, start, i
	}
	return append(dst, src[start:i]...), j, j
}

// scanJSONString scans the string literal at src[i] (a '"') and returns
// the index after it. Escape sequences are checked and kept as written,
// other bytes (even invalid UTF-8) are kept, as encoding/json's compaction
// does; with html, <, >, &, U+2028 and U+2029 are escaped, which appends
// the pending output to dst first.
func scanJSONString(dst, src []byte, start, i int, html bool) ([]byte, int, int, bool) {
	const hex = "0123456789abcdef"
	for i++; i < len(src); i++ {
		c := src[i]
		if !jsonStringStop[c] {
			continue
		}
		switch {
		case c == '"':
			return dst, start, i + 1, true
		case c == '\\':
			if i+1 == len(src) {
				return dst, start, i, false
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(src)-i < 6 || !isHex(src[i+2]) || !isHex(src[i+3]) || !isHex(src[i+4]) || !isHex(src[i+5]) {
					return dst, start, i, false
				}
				i += 5
			default:
				return dst, start, i, false
			}
		case c < 0x20:
			return dst, start, i, false
		case !html:
		case c == 0xe2:
			if i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xa8 {
				dst = append(dst, src[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xf])
				i += 2
				start = i + 1
			}
		default: // < > &
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			start = i + 1
		}
	}
	return dst, start, i, false
}

// jsonStringStop marks the bytes a string literal's scan must stop at:
// control characters (invalid), '"' and '\\', the HTML-sensitive < > &,
// and 0xe2, which starts U+2028 and U+2029. A table lookup per byte is
// what makes the scan fast.
var jsonStringStop = [256]bool{
	0x00: true, 0x01: true, 0x02: true, 0x03: true, 0x04: true, 0x05: true, 0x06: true, 0x07: true,
	0x08: true, 0x09: true, 0x0a: true, 0x0b: true, 0x0c: true, 0x0d: true, 0x0e: true, 0x0f: true,
	0x10: true, 0x11: true, 0x12: true, 0x13: true, 0x14: true, 0x15: true, 0x16: true, 0x17: true,
	0x18: true, 0x19: true, 0x1a: true, 0x1b: true, 0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true,
	'"': true, '\\': true, '<': true, '>': true, '&': true, 0xe2: true,
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanJSONNumber returns the end of the number at src[i], or -1 if it is
// not one: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanJSONNumber(src []byte, i int) int {
	if src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case i < len(src) && '1' <= src[i] && src[i] <= '9':
		i = skipDigits(src, i+1)
	default:
		return -1
	}
	if i < len(src) && src[i] == '.' {
		j := skipDigits(src, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		j := skipDigits(src, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func skipDigits(s []byte, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}
