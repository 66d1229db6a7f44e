package selector

import (
	"slices"
	"strconv"
	"strings"

	"github.com/apisem/apisem/status"
)

// FieldTerm is one term of a field selector: Field must equal Value, or
// differ from it when Not is set.
type FieldTerm struct {
	Field string
	Value string
	Not   bool
}

// String returns the term in selector syntax, with the value escaped.
func (t FieldTerm) String() string {
	op := "="
	if t.Not {
		op = "!="
	}
	return t.Field + op + EscapeValue(t.Value)
}

// Fields is a parsed field selector: terms sorted as Kubernetes sorts
// them, all of which must hold. The zero value selects everything. A
// Fields is immutable and safe for concurrent use.
type Fields struct {
	terms []FieldTerm
}

// Empty reports whether the selector selects everything.
func (s Fields) Empty() bool { return len(s.terms) == 0 }

// Terms returns a copy of the terms.
func (s Fields) Terms() []FieldTerm { return slices.Clone(s.terms) }

// Matches reports whether every term holds, reading field values with
// get (which returns "" for a field the object does not have).
func (s Fields) Matches(get func(field string) string) bool {
	for _, t := range s.terms {
		if (get(t.Field) == t.Value) == t.Not {
			return false
		}
	}
	return true
}

// RequiresExactMatch returns the value an equality term requires for
// field, if there is one.
func (s Fields) RequiresExactMatch(field string) (string, bool) {
	for _, t := range s.terms {
		if t.Field == field && !t.Not {
			return t.Value, true
		}
	}
	return "", false
}

// String returns the selector in selector syntax.
func (s Fields) String() string {
	parts := make([]string, len(s.terms))
	for i, t := range s.terms {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// EscapeValue escapes the characters a field-selector value cannot
// contain literally: "\", "," and "=".
func EscapeValue(v string) string {
	if !strings.ContainsAny(v, `\,=`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\', ',', '=':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ParseFields parses a field selector. An error is a 400 BadRequest with
// Kubernetes' message.
func ParseFields(selector string) (Fields, error) {
	parts := splitTerms(selector)
	slices.Sort(parts)
	var terms []FieldTerm
	for _, part := range parts {
		if part == "" {
			continue
		}
		field, op, value, ok := splitTerm(part)
		if !ok {
			return Fields{}, status.NewBadRequest("invalid selector: '" + selector + "'; can't understand '" + part + "'")
		}
		v, err := unescapeValue(value)
		if err != nil {
			return Fields{}, status.NewBadRequest(err.Error())
		}
		terms = append(terms, FieldTerm{Field: field, Value: v, Not: op == "!="})
	}
	return Fields{terms: terms}, nil
}

// splitTerms splits on commas that are not escaped by a backslash.
func splitTerms(s string) []string {
	if s == "" {
		return nil
	}
	var terms []string
	start, escaped := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == ',':
			terms = append(terms, s[start:i])
			start = i + 1
		}
	}
	return append(terms, s[start:])
}

// splitTerm splits a term at its first operator; field names have no
// escaping.
func splitTerm(term string) (field, op, value string, ok bool) {
	for i := 0; i < len(term); i++ {
		for _, op := range [...]string{"!=", "==", "="} {
			if strings.HasPrefix(term[i:], op) {
				return term[:i], op, term[i+len(op):], true
			}
		}
	}
	return "", "", "", false
}

// unescapeValue undoes EscapeValue and rejects unescaped "," and "=".
func unescapeValue(s string) (string, error) {
	if !strings.ContainsAny(s, `\,=`) {
		return s, nil
	}
	var b strings.Builder
	escaped := false
	for _, c := range s {
		if escaped {
			switch c {
			case '\\', ',', '=':
				b.WriteRune(c)
			default:
				return "", parseError("invalid field selector: invalid escape sequence: " + string([]rune{'\\', c}))
			}
			escaped = false
			continue
		}
		switch c {
		case '\\':
			escaped = true
		case ',', '=':
			return "", parseError("invalid field selector: unescapedRune character in value: " + strconv.Itoa(int(c)))
		default:
			b.WriteRune(c)
		}
	}
	if escaped {
		return "", parseError(`invalid field selector: invalid escape sequence: \`)
	}
	return b.String(), nil
}
