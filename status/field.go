package status

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// FieldError is one field-level validation failure (Kubernetes'
// field.Error). It renders as "<field>: <body>", and becomes one cause of a
// 422 Invalid built by NewInvalid.
type FieldError struct {
	// Type is the cause type, e.g. CauseTypeFieldValueForbidden.
	Type CauseType
	// Field is the JSON path of the field, e.g. "resourceVersionMatch".
	Field string
	// BadValue is the offending value; it is not printed for Required,
	// Forbidden, TooLong and Internal errors.
	BadValue any
	// Detail is the human explanation appended after the value.
	Detail string
}

// omitValue is the type of OmitValue.
type omitValue struct{}

// OmitValue, as a FieldError's BadValue, leaves the value out of the
// error's body ("Invalid value: <detail>"), as Kubernetes does for
// objects and lists that fail a validation rule (field.OmitValueType).
var OmitValue any = omitValue{}

// Forbidden returns a FieldError of type FieldValueForbidden.
func Forbidden(field, detail string) FieldError {
	return FieldError{Type: CauseTypeFieldValueForbidden, Field: field, Detail: detail}
}

// Required returns a FieldError of type FieldValueRequired.
func Required(field, detail string) FieldError {
	return FieldError{Type: CauseTypeFieldValueRequired, Field: field, Detail: detail}
}

// InvalidValue returns a FieldError of type FieldValueInvalid.
func InvalidValue(field string, value any, detail string) FieldError {
	return FieldError{Type: CauseTypeFieldValueInvalid, Field: field, BadValue: value, Detail: detail}
}

// NotSupported returns a FieldError of type FieldValueNotSupported whose
// detail lists the supported values, quoted, in the order given.
func NotSupported(field string, value any, supported ...string) FieldError {
	q := make([]string, len(supported))
	for i, s := range supported {
		q[i] = strconv.Quote(s)
	}
	detail := ""
	if len(q) > 0 {
		detail = "supported values: " + strings.Join(q, ", ")
	}
	return FieldError{Type: CauseTypeFieldValueNotSupported, Field: field, BadValue: value, Detail: detail}
}

// typeText is how Kubernetes prints each error type at the start of the
// error body.
func (t CauseType) typeText() string {
	switch t {
	case CauseTypeFieldValueNotFound:
		return "Not found"
	case CauseTypeFieldValueRequired:
		return "Required value"
	case CauseTypeFieldValueDuplicate:
		return "Duplicate value"
	case CauseTypeFieldValueInvalid, CauseTypeFieldValueTypeInvalid:
		return "Invalid value"
	case CauseTypeFieldValueNotSupported:
		return "Unsupported value"
	case CauseTypeFieldValueForbidden:
		return "Forbidden"
	case CauseTypeFieldValueTooLong:
		return "Too long"
	case CauseTypeFieldValueTooMany:
		return "Too many"
	case CauseTypeInternal:
		return "Internal error"
	}
	return string(t)
}

// Body is the error without its field path, e.g.
// `Forbidden: resourceVersionMatch is forbidden unless resourceVersion is
// provided`. It is the message of the cause in a 422.
func (e FieldError) Body() string {
	s := e.Type.typeText()
	switch e.Type {
	case CauseTypeFieldValueRequired, CauseTypeFieldValueForbidden,
		CauseTypeFieldValueTooLong, CauseTypeInternal:
		// Kubernetes never prints the value for these.
	default:
		if e.BadValue != OmitValue {
			s += ": " + formatValue(e.BadValue)
		}
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Error returns "<field>: <body>".
func (e FieldError) Error() string { return e.Field + ": " + e.Body() }

// formatValue prints a bad value the way Kubernetes' field errors do:
// strings quoted, numbers and bools plain, everything else as JSON.
func formatValue(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(t)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, bool:
		return fmt.Sprint(t)
	case fmt.Stringer:
		return t.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// TooLong returns a FieldError of type FieldValueTooLong for a value longer
// than maxBytes bytes. Like Kubernetes' field.TooLong it never prints the
// value; the detail is "may not be more than <n> bytes" ("byte" for 1), or
// "value is too long" when maxBytes is negative (no known limit).
func TooLong(field string, maxBytes int) FieldError {
	detail := "value is too long"
	if maxBytes >= 0 {
		unit := " bytes"
		if maxBytes == 1 {
			unit = " byte"
		}
		detail = "may not be more than " + strconv.Itoa(maxBytes) + unit
	}
	return FieldError{Type: CauseTypeFieldValueTooLong, Field: field, Detail: detail}
}

// TooMany returns a FieldError of type FieldValueTooMany for a list of
// actual items where at most maxItems are allowed, printed as Kubernetes'
// field.TooMany does: "Too many: <actual>: must have at most <n> items"
// ("item" for 1; "has too many items" when maxItems is negative).
func TooMany(field string, actual, maxItems int) FieldError {
	detail := "has too many items"
	if maxItems >= 0 {
		unit := " items"
		if maxItems == 1 {
			unit = " item"
		}
		detail = "must have at most " + strconv.Itoa(maxItems) + unit
	}
	return FieldError{Type: CauseTypeFieldValueTooMany, Field: field, BadValue: actual, Detail: detail}
}
