package negotiation

import (
	"errors"
	"strings"
)

// MaxAcceptEntries is the number of Accept entries (media ranges) a
// negotiation examines; entries after it are ignored, so the work a hostile
// header can cause is bounded whatever its length.
const MaxAcceptEntries = 64

// maxParams is the number of parameters one media range may carry; an
// entry with more is malformed. Real clients send at most four.
const maxParams = 16

// Errors reported alongside a usable result, as mime.ParseMediaType reports
// ErrInvalidMediaParameter: the header was still used.
var (
	// ErrMalformedAccept reports that at least one Accept entry was not a
	// valid media range and was skipped.
	ErrMalformedAccept = errors.New("negotiation: malformed Accept entry skipped")

	// ErrAcceptTooLong reports that an Accept header had more than
	// MaxAcceptEntries entries; the rest were ignored.
	ErrAcceptTooLong = errors.New("negotiation: Accept header has too many entries; the rest were ignored")
)

// MediaRange is one entry of an Accept header.
type MediaRange struct {
	// Type and Subtype are as written; compare them case-insensitively.
	// "*" is a wildcard. A bare "*" entry is read as "*/*".
	Type, Subtype string
	// Quality is the q value in thousandths: 1000 unless the entry has a q
	// parameter, 0 meaning "not acceptable".
	Quality int
	// params is the validated parameter text after the subtype, q
	// included, for Param.
	params string
}

// Param returns the value of the parameter name (case-insensitive), with a
// quoted-string value unquoted. The q parameter is reported by Quality and
// not found here.
func (m MediaRange) Param(name string) (value string, ok bool) {
	s := m.params
	for s != "" {
		var n, v string
		var quoted bool
		n, v, quoted, s, _ = consumeParam(s)
		if n == "" || strings.EqualFold(n, "q") || !strings.EqualFold(n, name) {
			continue
		}
		if quoted {
			v = unquote(v)
		}
		value, ok = v, true
	}
	return value, ok
}

// String returns the media range without its weight: type/subtype and
// its other parameters as written, e.g. "application/json;as=Table".
func (m MediaRange) String() string {
	var b strings.Builder
	b.WriteString(m.Type)
	b.WriteByte('/')
	b.WriteString(m.Subtype)
	s := m.params
	for s != "" {
		var n, v string
		n, v, _, s, _ = consumeParam(s)
		if n == "" || strings.EqualFold(n, "q") {
			continue
		}
		b.WriteByte(';')
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(v)
	}
	return b.String()
}

// ParseAccept parses an Accept header (RFC 9110 section 12.5.1) into its
// media ranges, in header order. Malformed entries are skipped and reported
// with ErrMalformedAccept; entries beyond MaxAcceptEntries are ignored and
// reported with ErrAcceptTooLong. The ranges returned are usable whatever
// the error.
func ParseAccept(header string) ([]MediaRange, error) {
	var out []MediaRange
	var p acceptParser
	var r acceptRange
	for s := header; ; {
		var found bool
		if s, found = p.next(s, &r); !found {
			return out, p.err()
		}
		out = append(out, MediaRange{Type: r.typ, Subtype: r.sub, Quality: r.q, params: r.params})
	}
}

// acceptRange is a media range with the parameters negotiation reads
// already extracted. Its strings are substrings of the header.
type acceptRange struct {
	typ, sub string
	q        int
	params   string

	// Kubernetes parameters. hasConvert is set when any of as, g or v
	// is present: a conversion request is only valid when all three are.
	as, g, v   string
	hasConvert bool
	stream     string
	hasStream  bool
	hasSV      bool
	pretty     bool
}

// acceptParser walks Accept headers; one parser may read several header
// lines of a request, which count together against MaxAcceptEntries.
type acceptParser struct {
	entries   int
	malformed bool
	truncated bool
}

func (p *acceptParser) err() error {
	switch {
	case p.malformed && p.truncated:
		return errors.Join(ErrMalformedAccept, ErrAcceptTooLong)
	case p.malformed:
		return ErrMalformedAccept
	case p.truncated:
		return ErrAcceptTooLong
	}
	return nil
}

// next returns the next valid entry of s and the text after it; found is
// false at the end of s. Each step consumes at least one byte, so the work
// is linear in the header's length, and it stops after MaxAcceptEntries
// entries. The caller owns r (a callback would make it escape to the heap).
func (p *acceptParser) next(s string, r *acceptRange) (rest string, found bool) {
	for {
		s = skipOWS(s)
		for s != "" && s[0] == ',' {
			// RFC 9110 lists allow empty elements.
			s = skipOWS(s[1:])
		}
		if s == "" {
			return "", false
		}
		if p.entries == MaxAcceptEntries {
			p.truncated = true
			return "", false
		}
		p.entries++
		*r = acceptRange{}
		var ok bool
		if s, ok = parseRange(s, r); ok {
			return s, true
		}
		p.malformed = true
		s = skipElement(s)
	}
}

// parseRange parses one media range with its parameters, up to the comma
// that ends it (not consumed) or the end of s.
func parseRange(s string, r *acceptRange) (rest string, ok bool) {
	r.typ, s = consumeToken(s)
	if r.typ == "" {
		return s, false
	}
	if s != "" && s[0] == '/' {
		r.sub, s = consumeToken(s[1:])
		if r.sub == "" {
			return s, false
		}
	} else if r.typ == "*" {
		// A bare "*" is not RFC 9110 but old clients (Java's
		// URLConnection) send it and mean "*/*".
		r.sub = "*"
	} else {
		return s, false
	}
	if r.typ == "*" && r.sub != "*" {
		return s, false
	}
	r.q = 1000
	s = skipOWS(s)
	start := s
	params := 0
	for s != "" && s[0] == ';' {
		var name, value string
		var quoted, valid bool
		name, value, quoted, s, valid = consumeParam(s)
		if !valid {
			return s, false
		}
		if name == "" {
			continue // ";;" is allowed
		}
		if params++; params > maxParams {
			return s, false
		}
		if !r.readParam(name, value, quoted) {
			return s, false
		}
	}
	r.params = start[:len(start)-len(s)]
	if s != "" && s[0] != ',' {
		return s, false
	}
	return s, true
}

// readParam records a parameter Kubernetes gives meaning to. It reports
// false for a malformed q.
func (r *acceptRange) readParam(name, value string, quoted bool) bool {
	if quoted {
		if len(name) == 1 && lower(name[0]) == 'q' {
			return false
		}
		// Values Kubernetes matches are tokens; a quoted one is used
		// unquoted only if it needs no unescaping, which keeps this path
		// free of allocations.
		if strings.IndexByte(value, '\\') >= 0 {
			value = "\x00" // matches nothing
		} else {
			value = value[1 : len(value)-1]
		}
	}
	// Switch on the length first: most names are rejected without a
	// comparison.
	switch len(name) {
	case 1:
		switch lower(name[0]) {
		case 'q':
			q, ok := parseQuality(value)
			if !ok {
				return false
			}
			r.q = q
		case 'g':
			r.g, r.hasConvert = value, true
		case 'v':
			r.v, r.hasConvert = value, true
		}
	case 2:
		switch {
		case equalLower(name, "as"):
			r.as, r.hasConvert = value, true
		case equalLower(name, "sv"):
			r.hasSV = true
		}
	case 6:
		switch {
		case equalLower(name, "stream"):
			r.stream, r.hasStream = value, true
		case equalLower(name, "pretty"):
			r.pretty = value == "1"
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// equalLower reports whether the ASCII string s equals lowerCase (which is
// in lower case) ignoring case. Tokens are ASCII, so this is
// strings.EqualFold without its Unicode folding.
func equalLower(s, lowerCase string) bool {
	if len(s) != len(lowerCase) {
		return false
	}
	if s == lowerCase {
		return true // clients write lower case: one memory compare
	}
	for i := 0; i < len(s); i++ {
		if lower(s[i]) != lowerCase[i] {
			return false
		}
	}
	return true
}

// consumeParam consumes `OWS ";" OWS [name "=" value] OWS` from s, which
// starts with ';'. The value is a token or a quoted-string (returned with
// its quotes). Whitespace around "=" is tolerated, as many servers do. A
// parameter without "=" or value is invalid; an empty one (";;") returns
// an empty name.
func consumeParam(s string) (name, value string, quoted bool, rest string, valid bool) {
	s = skipOWS(s[1:])
	if s == "" || s[0] == ';' || s[0] == ',' {
		return "", "", false, s, true
	}
	name, s = consumeToken(s)
	s = skipOWS(s)
	if name == "" || s == "" || s[0] != '=' {
		return "", "", false, s, false
	}
	s = skipOWS(s[1:])
	if s != "" && s[0] == '"' {
		var ok bool
		value, s, ok = consumeQuoted(s)
		if !ok {
			return "", "", false, s, false
		}
		quoted = true
	} else {
		value, s = consumeToken(s)
		if value == "" {
			return "", "", false, s, false
		}
	}
	return name, value, quoted, skipOWS(s), true
}

// parseQuality parses an RFC 9110 qvalue into thousandths. It also accepts
// a leading "." (".5") and more than three decimals (ignored), which some
// clients send.
func parseQuality(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	whole, digits := 0, 0
	switch s[0] {
	case '0':
		s, digits = s[1:], 1
	case '1':
		whole, s, digits = 1, s[1:], 1
	case '.':
	default:
		return 0, false
	}
	if s == "" {
		return whole * 1000, true
	}
	if s[0] != '.' || digits == 0 && len(s) == 1 {
		return 0, false
	}
	s = s[1:]
	frac, scale := 0, 100
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if scale > 0 {
			frac += int(c-'0') * scale
			scale /= 10
		}
	}
	if whole == 1 && frac != 0 {
		return 0, false
	}
	return whole*1000 + frac, true
}

// skipElement skips the rest of a malformed list element, up to its ending
// comma (not consumed). Commas inside quoted strings do not end it.
func skipElement(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',':
			return s[i:]
		case '"':
			_, rest, ok := consumeQuoted(s[i:])
			if !ok {
				return ""
			}
			i = len(s) - len(rest) - 1
		}
	}
	return ""
}

// consumeToken returns the RFC 9110 token at the start of s.
func consumeToken(s string) (tok, rest string) {
	i := 0
	for i < len(s) && tokenChars[s[i]] {
		i++
	}
	return s[:i], s[i:]
}

// consumeQuoted returns the quoted-string at the start of s (which starts
// with '"'), quotes included.
func consumeQuoted(s string) (q, rest string, ok bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return s[:i+1], s[i+1:], true
		case '\\':
			i++
		}
	}
	return "", "", false
}

// unquote removes the quotes and backslash escapes of a quoted-string.
func unquote(q string) string {
	q = q[1 : len(q)-1]
	if strings.IndexByte(q, '\\') < 0 {
		return q
	}
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if q[i] == '\\' && i+1 < len(q) {
			i++
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

func skipOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// isTokenChar reports whether c is an RFC 9110 tchar.
func isTokenChar(c byte) bool { return tokenChars[c] }

// tokenChars is the RFC 9110 tchar set as a lookup table: a table lookup
// per byte is what keeps Accept parsing fast. It is never written.
var tokenChars = [256]bool{
	'!': true, '#': true, '$': true, '%': true, '&': true, '\'': true, '*': true,
	'+': true, '-': true, '.': true, '^': true, '_': true, '`': true, '|': true, '~': true,
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'A': true, 'B': true, 'C': true, 'D': true, 'E': true, 'F': true, 'G': true, 'H': true, 'I': true,
	'J': true, 'K': true, 'L': true, 'M': true, 'N': true, 'O': true, 'P': true, 'Q': true, 'R': true,
	'S': true, 'T': true, 'U': true, 'V': true, 'W': true, 'X': true, 'Y': true, 'Z': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true, 'g': true, 'h': true, 'i': true,
	'j': true, 'k': true, 'l': true, 'm': true, 'n': true, 'o': true, 'p': true, 'q': true, 'r': true,
	's': true, 't': true, 'u': true, 'v': true, 'w': true, 'x': true, 'y': true, 'z': true,
}
