package server

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	kjson "sigs.k8s.io/json"
)

// decodeObjectMap decodes b, a JSON object that encoding/json wrote, into
// the value sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts gives
// (map[string]any, []any, string, int64 for what parses as one, else
// float64, bool, nil), leaving out metadata.managedFields. It is the
// decoding half of objectMap, which every tracked write runs once or
// twice: building the maps directly takes about a third of the time and
// allocations of the reflective decoder, and skipping managedFields spares
// decoding the largest member of a stored object only to drop it
// (BenchmarkUpdate, BenchmarkHTTPCreate). Input that is not a JSON object
// is left to kjson, whose errors are the ones to report.
func decodeObjectMap(b []byte) (map[string]any, error) {
	d := jsonMapDecoder{b: b}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '{' {
		if v, ok := d.object(0, false); ok {
			if d.space(); d.i == len(d.b) {
				return v, nil
			}
		}
	}
	var out map[string]any
	err := kjson.UnmarshalCaseSensitivePreserveInts(b, &out)
	if err == nil {
		// Valid JSON the fast path did not take: not expected from
		// encoding/json, but decoded the slow way all the same.
		if md, ok := out["metadata"].(map[string]any); ok {
			delete(md, "managedFields")
		}
	}
	return out, err
}

// jsonMapDecoder reads one JSON value at b[i:]. Its methods report false
// on anything they do not expect, and decodeObjectMap then falls back.
type jsonMapDecoder struct {
	b []byte
	i int
}

func (d *jsonMapDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// object reads an object at d.i (a '{'). depth 0 is the top level, whose
// member "metadata" is where managedFields is skipped (inMeta).
func (d *jsonMapDecoder) object(depth int, inMeta bool) (map[string]any, bool) {
	d.i++ // '{'
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		d.space()
		k, ok := d.string()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		if inMeta && k == "managedFields" {
			if !d.skip() {
				return nil, false
			}
		} else {
			v, ok := d.value(depth+1, depth == 0 && k == "metadata")
			if !ok {
				return nil, false
			}
			m[k] = v
		}
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *jsonMapDecoder) array(depth int) ([]any, bool) {
	d.i++ // '['
	a := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		d.space()
		v, ok := d.value(depth+1, false)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// skip passes over the value at d.i without decoding it, checking that
// it is valid JSON.
func (d *jsonMapDecoder) skip() bool {
	start, depth := d.i, 0
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch c {
		case '"':
			for d.i++; d.i < len(d.b) && d.b[d.i] != '"'; d.i++ {
				if d.b[d.i] == '\\' {
					d.i++
				}
			}
			if d.i >= len(d.b) {
				return false // unterminated
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return json.Valid(d.b[start:d.i]) // the end of the parent
			}
			depth--
		case ',':
			if depth == 0 {
				return json.Valid(d.b[start:d.i])
			}
		}
		d.i++
		if depth == 0 && (c == '}' || c == ']' || c == '"') {
			return json.Valid(d.b[start:d.i])
		}
	}
	return false
}

// maxJSONMapDepth bounds the recursion; deeper input takes the slow path,
// which has its own limit.
const maxJSONMapDepth = 1000

func (d *jsonMapDecoder) value(depth int, isMeta bool) (any, bool) {
	if d.i >= len(d.b) || depth > maxJSONMapDepth {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth, isMeta)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.string()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, false
}

func (d *jsonMapDecoder) literal(s string) bool {
	if len(d.b)-d.i < len(s) || string(d.b[d.i:d.i+len(s)]) != s {
		return false
	}
	d.i += len(s)
	return true
}

// string reads a string at d.i. One without escapes or control
// characters is its bytes (encoding/json writes only valid UTF-8);
// any other is left to encoding/json, for its exact unescaping.
func (d *jsonMapDecoder) string() (string, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	start := d.i
	plain, ascii := true, true
	for j := start + 1; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '\\':
			plain = false
			j++ // the escaped byte cannot end the string
		case c == '"':
			d.i = j + 1
			// Decoding replaces invalid UTF-8.
			if plain && (ascii || utf8.Valid(d.b[start+1:j])) {
				return string(d.b[start+1 : j]), true
			}
			var s string
			if json.Unmarshal(d.b[start:d.i], &s) != nil {
				return "", false
			}
			return s, true
		case c < 0x20:
			plain = false // invalid: json.Unmarshal says so
		case c >= 0x80:
			ascii = false
		}
	}
	return "", false
}

// number reads a number as preserve-ints decoding does: an int64 when
// the literal parses as one, else a float64.
func (d *jsonMapDecoder) number() (any, bool) {
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			d.i++
			continue
		}
		break
	}
	lit := d.b[start:d.i]
	if !json.Valid(lit) {
		return nil, false
	}
	if n, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return nil, false
	}
	return f, true
}
