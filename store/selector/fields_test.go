package selector

import (
	"testing"

	"github.com/apisem/apisem/status"
)

var fieldTests = []struct {
	in       string
	want     string
	match    []map[string]string
	mismatch []map[string]string
}{
	{in: "", want: ""},
	{in: "metadata.name=a", want: "metadata.name=a", match: []map[string]string{{"metadata.name": "a"}}, mismatch: []map[string]string{nil}},
	{in: "metadata.name==a", want: "metadata.name=a"},
	{in: "metadata.name!=a", want: "metadata.name!=a", match: []map[string]string{nil}, mismatch: []map[string]string{{"metadata.name": "a"}}},
	{in: "b=1,a=2", want: "a=2,b=1", match: []map[string]string{{"a": "2", "b": "1"}}, mismatch: []map[string]string{{"a": "2"}}},
	{in: ",a=1,,", want: "a=1"},
	{in: `a=x\,y\=z\\`, want: `a=x\,y\=z\\`, match: []map[string]string{{"a": `x,y=z\`}}},
	{in: "a=", want: "a=", match: []map[string]string{nil}, mismatch: []map[string]string{{"a": "x"}}},
	{in: "=x", want: "=x", match: []map[string]string{{"": "x"}}},
	{in: "a=!b", want: "a=!b", match: []map[string]string{{"a": "!b"}}},
}

func TestParseFields(t *testing.T) {
	for _, tt := range fieldTests {
		s, err := ParseFields(tt.in)
		if err != nil {
			t.Errorf("ParseFields(%q) = err %v; want ok", tt.in, err)
			continue
		}
		if got := s.String(); got != tt.want {
			t.Errorf("ParseFields(%q).String() = %q; want %q", tt.in, got, tt.want)
		}
		for _, m := range tt.match {
			if !s.Matches(func(f string) string { return m[f] }) {
				t.Errorf("ParseFields(%q).Matches(%v) = false; want true", tt.in, m)
			}
		}
		for _, m := range tt.mismatch {
			if s.Matches(func(f string) string { return m[f] }) {
				t.Errorf("ParseFields(%q).Matches(%v) = true; want false", tt.in, m)
			}
		}
	}
}

func TestParseFieldsErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"a", "invalid selector: 'a'; can't understand 'a'"},
		{"b=1,a", "invalid selector: 'b=1,a'; can't understand 'a'"},
		{"a=b=c", "invalid field selector: unescapedRune character in value: 61"},
		{"a=b,c=d,e", "invalid selector: 'a=b,c=d,e'; can't understand 'e'"},
		{`a=b\x`, `invalid field selector: invalid escape sequence: \x`},
		{`a=b\`, `invalid field selector: invalid escape sequence: \`},
	} {
		_, err := ParseFields(tt.in)
		if err == nil {
			t.Errorf("ParseFields(%q) = ok; want error %q", tt.in, tt.want)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("ParseFields(%q) = err %q; want %q", tt.in, got, tt.want)
		}
		if !status.IsBadRequest(err) {
			t.Errorf("ParseFields(%q) error is not a 400: %#v", tt.in, err)
		}
	}
}

func TestFieldsRequiresExactMatch(t *testing.T) {
	s, err := ParseFields("metadata.namespace=ns,metadata.name!=x")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := s.RequiresExactMatch("metadata.namespace"); v != "ns" || !ok {
		t.Errorf("RequiresExactMatch(namespace) = %q, %v", v, ok)
	}
	if _, ok := s.RequiresExactMatch("metadata.name"); ok {
		t.Errorf("RequiresExactMatch(name) found a != term")
	}
}

// FuzzParseFields checks that parsing never panics, that the canonical
// form is a fixed point after one round trip, and that it selects the same
// objects.
func FuzzParseFields(f *testing.F) {
	for _, tt := range fieldTests {
		f.Add(tt.in)
	}
	for _, s := range []string{`a\,b=c`, `a!\==c`, "a!==b", `x=\\,y=\,`, "=", "!=", "a==="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseFields(in)
		if err != nil {
			if !status.IsBadRequest(err) {
				t.Fatalf("ParseFields(%q) error is not a 400: %v", in, err)
			}
			return
		}
		canon := s.String()
		s2, err := ParseFields(canon)
		if err != nil {
			t.Fatalf("ParseFields(%q) = %q, which does not parse: %v", in, canon, err)
		}
		if got := s2.String(); got != canon {
			// One round may reorder terms (Kubernetes sorts the raw
			// text); the canonical form must then be stable.
			s3, err := ParseFields(got)
			if err != nil || s3.String() != got {
				t.Fatalf("ParseFields(%q): canonical form not stable: %q, %q", in, canon, got)
			}
		}
		// Both select the same objects: try the values the terms name.
		vals := map[string]string{}
		for _, tm := range s.Terms() {
			vals[tm.Field] = tm.Value
		}
		get := func(f string) string { return vals[f] }
		if s.Matches(get) != s2.Matches(get) {
			t.Fatalf("ParseFields(%q) and its canonical form %q disagree", in, canon)
		}
	})
}
