package validation

import (
	"slices"
	"strings"
	"testing"
)

// Messages from k8s.io/apimachinery/pkg/util/validation/validation.go
// (IsDNS1123Label, IsDNS1123Subdomain, MaxLenError "characters") and
// k8s.io/apimachinery/pkg/api/validate/content/kube.go (IsLabelKey,
// IsLabelValue, MaxLenError "bytes").
const (
	labelRegexMsg     = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	subdomainRegexMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	namePartRegexMsg  = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	labelValueRegex   = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

func TestNameRules(t *testing.T) {
	tests := []struct {
		fn   string
		in   string
		want []string
	}{
		// IsDNS1123Label (util/validation/validation.go).
		{"IsDNS1123Label", "my-name", nil},
		{"IsDNS1123Label", "123-abc", nil},
		{"IsDNS1123Label", "", []string{labelRegexMsg}},
		{"IsDNS1123Label", "a.b", []string{"must not contain dots"}},
		{"IsDNS1123Label", "My", []string{labelRegexMsg}},
		{"IsDNS1123Label", "a-", []string{labelRegexMsg}},
		{"IsDNS1123Label", strings.Repeat("a", 63), nil},
		{"IsDNS1123Label", strings.Repeat("a", 64), []string{"must be no more than 63 characters"}},
		{"IsDNS1123Label", strings.Repeat("a.", 40) + "a", []string{"must be no more than 63 characters", "must not contain dots"}},
		// IsDNS1123Subdomain (util/validation/validation.go).
		{"IsDNS1123Subdomain", "example.com", nil},
		{"IsDNS1123Subdomain", "a..b", []string{subdomainRegexMsg}},
		{"IsDNS1123Subdomain", ".a", []string{subdomainRegexMsg}},
		{"IsDNS1123Subdomain", "a_b", []string{subdomainRegexMsg}},
		{"IsDNS1123Subdomain", strings.Repeat("a", 254), []string{"must be no more than 253 characters"}},
		{"IsDNS1123Subdomain", strings.Repeat("A", 254), []string{"must be no more than 253 characters", subdomainRegexMsg}},
		// IsLabelKey (api/validate/content/kube.go).
		{"IsQualifiedName", "MyName", nil},
		{"IsQualifiedName", "example.com/MyName", nil},
		{"IsQualifiedName", "", []string{"name part must be non-empty", namePartRegexMsg}},
		{"IsQualifiedName", "/a", []string{"prefix part must be non-empty"}},
		{"IsQualifiedName", "a/", []string{"name part must be non-empty", namePartRegexMsg}},
		{"IsQualifiedName", "Ex.com/a", []string{"prefix part " + subdomainRegexMsg}},
		{"IsQualifiedName", strings.Repeat("p", 254) + "/a", []string{"prefix part must be no more than 253 bytes"}},
		{"IsQualifiedName", strings.Repeat("n", 64), []string{"name part must be no more than 63 bytes"}},
		{"IsQualifiedName", "-a", []string{namePartRegexMsg}},
		{"IsQualifiedName", "a/b/c", []string{"a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}},
		// IsLabelValue (api/validate/content/kube.go).
		{"IsLabelValue", "", nil},
		{"IsLabelValue", "my_value", nil},
		{"IsLabelValue", "-", []string{labelValueRegex}},
		{"IsLabelValue", strings.Repeat("v", 64), []string{"must be no more than 63 bytes"}},
		// IsPathSegmentName, IsPathSegmentPrefix (api/validate/content/path.go).
		{"IsPathSegmentName", "", nil},
		{"IsPathSegmentName", ".", []string{"may not be '.'"}},
		{"IsPathSegmentName", "..", []string{"may not be '..'"}},
		{"IsPathSegmentName", "a/%b", []string{"may not contain '/'", "may not contain '%'"}},
		{"IsPathSegmentPrefix", "..", nil},
		// NameIsDNSSubdomain with prefix (api/validation/generic.go): the
		// last two bytes of a trailing-dash prefix become "a".
		{"generateName subdomain", "web-", nil},
		{"generateName subdomain", "a..-", nil},
		{"generateName subdomain", "-", []string{subdomainRegexMsg}},
		{"generateName subdomain", "Web-", []string{subdomainRegexMsg}},
		{"generateName label", "a.b-", []string{"must not contain dots"}},
	}
	fns := map[string]func(string) []string{
		"IsDNS1123Label":         IsDNS1123Label,
		"IsDNS1123Subdomain":     IsDNS1123Subdomain,
		"IsQualifiedName":        IsQualifiedName,
		"IsLabelValue":           IsLabelValue,
		"IsPathSegmentName":      IsPathSegmentName,
		"IsPathSegmentPrefix":    IsPathSegmentPrefix,
		"generateName subdomain": func(s string) []string { return NameIsDNSSubdomain(s, true) },
		"generateName label":     func(s string) []string { return NameIsDNSLabel(s, true) },
	}
	for _, tt := range tests {
		if got := fns[tt.fn](tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("%s(%q) = %q; want %q", tt.fn, tt.in, got, tt.want)
		}
	}
}
