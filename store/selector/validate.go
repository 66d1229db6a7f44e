package selector

import (
	"strconv"
	"strings"
)

// Kubernetes' validation texts for label keys and values
// (k8s.io/apimachinery validate/content), reproduced because clients see
// them in 400 responses.
const (
	labelKeyFmt     = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelKeyErrMsg  = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueFmt   = "(" + labelKeyFmt + ")?"
	labelValueErr   = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	dnsLabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dnsSubdomainFmt = dnsLabelFmt + `(\.` + dnsLabelFmt + ")*"
	dnsSubdomainErr = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	maxNameLen      = 63
	maxSubdomainLen = 253
)

// regexError is Kubernetes' RegexError: msg, examples and the pattern.
func regexError(msg, re string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + re + "')"
	}
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + re + "')"
}

func maxLenError(n int) string {
	return "must be no more than " + strconv.Itoa(n) + " bytes"
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isQualifiedName matches labelKeyFmt.
func isQualifiedName(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isDNSSubdomain matches dnsSubdomainFmt.
func isDNSSubdomain(s string) bool {
	for _, label := range strings.Split(s, ".") {
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// labelKeyErrors validates a label key as Kubernetes' IsLabelKey.
func labelKeyErrors(key string) []string {
	var errs []string
	parts := strings.Split(key, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		var prefix string
		prefix, name = parts[0], parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			if len(prefix) > maxSubdomainLen {
				errs = append(errs, "prefix part "+maxLenError(maxSubdomainLen))
			}
			if !isDNSSubdomain(prefix) {
				errs = append(errs, "prefix part "+regexError(dnsSubdomainErr, dnsSubdomainFmt, "example.com"))
			}
		}
	default:
		return append(errs, "a valid label key "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > maxNameLen {
		errs = append(errs, "name part "+maxLenError(maxNameLen))
	}
	if !isQualifiedName(name) {
		errs = append(errs, "name part "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// labelValueErrors validates a label value as Kubernetes' IsLabelValue.
func labelValueErrors(v string) []string {
	var errs []string
	if len(v) > maxNameLen {
		errs = append(errs, maxLenError(maxNameLen))
	}
	if v != "" && !isQualifiedName(v) {
		errs = append(errs, regexError(labelValueErr, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}
