package validation

import (
	"strconv"
	"strings"
)

// The regular expressions Kubernetes prints in its messages. The checks
// below are hand-written scanners equivalent to them (linear, allocation
// free on success); the expressions only appear in error text.
const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + `(\.` + dns1123LabelFmt + ")*"
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + qualifiedNameFmt + ")?"

	dns1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	dns1035LabelMsg     = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
	dns1123LabelMsg     = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
	dns1123SubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	qualifiedNameMsg    = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueMsg       = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)

// Length limits of the name formats.
const (
	// DNS1123LabelMaxLength is the longest RFC 1123 label: 63 bytes.
	DNS1123LabelMaxLength = 63
	// DNS1123SubdomainMaxLength is the longest RFC 1123 subdomain: 253 bytes.
	DNS1123SubdomainMaxLength = 253
	// QualifiedNameMaxLength is the longest name part of a qualified name
	// (label key, annotation key, finalizer): 63 bytes.
	QualifiedNameMaxLength = 63
	// LabelValueMaxLength is the longest label value: 63 bytes.
	LabelValueMaxLength = 63
)

// regexError formats a failed pattern as Kubernetes' RegexError does; its
// quirk of a double space before each " or " is part of the wire text.
func regexError(msg, pattern string, examples ...string) string {
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString(" (")
	if len(examples) > 0 {
		b.WriteString("e.g. ")
		for i, ex := range examples {
			if i > 0 {
				b.WriteString(" or ")
			}
			b.WriteString("'" + ex + "', ")
		}
	}
	b.WriteString("regex used for validation is '" + pattern + "')")
	return b.String()
}

// Two generations of Kubernetes helpers word the same limit differently:
// k8s.io/apimachinery/pkg/util/validation (DNS names of objects and
// namespaces) says "characters", k8s.io/apimachinery/pkg/api/validate/content
// (label keys and values) says "bytes". Both count bytes.
func maxLenChars(n int) string { return "must be no more than " + strconv.Itoa(n) + " characters" }
func maxLenBytes(n int) string { return "must be no more than " + strconv.Itoa(n) + " bytes" }

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
func isAlnum(c byte) bool      { return isLowerAlnum(c) || 'A' <= c && c <= 'Z' }

// isDNSLabel reports whether s matches dns1123LabelFmt in full.
func isDNSLabel(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// isDNSSubdomain reports whether s matches dns1123SubdomainFmt in full:
// one or more labels joined by single dots.
func isDNSSubdomain(s string) bool {
	for {
		i := strings.IndexByte(s, '.')
		if i < 0 {
			return isDNSLabel(s)
		}
		if !isDNSLabel(s[:i]) {
			return false
		}
		s = s[i+1:]
	}
}

// isQualifiedNamePart reports whether s matches qualifiedNameFmt in full.
func isQualifiedNamePart(s string) bool {
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

// IsDNS1123Label checks value against RFC 1123 label syntax, the rule for
// namespace names: at most 63 bytes of lower-case alphanumerics and '-',
// starting and ending alphanumeric. It returns Kubernetes' messages
// (IsDNS1123Label in k8s.io/apimachinery/pkg/util/validation), or nil.
func IsDNS1123Label(value string) []string {
	var errs []string
	if len(value) > DNS1123LabelMaxLength {
		errs = append(errs, maxLenChars(DNS1123LabelMaxLength))
	}
	if !isDNSLabel(value) {
		if isDNSSubdomain(value) {
			// A valid subdomain that is not a label has dots.
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, regexError(dns1123LabelMsg, dns1123LabelFmt, "my-name", "123-abc"))
		}
	}
	return errs
}

// IsDNS1035Label checks value against RFC 1035 label syntax, the rule for
// a custom resource's plural, singular, short names, categories and
// versions: at most 63 bytes of lower-case alphanumerics and '-', starting
// with a letter and ending alphanumeric. It returns Kubernetes' messages
// (IsDNS1035Label in k8s.io/apimachinery/pkg/util/validation), or nil.
func IsDNS1035Label(value string) []string {
	var errs []string
	if len(value) > DNS1123LabelMaxLength {
		errs = append(errs, maxLenChars(DNS1123LabelMaxLength))
	}
	if !isDNSLabel(value) || value[0] < 'a' || value[0] > 'z' {
		errs = append(errs, regexError(dns1035LabelMsg, dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

// IsDNS1123Subdomain checks value against RFC 1123 subdomain syntax, the
// rule for most object names: at most 253 bytes of dot-separated labels. It
// returns Kubernetes' messages (IsDNS1123Subdomain in
// k8s.io/apimachinery/pkg/util/validation), or nil.
func IsDNS1123Subdomain(value string) []string {
	return dnsSubdomainErrs(value, maxLenChars)
}

func dnsSubdomainErrs(value string, maxLen func(int) string) []string {
	var errs []string
	if len(value) > DNS1123SubdomainMaxLength {
		errs = append(errs, maxLen(DNS1123SubdomainMaxLength))
	}
	if !isDNSSubdomain(value) {
		errs = append(errs, regexError(dns1123SubdomainMsg, dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

// isQualifiedName is the allocation-free form of IsQualifiedName.
func isQualifiedName(value string) bool {
	name := value
	if i := strings.IndexByte(value, '/'); i >= 0 {
		prefix := value[:i]
		name = value[i+1:]
		if prefix == "" || len(prefix) > DNS1123SubdomainMaxLength || !isDNSSubdomain(prefix) {
			return false
		}
	}
	return len(name) <= QualifiedNameMaxLength && isQualifiedNamePart(name)
}

// IsQualifiedName checks value against Kubernetes' "qualified name" syntax,
// used for label keys, annotation keys and finalizers: an optional DNS
// subdomain prefix and '/', then a name of at most 63 bytes of
// alphanumerics, '-', '_' and '.', starting and ending alphanumeric. It
// returns Kubernetes' messages (IsLabelKey in
// k8s.io/apimachinery/pkg/api/validate/content), or nil.
func IsQualifiedName(value string) []string {
	if isQualifiedName(value) {
		return nil
	}
	var errs []string
	name := value
	switch strings.Count(value, "/") {
	case 0:
	case 1:
		i := strings.IndexByte(value, '/')
		prefix := value[:i]
		name = value[i+1:]
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			for _, m := range dnsSubdomainErrs(prefix, maxLenBytes) {
				errs = append(errs, "prefix part "+m)
			}
		}
	default:
		return []string{"a valid label key " + regexError(qualifiedNameMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc") +
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > QualifiedNameMaxLength {
		errs = append(errs, "name part "+maxLenBytes(QualifiedNameMaxLength))
	}
	if !isQualifiedNamePart(name) {
		errs = append(errs, "name part "+regexError(qualifiedNameMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

func isLabelValue(value string) bool {
	return value == "" || len(value) <= LabelValueMaxLength && isQualifiedNamePart(value)
}

// IsLabelValue checks a label value: empty, or at most 63 bytes of
// alphanumerics, '-', '_' and '.', starting and ending alphanumeric. It
// returns Kubernetes' messages (IsLabelValue in
// k8s.io/apimachinery/pkg/api/validate/content), or nil.
func IsLabelValue(value string) []string {
	if isLabelValue(value) {
		return nil
	}
	var errs []string
	if len(value) > LabelValueMaxLength {
		errs = append(errs, maxLenBytes(LabelValueMaxLength))
	}
	if value != "" && !isQualifiedNamePart(value) {
		errs = append(errs, regexError(labelValueMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// IsPathSegmentName checks that name can be one segment of a URL path and
// of a storage key: not "." or "..", and without '/' or '%'. Like
// Kubernetes it accepts the empty string and sets no length limit
// (IsPathSegmentName in k8s.io/apimachinery/pkg/api/validate/content).
func IsPathSegmentName(name string) []string {
	switch name {
	case ".":
		return []string{"may not be '.'"}
	case "..":
		return []string{"may not be '..'"}
	}
	return IsPathSegmentPrefix(name)
}

// IsPathSegmentPrefix is IsPathSegmentName for a generateName prefix: it
// skips the "." and ".." checks, since a suffix will follow.
func IsPathSegmentPrefix(name string) []string {
	var errs []string
	if strings.IndexByte(name, '/') >= 0 {
		errs = append(errs, "may not contain '/'")
	}
	if strings.IndexByte(name, '%') >= 0 {
		errs = append(errs, "may not contain '%'")
	}
	return errs
}

// NameFunc validates an object name for one kind of resource and returns
// Kubernetes' messages, or nil. When prefix is true the value is a
// metadata.generateName, to which the server appends a random suffix.
// NameIsDNSSubdomain, NameIsDNSLabel and NameIsPathSegment are the rules
// Kubernetes uses (ValidateNameFunc in k8s.io/apimachinery/pkg/api/validation).
type NameFunc func(name string, prefix bool) []string

// NameIsDNSSubdomain is the name rule of most resources, custom resources
// included: an RFC 1123 subdomain.
func NameIsDNSSubdomain(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Subdomain(name)
}

// NameIsDNSLabel is the name rule of namespaces: an RFC 1123 label.
func NameIsDNSLabel(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Label(name)
}

// NameIsPathSegment is the weakest name rule, the one Kubernetes' generic
// registry applies to every resource (rest.BeforeCreate and BeforeUpdate in
// k8s.io/apiserver/pkg/registry/rest): the name must be usable as a URL path
// segment.
func NameIsPathSegment(name string, prefix bool) []string {
	if prefix {
		return IsPathSegmentPrefix(name)
	}
	return IsPathSegmentName(name)
}

// maskTrailingDash lets a generateName end in '-' (the random suffix will
// follow). Kubernetes (maskTrailingDash in
// k8s.io/apimachinery/pkg/api/validation/generic.go) replaces the last two
// bytes by "a" rather than only the dash, so the byte before the dash is
// never checked: "a..-" is accepted as "a.a". The same is done here because
// it decides which prefixes pass.
func maskTrailingDash(name string) string {
	if len(name) > 1 && name[len(name)-1] == '-' {
		return name[:len(name)-2] + "a"
	}
	return name
}
