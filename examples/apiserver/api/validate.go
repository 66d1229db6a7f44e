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

// isDNSLabel reports whether s is an RFC 1123 label: at most 63 lower-case
// alphanumerics or '-', starting and ending alphanumeric.
func isDNSLabel(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (c != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// isDNSSubdomain reports whether s is an RFC 1123 subdomain: at most 253
// characters, dot-separated labels.
func isDNSSubdomain(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if !isDNSLabel(l) {
			return false
		}
	}
	return true
}

const (
	subdomainRule = "must be a lowercase RFC 1123 subdomain: dot-separated labels of lower case alphanumeric characters or '-', each starting and ending with an alphanumeric character, at most 253 characters in all (e.g. 'example.com')"
	labelRule     = "must be a lowercase RFC 1123 label: lower case alphanumeric characters or '-', starting and ending with an alphanumeric character, at most 63 characters (e.g. 'my-name')"
)

// ValidateName checks metadata.name (or, when only generateName is given,
// that a generated name can be valid) for a resource whose names are DNS
// labels (dnsLabel) or DNS subdomains.
func ValidateName(name, generateName string, dnsLabel bool) []FieldError {
	valid, rule := isDNSSubdomain, subdomainRule
	if dnsLabel {
		valid, rule = isDNSLabel, labelRule
	}
	if name == "" {
		if generateName == "" {
			return []FieldError{required("metadata.name", "name or generateName is required")}
		}
		// A generated name is the prefix plus 5 alphanumerics.
		if !valid(generateName + "x") {
			return []FieldError{invalid("metadata.generateName", generateName, rule)}
		}
		return nil
	}
	if !valid(name) {
		return []FieldError{invalid("metadata.name", name, rule)}
	}
	return nil
}

// ValidateMetaUpdate checks the metadata an update may not change.
func ValidateMetaUpdate(obj, old Object) []FieldError {
	var errs []FieldError
	m, o := obj.Meta(), old.Meta()
	if m.Name != o.Name {
		errs = append(errs, invalid("metadata.name", m.Name, "field is immutable"))
	}
	if m.Namespace != o.Namespace {
		errs = append(errs, invalid("metadata.namespace", m.Namespace, "field is immutable"))
	}
	if m.UID != "" && m.UID != o.UID {
		errs = append(errs, invalid("metadata.uid", m.UID, "field is immutable"))
	}
	return errs
}
