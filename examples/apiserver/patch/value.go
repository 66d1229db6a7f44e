package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
)

// Sentinel errors. Every error this package returns wraps exactly one.
var (
	// ErrMalformed: the patch (or the document) is not valid for its
	// format. A server answers 400 BadRequest.
	ErrMalformed = errors.New("patch: malformed")
	// ErrNotApplicable: the patch is well-formed but cannot be applied to
	// this document. A server answers 422 Invalid.
	ErrNotApplicable = errors.New("patch: cannot be applied")
	// ErrTooLarge: the patch exceeds Limits. A server answers 413.
	ErrTooLarge = errors.New("patch: too large")
)

// Values are the generic JSON tree encoding/json produces with UseNumber:
// nil, bool, json.Number, string, []any and map[string]any.

// decode parses exactly one JSON value from b.
func decode(b []byte, what string) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, what, err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: %s: unexpected data after the JSON value", ErrMalformed, what)
	}
	return v, nil
}

func encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		// Only reachable if a json.Number is invalid, which the decoder
		// never produces.
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return b, nil
}

// deepCopy returns a copy of v sharing nothing mutable with it, and adds
// the approximate encoded size of v to *size.
func deepCopy(v any, size *int64) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		*size += 2
		for k, e := range t {
			*size += int64(len(k)) + 4
			m[k] = deepCopy(e, size)
		}
		return m
	case []any:
		s := make([]any, len(t))
		*size += 2
		for i, e := range t {
			*size++
			s[i] = deepCopy(e, size)
		}
		return s
	case string:
		*size += int64(len(t)) + 2
	case json.Number:
		*size += int64(len(t))
	default:
		*size += 5
	}
	return v
}

// equal reports whether a and b are the same JSON value: objects with the
// same members in any order, arrays with equal elements in the same order,
// numbers with the same numeric value (RFC 6902 section 4.6).
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && numbersEqual(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	if x, err := strconv.ParseInt(string(a), 10, 64); err == nil {
		if y, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return x == y
		}
	}
	// Numeric comparison of anything else ("1.0" and "1", "1e2" and
	// "100"). big.Float at 256 bits is exact for the integers and decimals
	// clients send, and its exponentiation by squaring keeps a number like
	// "1e999999999" cheap.
	x, okx := parseNumber(a)
	y, oky := parseNumber(b)
	return okx && oky && x.Cmp(y) == 0
}

func parseNumber(n json.Number) (*big.Float, bool) {
	f, _, err := big.ParseFloat(string(n), 10, 256, big.ToNearestEven)
	return f, err == nil
}

// keyOf returns a string that is the same for two values exactly when
// equal reports them equal (for numbers: the same numeric value), so lists
// can be compared through maps in linear time. The first byte tags the
// type.
func keyOf(v any) string {
	switch t := v.(type) {
	case nil:
		return "n"
	case bool:
		if t {
			return "t"
		}
		return "f"
	case string:
		return "s" + t
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return "d" + strconv.FormatInt(i, 10)
		}
		if f, ok := parseNumber(t); ok {
			if i, acc := f.Int64(); acc == big.Exact {
				return "d" + strconv.FormatInt(i, 10) // "1.0" and "1e0" are 1
			}
			// Binary exponent form: exact and cheap. A decimal rendering
			// of "1e99999999" would need a billion-digit conversion.
			return "d" + f.Text('p', 0)
		}
		return "d" + string(t)
	}
	// Objects and arrays: their encoding, with sorted keys. Numbers inside
	// compare by spelling here, a corner no Kubernetes list relies on.
	b, _ := json.Marshal(v)
	return "j" + string(b)
}
