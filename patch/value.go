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

// ErrMalformed is wrapped by every error StrategicMergePatch returns: the
// patch or the document is not valid for the format. Kubernetes answers
// such a patch with 400 BadRequest, and so does Apply.
var ErrMalformed = errors.New("patch: malformed")

// StrategicMergePatch works on the generic JSON tree encoding/json produces
// with UseNumber: nil, bool, json.Number, string, []any and map[string]any.
// json.Number keeps large integers exact.

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

// parseNumber reads n exactly. big.Float at 256 bits is exact for the
// integers and decimals clients send, and its exponentiation by squaring
// keeps a number like "1e999999999" cheap.
func parseNumber(n json.Number) (*big.Float, bool) {
	f, _, err := big.ParseFloat(string(n), 10, 256, big.ToNearestEven)
	return f, err == nil
}

// keyOf returns a string that is the same for two values exactly when they
// are the same JSON value (for numbers: the same numeric value, so "1.0"
// and "1" match), so lists can be compared through maps in linear time. The first byte tags the
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
