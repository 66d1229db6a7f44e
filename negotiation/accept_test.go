package negotiation

import (
	"errors"
	"strings"
	"testing"
)

type rangeWant struct {
	typ, sub string
	q        int
	str      string // String(), when checked
}

var parseAcceptTests = []struct {
	in   string
	want []rangeWant
	err  error
}{
	{in: "", want: nil},
	{in: " , ,, ", want: nil}, // RFC 9110 5.6.1: empty list elements are ignored
	{in: "application/json", want: []rangeWant{{"application", "json", 1000, "application/json"}}},
	{in: "Application/JSON", want: []rangeWant{{"Application", "JSON", 1000, ""}}},
	{in: "*/*", want: []rangeWant{{"*", "*", 1000, ""}}},
	{in: "application/*", want: []rangeWant{{"application", "*", 1000, ""}}},
	// Java's URLConnection default.
	{in: "text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2", want: []rangeWant{
		{"text", "html", 1000, ""}, {"image", "gif", 1000, ""}, {"image", "jpeg", 1000, ""},
		{"*", "*", 200, ""}, {"*", "*", 200, ""}}},
	// kubectl get (k8s.io/kubectl/pkg/cmd/get).
	{in: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", want: []rangeWant{
		{"application", "json", 1000, "application/json;as=Table;v=v1;g=meta.k8s.io"},
		{"application", "json", 1000, "application/json;as=Table;v=v1beta1;g=meta.k8s.io"},
		{"application", "json", 1000, "application/json"}}},
	// client-go defaults.
	{in: "application/json, */*", want: []rangeWant{{"application", "json", 1000, ""}, {"*", "*", 1000, ""}}},
	{in: "application/vnd.kubernetes.protobuf,application/json", want: []rangeWant{
		{"application", "vnd.kubernetes.protobuf", 1000, ""}, {"application", "json", 1000, ""}}},
	// Firefox.
	{in: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", want: []rangeWant{
		{"text", "html", 1000, ""}, {"application", "xhtml+xml", 1000, ""}, {"application", "xml", 900, ""}, {"*", "*", 800, ""}}},
	// q values (RFC 9110 12.4.2), and what lenient parsing keeps.
	{in: "a/b;q=0", want: []rangeWant{{"a", "b", 0, ""}}},
	{in: "a/b;q=0.", want: []rangeWant{{"a", "b", 0, ""}}},
	{in: "a/b;q=0.001", want: []rangeWant{{"a", "b", 1, ""}}},
	{in: "a/b;q=0.5", want: []rangeWant{{"a", "b", 500, ""}}},
	{in: "a/b;Q=0.25", want: []rangeWant{{"a", "b", 250, ""}}},
	{in: "a/b;q=1.000", want: []rangeWant{{"a", "b", 1000, ""}}},
	{in: "a/b;q=0.12345", want: []rangeWant{{"a", "b", 123, ""}}},
	{in: "a/b;q=1.5, c/d", want: []rangeWant{{"c", "d", 1000, ""}}, err: ErrMalformedAccept},
	{in: "a/b;q=2, c/d", want: []rangeWant{{"c", "d", 1000, ""}}, err: ErrMalformedAccept},
	{in: "a/b;q=x, c/d", want: []rangeWant{{"c", "d", 1000, ""}}, err: ErrMalformedAccept},
	{in: `a/b;q="0.5", c/d`, want: []rangeWant{{"c", "d", 1000, ""}}, err: ErrMalformedAccept},
	// Whitespace (OWS) around separators, and tolerated around "=".
	{in: " \tapplication/json ;\tq=0.5 ,text/html ", want: []rangeWant{{"application", "json", 500, ""}, {"text", "html", 1000, ""}}},
	{in: "a/b; q = 0.5", want: []rangeWant{{"a", "b", 500, ""}}},
	{in: "a/b;;x=1;", want: []rangeWant{{"a", "b", 1000, "a/b;x=1"}}},
	// Quoted strings may hold commas and escapes.
	{in: `a/b;x="1,2", c/d`, want: []rangeWant{{"a", "b", 1000, `a/b;x="1,2"`}, {"c", "d", 1000, ""}}},
	{in: `a/b;x="q\"z", c/d`, want: []rangeWant{{"a", "b", 1000, ""}, {"c", "d", 1000, ""}}},
	// Malformed entries are skipped; the rest survive.
	{in: "json, application/json", want: []rangeWant{{"application", "json", 1000, ""}}, err: ErrMalformedAccept},
	{in: "*/json, a/b", want: []rangeWant{{"a", "b", 1000, ""}}, err: ErrMalformedAccept},
	{in: "application/, a/b", want: []rangeWant{{"a", "b", 1000, ""}}, err: ErrMalformedAccept},
	{in: "/json, a/b", want: []rangeWant{{"a", "b", 1000, ""}}, err: ErrMalformedAccept},
	{in: "a/b c, d/e", want: []rangeWant{{"d", "e", 1000, ""}}, err: ErrMalformedAccept},
	{in: "a/b;x, d/e", want: []rangeWant{{"d", "e", 1000, ""}}, err: ErrMalformedAccept},
	{in: "a/b;x=, d/e", want: []rangeWant{{"d", "e", 1000, ""}}, err: ErrMalformedAccept},
	{in: "a/b;=1, d/e", want: []rangeWant{{"d", "e", 1000, ""}}, err: ErrMalformedAccept},
	{in: `a/b;x="1,2 c, d/e`, want: nil, err: ErrMalformedAccept}, // unterminated quote eats the rest
	{in: `a/b c="1,2", d/e`, want: []rangeWant{{"d", "e", 1000, ""}}, err: ErrMalformedAccept},
	{in: "a/b;" + strings.Repeat("x=1;", maxParams+1) + ", d/e", want: []rangeWant{{"d", "e", 1000, ""}}, err: ErrMalformedAccept},
	{in: "\xff/b, d/e", want: []rangeWant{{"d", "e", 1000, ""}}, err: ErrMalformedAccept},
}

func TestParseAccept(t *testing.T) {
	for _, tt := range parseAcceptTests {
		got, err := ParseAccept(tt.in)
		if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
			t.Errorf("ParseAccept(%q) = err %v; want %v", tt.in, err, tt.err)
		}
		if len(got) != len(tt.want) {
			t.Errorf("ParseAccept(%q) = %d ranges %v; want %d", tt.in, len(got), got, len(tt.want))
			continue
		}
		for i, w := range tt.want {
			g := got[i]
			if g.Type != w.typ || g.Subtype != w.sub || g.Quality != w.q {
				t.Errorf("ParseAccept(%q)[%d] = %s/%s q=%d; want %s/%s q=%d", tt.in, i, g.Type, g.Subtype, g.Quality, w.typ, w.sub, w.q)
			}
			if w.str != "" && g.String() != w.str {
				t.Errorf("ParseAccept(%q)[%d].String() = %q; want %q", tt.in, i, g.String(), w.str)
			}
		}
	}
}

func TestMediaRangeParam(t *testing.T) {
	tests := []struct {
		in, name, want string
		ok             bool
	}{
		{"application/json;as=Table;g=meta.k8s.io;v=v1", "as", "Table", true},
		{"application/json;AS=Table", "as", "Table", true},
		{"application/json;as=Table", "As", "Table", true},
		{"application/json;as=Table", "g", "", false},
		{"application/json;q=0.5", "q", "", false},
		{`a/b;x="1,2"`, "x", "1,2", true},
		{`a/b;x="q\"z\\"`, "x", `q"z\`, true},
		{"a/b;x=1;x=2", "x", "2", true}, // the last wins, as in Kubernetes' parameter map
	}
	for _, tt := range tests {
		rs, err := ParseAccept(tt.in)
		if err != nil || len(rs) != 1 {
			t.Fatalf("ParseAccept(%q) = %v, %v", tt.in, rs, err)
		}
		got, ok := rs[0].Param(tt.name)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseAccept(%q)[0].Param(%q) = %q, %v; want %q, %v", tt.in, tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseAcceptBounded(t *testing.T) {
	h := strings.Repeat("a/b;q=0.5,", MaxAcceptEntries) + "c/d"
	got, err := ParseAccept(h)
	if !errors.Is(err, ErrAcceptTooLong) || errors.Is(err, ErrMalformedAccept) {
		t.Errorf("ParseAccept(%d entries) = err %v; want ErrAcceptTooLong", MaxAcceptEntries+1, err)
	}
	if len(got) != MaxAcceptEntries {
		t.Errorf("ParseAccept(%d entries) kept %d; want %d", MaxAcceptEntries+1, len(got), MaxAcceptEntries)
	}
	// Malformed entries count too: they cost work.
	h = strings.Repeat("x,", MaxAcceptEntries) + "c/d"
	got, err = ParseAccept(h)
	if !errors.Is(err, ErrAcceptTooLong) || !errors.Is(err, ErrMalformedAccept) || len(got) != 0 {
		t.Errorf("ParseAccept(%d malformed entries) = %v, %v; want none, both errors", MaxAcceptEntries+1, got, err)
	}
}

func TestIsTokenChar(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", byte(c)) >= 0
		if got := isTokenChar(byte(c)); got != want {
			t.Errorf("isTokenChar(%q) = %v; want %v", c, got, want)
		}
	}
}

// naiveParseAccept is a reference parser for headers without quoted
// strings, written for clarity rather than speed.
func naiveParseAccept(h string) []rangeWant {
	var out []rangeWant
	for _, el := range strings.Split(h, ",") {
		el = strings.Trim(el, " \t")
		if el == "" {
			continue
		}
		if len(out) == MaxAcceptEntries {
			break
		}
		parts := strings.Split(el, ";")
		mt := strings.TrimRight(parts[0], " \t")
		typ, sub, found := strings.Cut(mt, "/")
		if !found && mt == "*" {
			typ, sub, found = "*", "*", true
		}
		if !found || !naiveToken(typ) || !naiveToken(sub) || (typ == "*" && sub != "*") {
			continue
		}
		q, ok, n := 1000, true, 0
		for _, p := range parts[1:] {
			p = strings.Trim(p, " \t")
			if p == "" {
				continue
			}
			name, val, found := strings.Cut(p, "=")
			name, val = strings.Trim(name, " \t"), strings.Trim(val, " \t")
			if n++; !found || !naiveToken(name) || !naiveToken(val) || n > maxParams {
				ok = false
				break
			}
			if strings.EqualFold(name, "q") {
				if q, ok = parseQuality(val); !ok {
					break
				}
			}
		}
		if ok {
			out = append(out, rangeWant{typ: typ, sub: sub, q: q})
		}
	}
	return out
}

func naiveToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// FuzzParseAccept checks that parsing never panics, returns sane ranges,
// agrees with the naive reference on quote-free headers, and that the
// negotiation built on it never panics either.
func FuzzParseAccept(f *testing.F) {
	for _, tt := range parseAcceptTests {
		f.Add(tt.in)
	}
	for _, h := range clientHeaders {
		f.Add(h.accept)
	}
	f.Fuzz(func(t *testing.T, h string) {
		got, err := ParseAccept(h)
		if len(got) > MaxAcceptEntries {
			t.Fatalf("ParseAccept(%q) returned %d ranges", h, len(got))
		}
		if err != nil && !errors.Is(err, ErrMalformedAccept) && !errors.Is(err, ErrAcceptTooLong) {
			t.Fatalf("ParseAccept(%q) = unexpected error %v", h, err)
		}
		for _, r := range got {
			if r.Quality < 0 || r.Quality > 1000 || !naiveToken(r.Type) || !naiveToken(r.Subtype) {
				t.Fatalf("ParseAccept(%q) returned bad range %+v", h, r)
			}
			// The canonical form parses back to the same range.
			again, err := ParseAccept(r.String())
			if err != nil || len(again) != 1 || again[0].Type != r.Type || again[0].Subtype != r.Subtype {
				t.Fatalf("ParseAccept(%q) round trip of %q = %v, %v", h, r.String(), again, err)
			}
		}
		if !strings.ContainsRune(h, '"') {
			want := naiveParseAccept(h)
			if len(want) != len(got) {
				t.Fatalf("ParseAccept(%q) = %d ranges; naive reference %d", h, len(got), len(want))
			}
			for i := range want {
				if got[i].Type != want[i].typ || got[i].Subtype != want[i].sub || got[i].Quality != want[i].q {
					t.Fatalf("ParseAccept(%q)[%d] = %+v; naive reference %+v", h, i, got[i], want[i])
				}
			}
		}
		for _, ep := range []Endpoint{{}, {Response: List}, {Response: Watch}, {MediaTypes: JSON, NoTable: true}} {
			res, err := ep.NegotiateAccept(h)
			if err == nil && ep.offers()&offerBit(res.Target, serializerIndex(res.MediaType)) == 0 {
				t.Fatalf("%+v.NegotiateAccept(%q) = %+v, which the endpoint does not offer", ep, h, res)
			}
		}
	})
}

func serializerIndex(m MediaType) int {
	switch m {
	case JSON:
		return serJSON
	case YAML:
		return serYAML
	}
	return serProtobuf
}
