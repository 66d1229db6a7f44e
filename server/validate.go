package server

import (
	"strings"

	"github.com/apisem/apisem/status"
)

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
func ValidateName(name, generateName string, dnsLabel bool) []status.FieldError {
	valid, rule := isDNSSubdomain, subdomainRule
	if dnsLabel {
		valid, rule = isDNSLabel, labelRule
	}
	if name == "" {
		if generateName == "" {
			return []status.FieldError{status.Required("metadata.name", "name or generateName is required")}
		}
		// A generated name is the prefix plus 5 alphanumerics.
		if !valid(generateName + "x") {
			return []status.FieldError{status.InvalidValue("metadata.generateName", generateName, rule)}
		}
		return nil
	}
	if !valid(name) {
		return []status.FieldError{status.InvalidValue("metadata.name", name, rule)}
	}
	return nil
}

// ValidateMetaUpdate checks the metadata an update may not change.
func ValidateMetaUpdate(obj, old Object) []status.FieldError {
	var errs []status.FieldError
	m, o := obj.Meta(), old.Meta()
	if m.Name != o.Name {
		errs = append(errs, status.InvalidValue("metadata.name", m.Name, "field is immutable"))
	}
	if m.Namespace != o.Namespace {
		errs = append(errs, status.InvalidValue("metadata.namespace", m.Namespace, "field is immutable"))
	}
	if m.UID != "" && m.UID != o.UID {
		errs = append(errs, status.InvalidValue("metadata.uid", m.UID, "field is immutable"))
	}
	return errs
}
