package selector

import (
	"strings"
	"testing"

	"github.com/apisem/apisem/status"
)

const (
	keyNameRule = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	valueRule   = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
	prefixRule  = "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

// labelTests are selectors Kubernetes accepts, with the canonical form
// (String) and label sets they must and must not match.
var labelTests = []struct {
	in       string
	want     string
	match    []map[string]string
	mismatch []map[string]string
}{
	{in: "", want: "", match: []map[string]string{nil, {"a": "b"}}},
	{in: "x=a", want: "x=a", match: []map[string]string{{"x": "a"}}, mismatch: []map[string]string{nil, {"x": "b"}}},
	{in: "x==a", want: "x==a", match: []map[string]string{{"x": "a", "y": "c"}}, mismatch: []map[string]string{{"y": "a"}}},
	{in: "x!=a", want: "x!=a", match: []map[string]string{nil, {"x": "b"}}, mismatch: []map[string]string{{"x": "a"}}},
	{in: "x in (b,a)", want: "x in (a,b)", match: []map[string]string{{"x": "a"}, {"x": "b"}}, mismatch: []map[string]string{nil, {"x": "c"}}},
	{in: "x notin (a)", want: "x notin (a)", match: []map[string]string{nil, {"x": "b"}}, mismatch: []map[string]string{{"x": "a"}}},
	{in: "x", want: "x", match: []map[string]string{{"x": ""}}, mismatch: []map[string]string{nil}},
	{in: "!x", want: "!x", match: []map[string]string{nil, {"y": "x"}}, mismatch: []map[string]string{{"x": "a"}}},
	{in: "x>1", want: "x>1", match: []map[string]string{{"x": "2"}}, mismatch: []map[string]string{nil, {"x": "1"}, {"x": "z"}}},
	{in: "x<1", want: "x<1", match: []map[string]string{{"x": "-5"}}, mismatch: []map[string]string{{"x": "1"}}},
	// Whitespace, sorting by key, empty values.
	{in: " b = 1 ,\ta ", want: "a,b=1", match: []map[string]string{{"a": "", "b": "1"}}},
	{in: "x=", want: "x=", match: []map[string]string{{"x": ""}}, mismatch: []map[string]string{nil}},
	{in: "x in ()", want: "x in ()", match: []map[string]string{{"x": ""}}},
	{in: "x in (,a)", want: "x in (,a)", match: []map[string]string{{"x": ""}, {"x": "a"}}},
	{in: "x in (a,,b,)", want: "x in (,a,b)"},
	// "in" and "notin" are keys and values where a key or value is due.
	{in: "in=notin", want: "in=notin", match: []map[string]string{{"in": "notin"}}},
	{in: "x in (in,notin)", want: "x in (in,notin)"},
	{in: "example.com/app=web,app.kubernetes.io/name", want: "app.kubernetes.io/name,example.com/app=web"},
	{in: "x!=a,x!=b", want: "x!=a,x!=b", match: []map[string]string{{"x": "c"}}, mismatch: []map[string]string{{"x": "b"}}},
}

func TestParseLabels(t *testing.T) {
	for _, tt := range labelTests {
		s, err := ParseLabels(tt.in)
		if err != nil {
			t.Errorf("ParseLabels(%q) = err %v; want ok", tt.in, err)
			continue
		}
		if got := s.String(); got != tt.want {
			t.Errorf("ParseLabels(%q).String() = %q; want %q", tt.in, got, tt.want)
		}
		if s.Empty() != (tt.in == "") {
			t.Errorf("ParseLabels(%q).Empty() = %v", tt.in, s.Empty())
		}
		for _, l := range tt.match {
			if !s.Matches(l) {
				t.Errorf("ParseLabels(%q).Matches(%v) = false; want true", tt.in, l)
			}
		}
		for _, l := range tt.mismatch {
			if s.Matches(l) {
				t.Errorf("ParseLabels(%q).Matches(%v) = true; want false", tt.in, l)
			}
		}
	}
}

func TestParseLabelsErrors(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, tt := range []struct{ in, want string }{
		{"x=a b", "found 'b', expected: ',' or 'end of string'"},
		{",x", "found ',', expected: !, identifier, or 'end of string'"},
		{"x,", "found '', expected: identifier after ','"},
		{"x,=", "found '=', expected: identifier after ','"},
		{"=a", "found '=', expected: !, identifier, or 'end of string'"},
		{"!", "unable to parse requirement: found '', expected: identifier"},
		{"x a", "unable to parse requirement: found 'a', expected: in, notin, =, ==, !=, gt, lt"},
		{"x in a", "unable to parse requirement: found 'a' expected: '('"},
		{"x in (a", "unable to parse requirement: found '', expected: ',' or ')'"},
		{"x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"},
		{"x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"},
		{"x in (a,=)", "unable to parse requirement: found '=', expected: ',', or identifier"},
		{"x=(", "unable to parse requirement: found '(', expected: identifier"},
		{"!x=a", "found '=', expected: ',' or 'end of string'"},
		{"-x", `unable to parse requirement: <nil>: Invalid value: "-x": ` + keyNameRule},
		{"app:monolith", `unable to parse requirement: <nil>: Invalid value: "app:monolith": ` + keyNameRule},
		{long, `unable to parse requirement: <nil>: Invalid value: "` + long + `": name part must be no more than 63 bytes`},
		{"/x", `unable to parse requirement: <nil>: Invalid value: "/x": prefix part must be non-empty`},
		{"x/", `unable to parse requirement: <nil>: Invalid value: "x/": name part must be non-empty; ` + keyNameRule},
		{"app.kubernetes_io/name=x", `unable to parse requirement: <nil>: Invalid value: "app.kubernetes_io/name": ` + prefixRule},
		{"a/b/c", `unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`},
		{"x=a/b", `unable to parse requirement: values[0][x]: Invalid value: "a/b": ` + valueRule},
		{"x=" + long, `unable to parse requirement: values[0][x]: Invalid value: "` + long + `": must be no more than 63 bytes`},
		{"x in (ok,-b)", `unable to parse requirement: values[0][x]: Invalid value: "-b": ` + valueRule},
		{"x>qa", `unable to parse requirement: values[0]: Invalid value: "qa": for 'Gt', 'Lt' operators, the value must be an integer`},
		{"x>-q", `unable to parse requirement: [values[0]: Invalid value: "-q": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "-q": ` + valueRule + `]`},
		// A NUL ends an identifier, as in Kubernetes' lexer.
		{"a\x00b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
	} {
		_, err := ParseLabels(tt.in)
		if err == nil {
			t.Errorf("ParseLabels(%q) = ok; want error %q", tt.in, tt.want)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("ParseLabels(%q) = err\n\t%q\nwant\n\t%q", tt.in, got, tt.want)
		}
		if !status.IsBadRequest(err) {
			t.Errorf("ParseLabels(%q) error is not a 400 BadRequest: %#v", tt.in, err)
		}
	}
}

func TestLabelsRequiresExactMatch(t *testing.T) {
	s, err := ParseLabels("a=1,b in (2),c in (3,4),d!=5")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		key  string
		want string
		ok   bool
	}{{"a", "1", true}, {"b", "2", true}, {"c", "", false}, {"d", "", false}, {"e", "", false}} {
		if got, ok := s.RequiresExactMatch(tt.key); got != tt.want || ok != tt.ok {
			t.Errorf("RequiresExactMatch(%q) = %q, %v; want %q, %v", tt.key, got, ok, tt.want, tt.ok)
		}
	}
	reqs := s.Requirements()
	reqs[0].Values[0] = "changed"
	if v, _ := s.RequiresExactMatch("a"); v != "1" {
		t.Errorf("Requirements shares memory with the selector")
	}
}

// FuzzParseLabels checks that parsing never panics and that the canonical
// form of a selector parses back to the same selector.
func FuzzParseLabels(f *testing.F) {
	for _, tt := range labelTests {
		f.Add(tt.in)
	}
	for _, s := range []string{"x in (a", "!!x", "a=b=c", "x>1,y<2", "a\x00b", "((", "x notin (in)", "x==,y!="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseLabels(in)
		if err != nil {
			if !status.IsBadRequest(err) {
				t.Fatalf("ParseLabels(%q) error is not a 400: %v", in, err)
			}
			return
		}
		canon := s.String()
		s2, err := ParseLabels(canon)
		if err != nil {
			t.Fatalf("ParseLabels(%q) = %q, which does not parse: %v", in, canon, err)
		}
		if got := s2.String(); got != canon {
			t.Fatalf("ParseLabels(%q): canonical %q reparses as %q", in, canon, got)
		}
	})
}
