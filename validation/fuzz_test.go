package validation

import (
	"github.com/apisem/apisem/meta"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// Naive references: Kubernetes' own regular expressions, which the
// hand-written scanners must agree with on every input.
var (
	refLabel      = regexp.MustCompile("^" + dns1123LabelFmt + "$")
	refSubdomain  = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	refNamePart   = regexp.MustCompile("^" + qualifiedNameFmt + "$")
	refLabelValue = regexp.MustCompile("^" + labelValueFmt + "$")
)

func refQualifiedName(s string) bool {
	parts := strings.Split(s, "/")
	switch len(parts) {
	case 1:
	case 2:
		if parts[0] == "" || len(parts[0]) > DNS1123SubdomainMaxLength || !refSubdomain.MatchString(parts[0]) {
			return false
		}
	default:
		return false
	}
	name := parts[len(parts)-1]
	return len(name) <= QualifiedNameMaxLength && refNamePart.MatchString(name)
}

// seeds are the unit-table inputs plus a few long and non-UTF-8 ones.
var seeds = []string{
	"", "a", "my-name", "a.b", "a..b", "-a", "a-", "MyName", "example.com/MyName", "a/b/c", "/a", "a/",
	".", "..", "a/%b", "web-", "a..-", "\u212a", "\xff", "a\tb", strings.Repeat("a", 64), strings.Repeat("a.", 130),
}

// checkBounded fails if validating s produced more messages than a linear
// bound allows: at most one per input byte, plus a constant.
func checkBounded(t *testing.T, fn string, s string, msgs []string) {
	t.Helper()
	if len(msgs) > len(s)+4 {
		t.Fatalf("%s(%q) returned %d messages", fn, s, len(msgs))
	}
}

func FuzzIsDNS1123Label(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		msgs := IsDNS1123Label(s)
		checkBounded(t, "IsDNS1123Label", s, msgs)
		if valid := len(s) <= DNS1123LabelMaxLength && refLabel.MatchString(s); valid != (msgs == nil) {
			t.Fatalf("IsDNS1123Label(%q) = %q; regexp says valid=%v", s, msgs, valid)
		}
	})
}

func FuzzIsDNS1123Subdomain(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		msgs := IsDNS1123Subdomain(s)
		checkBounded(t, "IsDNS1123Subdomain", s, msgs)
		if valid := len(s) <= DNS1123SubdomainMaxLength && refSubdomain.MatchString(s); valid != (msgs == nil) {
			t.Fatalf("IsDNS1123Subdomain(%q) = %q; regexp says valid=%v", s, msgs, valid)
		}
		// A generateName prefix never panics, however short.
		NameIsDNSSubdomain(s, true)
		NameIsDNSLabel(s, true)
	})
}

func FuzzIsQualifiedName(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		msgs := IsQualifiedName(s)
		checkBounded(t, "IsQualifiedName", s, msgs)
		if valid := refQualifiedName(s); valid != (msgs == nil) {
			t.Fatalf("IsQualifiedName(%q) = %q; regexp says valid=%v", s, msgs, valid)
		}
	})
}

func FuzzIsLabelValue(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		msgs := IsLabelValue(s)
		checkBounded(t, "IsLabelValue", s, msgs)
		if valid := len(s) <= LabelValueMaxLength && refLabelValue.MatchString(s); valid != (msgs == nil) {
			t.Fatalf("IsLabelValue(%q) = %q; regexp says valid=%v", s, msgs, valid)
		}
	})
}

func FuzzIsPathSegmentName(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		msgs := IsPathSegmentName(s)
		valid := s != "." && s != ".." && !strings.ContainsAny(s, "/%")
		if valid != (msgs == nil) || len(msgs) > 2 {
			t.Fatalf("IsPathSegmentName(%q) = %q; want valid=%v", s, msgs, valid)
		}
		NameIsPathSegment(s, true)
	})
}

// FuzzMetadataMaps feeds one untrusted key and value to the map and list
// validators: valid input gives no error, and errors stay linear in size.
func FuzzMetadataMaps(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, k, v string) {
		m := map[string]string{k: v}
		if errs := Labels("metadata.labels", m); (errs == nil) != (refQualifiedName(k) && len(v) <= LabelValueMaxLength && refLabelValue.MatchString(v)) {
			t.Fatalf("Labels(%q) = %v", m, errs)
		}
		if errs := Annotations("metadata.annotations", m); len(errs) > 8 ||
			(errs == nil) != refQualifiedName(strings.ToLower(k)) {
			t.Fatalf("Annotations(%q) = %v", m, errs)
		}
		if errs := Finalizers("metadata.finalizers", []string{k, v}); len(errs) > 12 {
			t.Fatalf("Finalizers(%q, %q) = %v", k, v, errs)
		}
		FinalizerWarnings("metadata.finalizers", []string{k, v}, []string{v})
		if errs := FieldManager("fieldManager", k); len(errs) > utf8.RuneCountInString(k)+1 {
			t.Fatalf("FieldManager(%q) returned %d errors", k, len(errs))
		}
		OwnerReferences("metadata.ownerReferences", []meta.OwnerReference{{APIVersion: k, Kind: v, Name: k, UID: v}})
	})
}
