package api

import (
	"maps"
	"slices"
	"strings"

	"github.com/apisem/apisem/status"
)

// FieldError is one validation failure; a server turns a list of them into
// a 422 Invalid with status.NewInvalid.
type FieldError = status.FieldError

// maxDataSize is the limit on the total size of a ConfigMap's or Secret's
// data, 1 MiB as in Kubernetes.
const maxDataSize = 1 << 20

func forbidden(field, detail string) FieldError { return status.Forbidden(field, detail) }
func required(field, detail string) FieldError  { return status.Required(field, detail) }
func invalid(field string, v any, detail string) FieldError {
	return status.InvalidValue(field, v, detail)
}
func notSupported(field string, v any, supported ...string) FieldError {
	return status.NotSupported(field, v, supported...)
}
func tooLong(field string, max int) FieldError {
	return FieldError{Type: status.CauseTypeFieldValueTooLong, Field: field,
		Detail: "the total size of the data must be no more than " + itoa(max) + " bytes"}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

func copyBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}

func copyBytesMap(m map[string][]byte) map[string][]byte {
	if m == nil {
		return nil
	}
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		if v != nil {
			v = append([]byte{}, v...)
		}
		out[k] = v
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// dataSize is the size of ConfigMap or Secret data: keys and values.
func dataSize[V string | []byte](m map[string]V) int {
	n := 0
	for k, v := range m {
		n += len(k) + len(v)
	}
	return n
}

func isTrue(b *bool) bool { return b != nil && *b }

// change says whether an update changes a field.
type change struct {
	field   string
	changed bool
}

// frozen returns the errors of an update to an immutable ConfigMap or
// Secret: it must stay immutable (now), and no data field may change.
func frozen(now *bool, fields ...change) []FieldError {
	const detail = "field is immutable when `immutable` is set"
	var errs []FieldError
	if !isTrue(now) {
		errs = append(errs, forbidden("immutable", detail))
	}
	for _, f := range fields {
		if f.changed {
			errs = append(errs, forbidden(f.field, detail))
		}
	}
	return errs
}

// isConfigKey reports whether k may be a key of ConfigMap or Secret data:
// at most 253 characters of [-._a-zA-Z0-9], and not "." or "..".
func isConfigKey(k string) bool {
	if k == "" || len(k) > 253 || k == "." || k == ".." {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

const configKeyRule = "a valid config key must consist of alphanumeric characters, '-', '_' or '.', at most 253 of them, and may not be '.' or '..'"

// validateKeys checks the keys of one or two data maps, and that the two
// do not share a key.
func validateKeys(errs []FieldError, field string, keys []string, field2 string, keys2 []string) []FieldError {
	for _, k := range keys {
		if !isConfigKey(k) {
			errs = append(errs, invalid(field, k, configKeyRule))
		}
	}
	for _, k := range keys2 {
		if !isConfigKey(k) {
			errs = append(errs, invalid(field2, k, configKeyRule))
		}
		if _, dup := slices.BinarySearch(keys, k); dup {
			errs = append(errs, invalid(field2, k, "duplicate of key "+quote(k)+" present in "+field))
		}
	}
	return errs
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
