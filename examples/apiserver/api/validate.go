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

// valuesSize is the size Kubernetes limits of ConfigMap or Secret data:
// its values' (not its keys').
func valuesSize[V string | []byte](m map[string]V) int {
	n := 0
	for _, v := range m {
		n += len(v)
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

// appendKeyErrors appends the errors of k as a key of the data map at
// field, with Kubernetes' messages (IsConfigMapKey in
// k8s.io/apimachinery/pkg/util/validation), each at field[k].
func appendKeyErrors(errs []FieldError, field, k string) []FieldError {
	if validKey(k) {
		return errs
	}
	at := field + "[" + k + "]"
	if len(k) > 253 {
		errs = append(errs, invalid(at, k, "must be no more than 253 characters"))
	}
	if !isConfigKey(k) {
		errs = append(errs, invalid(at, k, configKeyRule))
	}
	switch {
	case k == ".":
		errs = append(errs, invalid(at, k, "must not be '.'"))
	case k == "..":
		errs = append(errs, invalid(at, k, "must not be '..'"))
	case strings.HasPrefix(k, ".."):
		errs = append(errs, invalid(at, k, "must not start with '..'"))
	}
	return errs
}

// validKey reports whether k passes appendKeyErrors.
func validKey(k string) bool {
	return len(k) <= 253 && isConfigKey(k) && !strings.HasPrefix(k, "..") && k != "."
}

// validKeys reports whether every key of m is valid, so that a valid
// object is checked without sorting its keys.
func validKeys[V any](m map[string]V) bool {
	for k := range m {
		if !validKey(k) {
			return false
		}
	}
	return true
}

// isConfigKey reports whether k is made of [-._a-zA-Z0-9]+.
func isConfigKey(k string) bool {
	if k == "" {
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

const configKeyRule = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' " +
	"(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
