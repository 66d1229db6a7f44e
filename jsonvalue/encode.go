package jsonvalue

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// maxDepth is how deep AppendJSON nests before it hands the rest of a
// value to encoding/json, which from this depth on checks for cycles
// (and reports one with its own error).
const maxDepth = 1000

// AppendJSON appends v as json.Marshal(v) writes it, byte for byte, and
// fails where json.Marshal fails, with its error. It writes the values a
// JSON decoder makes (map[string]any with its keys sorted, []any, string,
// bool, nil, int64, float64 and json.Number) without reflection, which
// for a map allocates a copy of every member; a value of any other type
// is left to encoding/json.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	return appendValue(dst, v, 0)
}

func appendValue(dst []byte, v any, depth int) ([]byte, error) {
	if depth >= maxDepth {
		return appendMarshal(dst, v)
	}
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendString(dst, v), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case float64:
		return appendFloat(dst, v)
	case json.Number:
		if v == "" {
			return append(dst, '0'), nil
		}
		if !validNumber(string(v)) {
			return appendMarshal(dst, v)
		}
		return append(dst, v...), nil
	case map[string]any:
		if v == nil {
			return append(dst, "null"...), nil
		}
		var arr [16]string
		keys := arr[:0]
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(AppendString(dst, k), ':')
			var err error
			if dst, err = appendValue(dst, v[k], depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		if v == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, e, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	return appendMarshal(dst, v)
}

// appendMarshal appends encoding/json's encoding of v, or returns its
// error.
func appendMarshal(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// appendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from
// 1e21 on, with a one-digit negative exponent unpadded (1e-07 is 1e-7).
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return appendMarshal(dst, f) // its UnsupportedValueError
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// validNumber reports whether s is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
