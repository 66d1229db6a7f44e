package server

import (
	"math"
	"strconv"

	kjson "sigs.k8s.io/json"
)

// An applied configuration is YAML, and clients mostly send it as JSON,
// which is YAML too. Reading JSON through the YAML parser (and converting
// its value to JSON and decoding that) was a fifth of a large custom
// resource's apply. jsonApplyConfig reads such a body as JSON directly
// when that is sure to give what the YAML reading gives: a body the two
// might read differently, or that either refuses, is left to the YAML
// reading, so that every answer stays the same (FuzzJSONApplyConfig
// compares the two).

// maxFastDepth bounds the nesting of a body read as JSON; the YAML
// parser's bound is 10,000.
const maxFastDepth = 1000

// maxFastKey bounds the bytes from a key's opening quote to its colon: a
// YAML implicit key must end within 1024 characters of its start.
const maxFastKey = 1000

// jsonApplyConfig decodes body as decodeApplyConfig would, if body is a
// JSON object that YAML reads alike: ASCII only, no escape YAML lacks
// (\/) or reads otherwise (a \u surrogate), each key on the line of its
// colon, nothing but spaces and line breaks around the object (a tab at
// a line's start is no YAML), and no duplicate key (whose warning quotes
// the YAML parser). ok is false otherwise.
func jsonApplyConfig(body []byte) (config map[string]any, ok bool) {
	if !yamlLikeJSON(body) {
		return nil, false
	}
	strictErrs, err := kjson.UnmarshalStrict(body, &config, kjson.DisallowDuplicateFields)
	if err != nil || len(strictErrs) > 0 || config == nil {
		return nil, false
	}
	normalizeYAMLNumbers(config)
	return config, true
}

// yamlLikeJSON scans body for jsonApplyConfig's conditions; the JSON
// decoder checks the rest of its syntax.
func yamlLikeJSON(body []byte) bool {
	i := 0
	for i < len(body) && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r') {
		i++
	}
	if i == len(body) || body[i] != '{' {
		return false
	}
	// inObject[d] is whether the container at depth d is an object;
	// expectKey whether the next string is a member's name.
	var stack [64]bool
	inObject := stack[:0]
	expectKey := false
	keyStart, keyLine := -1, false // the pending key's quote, and whether a line break followed it
	for ; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '"':
			start := i
			for i++; i < len(body) && body[i] != '"'; i++ {
				switch b := body[i]; {
				case b == '\\':
					if i+1 >= len(body) {
						return false
					}
					i++
					switch body[i] {
					case '"', '\\', 'b', 'f', 'n', 'r', 't':
					case 'u':
						if i+4 >= len(body) {
							return false
						}
						if h := body[i+1] | 0x20; h == 'd' && body[i+2]|0x20 >= '8' {
							return false // a surrogate, or not hex (the decoder refuses)
						}
						i += 4
					default:
						return false
					}
				case b < 0x20 || b > 0x7e:
					return false
				}
			}
			if expectKey {
				keyStart, keyLine, expectKey = start, false, false
			}
		case c == ':':
			if keyStart < 0 || keyLine || i-keyStart > maxFastKey {
				return false
			}
			keyStart = -1
		case c == '{' || c == '[':
			if len(inObject) == maxFastDepth {
				return false
			}
			inObject = append(inObject, c == '{')
			expectKey = c == '{'
		case c == '}' || c == ']':
			if len(inObject) == 0 {
				return false
			}
			inObject = inObject[:len(inObject)-1]
			expectKey = false
			if len(inObject) == 0 {
				// Only spaces and line breaks may follow.
				for i++; i < len(body); i++ {
					if b := body[i]; b != ' ' && b != '\n' && b != '\r' {
						return false
					}
				}
				return true
			}
		case c == ',':
			expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
		case c == '\n' || c == '\r':
			if keyStart >= 0 {
				keyLine = true
			}
		case c == ' ' || c == '\t':
		case c < 0x20 || c > 0x7e:
			return false
		}
	}
	return false
}

// normalizeYAMLNumbers makes v's numbers what the YAML reading makes
// them: it writes a float as encoding/json does and decodes that text, so
// that a float with an integer's value below 1e21, written with its
// shortest digits and no point (1.0, 1e2, -0, but 1.152921504606847e18
// as 1152921504606847000), becomes the int64 of that text where one
// holds it.
func normalizeYAMLNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if f, ok := e.(float64); ok {
				v[k] = yamlNumber(f)
			} else {
				normalizeYAMLNumbers(e)
			}
		}
	case []any:
		for i, e := range v {
			v[i] = normalizeYAMLNumbers(e)
		}
	case float64:
		return yamlNumber(v)
	}
	return v
}

func yamlNumber(f float64) any {
	if f != math.Trunc(f) || math.Abs(f) >= 1e21 {
		return f
	}
	var buf [32]byte
	if i, err := strconv.ParseInt(string(strconv.AppendFloat(buf[:0], f, 'f', -1, 64)), 10, 64); err == nil {
		return i
	}
	return f
}
