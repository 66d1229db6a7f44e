package selector

import (
	"github.com/apisem/apisem/validation"
	"slices"
	"strconv"
	"strings"

	"github.com/apisem/apisem/status"
)

// Operator is the relation of a label requirement.
type Operator string

// The operators of label selectors, spelled as in Kubernetes'
// selection.Operator.
const (
	Equals       Operator = "="
	DoubleEquals Operator = "=="
	NotEquals    Operator = "!="
	In           Operator = "in"
	NotIn        Operator = "notin"
	Exists       Operator = "exists"
	DoesNotExist Operator = "!"
	GreaterThan  Operator = "gt"
	LessThan     Operator = "lt"
)

// Requirement is one condition of a label selector. Values are sorted
// and distinct; they are empty for Exists and DoesNotExist.
type Requirement struct {
	Key      string
	Operator Operator
	Values   []string
}

// Matches reports whether labels satisfy r.
func (r *Requirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.Key]
	switch r.Operator {
	case In, Equals, DoubleEquals:
		return ok && slices.Contains(r.Values, v)
	case NotIn, NotEquals:
		return !ok || !slices.Contains(r.Values, v)
	case Exists:
		return ok
	case DoesNotExist:
		return !ok
	case GreaterThan, LessThan:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		want, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return false
		}
		if r.Operator == GreaterThan {
			return have > want
		}
		return have < want
	}
	return false
}

// String returns r in selector syntax.
func (r *Requirement) String() string {
	var b strings.Builder
	if r.Operator == DoesNotExist {
		b.WriteByte('!')
	}
	b.WriteString(r.Key)
	switch r.Operator {
	case Exists, DoesNotExist:
		return b.String()
	case In, NotIn:
		b.WriteString(" " + string(r.Operator) + " (")
		b.WriteString(strings.Join(r.Values, ","))
		b.WriteByte(')')
		return b.String()
	case GreaterThan:
		b.WriteByte('>')
	case LessThan:
		b.WriteByte('<')
	default:
		b.WriteString(string(r.Operator))
	}
	b.WriteString(strings.Join(r.Values, ","))
	return b.String()
}

// Labels is a parsed label selector: requirements sorted by key, all of
// which must hold. The zero value selects everything. A Labels is
// immutable and safe for concurrent use.
type Labels struct {
	reqs []Requirement
}

// Empty reports whether the selector selects everything.
func (s Labels) Empty() bool { return len(s.reqs) == 0 }

// Matches reports whether labels satisfy every requirement.
func (s Labels) Matches(labels map[string]string) bool {
	for i := range s.reqs {
		if !s.reqs[i].Matches(labels) {
			return false
		}
	}
	return true
}

// Requirements returns a copy of the requirements.
func (s Labels) Requirements() []Requirement {
	out := make([]Requirement, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = Requirement{Key: r.Key, Operator: r.Operator, Values: slices.Clone(r.Values)}
	}
	return out
}

// RequiresExactMatch returns the single value the selector requires for
// the label key, if it requires exactly one (=, == or in with one value).
func (s Labels) RequiresExactMatch(key string) (string, bool) {
	for _, r := range s.reqs {
		if r.Key != key {
			continue
		}
		switch r.Operator {
		case Equals, DoubleEquals, In:
			if len(r.Values) == 1 {
				return r.Values[0], true
			}
		}
		return "", false
	}
	return "", false
}

// String returns the selector in selector syntax (requirements sorted by
// key), which ParseLabels accepts.
func (s Labels) String() string {
	parts := make([]string, len(s.reqs))
	for i := range s.reqs {
		parts[i] = s.reqs[i].String()
	}
	return strings.Join(parts, ",")
}

// ParseLabels parses a label selector. An error is a 400 BadRequest with
// Kubernetes' message.
func ParseLabels(selector string) (Labels, error) {
	p := parser{lex: lexer{s: selector}}
	reqs, err := p.parse()
	if err != nil {
		return Labels{}, status.NewBadRequest(err.Error())
	}
	slices.SortStableFunc(reqs, func(a, b Requirement) int { return strings.Compare(a.Key, b.Key) })
	return Labels{reqs: reqs}, nil
}

// token kinds of the label-selector lexer.
type tokenKind uint8

const (
	tokEnd tokenKind = iota
	tokIdent
	tokComma
	tokNot      // !
	tokNotEq    // !=
	tokEq       // =
	tokDoubleEq // ==
	tokGt       // >
	tokLt       // <
	tokIn       // in
	tokNotIn    // notin
	tokOpen     // (
	tokClose    // )
)

type token struct {
	kind tokenKind
	lit  string
}

// lexer splits a selector into tokens. As in Kubernetes, a NUL byte reads
// like the end of input where a token may start and ends an identifier.
type lexer struct {
	s   string
	pos int
}

func (l *lexer) read() byte {
	if l.pos < len(l.s) {
		b := l.s[l.pos]
		l.pos++
		return b
	}
	l.pos++ // past the end, so that unread stays symmetric
	return 0
}

func (l *lexer) unread() { l.pos-- }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSpecial(c byte) bool {
	switch c {
	case '=', '!', '(', ')', ',', '>', '<':
		return true
	}
	return false
}

var specials = map[string]tokenKind{
	"!": tokNot, "!=": tokNotEq, "=": tokEq, "==": tokDoubleEq,
	">": tokGt, "<": tokLt, "(": tokOpen, ")": tokClose, ",": tokComma,
}

func (l *lexer) next() token {
	c := l.read()
	for isSpace(c) {
		c = l.read()
	}
	switch {
	case c == 0:
		return token{kind: tokEnd}
	case isSpecial(c):
		// The longest run of special characters that is an operator.
		start := l.pos - 1
		kind := specials[l.s[start:l.pos]]
		for l.pos < len(l.s) && isSpecial(l.s[l.pos]) {
			k, ok := specials[l.s[start:l.pos+1]]
			if !ok {
				break
			}
			kind = k
			l.pos++
		}
		lit := l.s[start:l.pos]
		if l.pos < len(l.s) && l.s[l.pos] == 0 {
			l.pos++ // Kubernetes' lexer swallows a NUL that ends an operator
		}
		return token{kind: kind, lit: lit}
	}
	start := l.pos - 1
	end := l.pos
	for {
		c := l.read()
		if c == 0 {
			break
		}
		if isSpecial(c) || isSpace(c) {
			l.unread()
			break
		}
		end = l.pos
	}
	lit := l.s[start:end]
	switch lit {
	case "in":
		return token{kind: tokIn, lit: lit}
	case "notin":
		return token{kind: tokNotIn, lit: lit}
	}
	return token{kind: tokIdent, lit: lit}
}

type parser struct {
	lex  lexer
	toks []token
	pos  int
}

// peek and take return the current token; in a value position the words
// "in" and "notin" are plain identifiers.
func (p *parser) peek(values bool) token {
	t := p.toks[p.pos]
	if values && (t.kind == tokIn || t.kind == tokNotIn) {
		t.kind = tokIdent
	}
	return t
}

func (p *parser) take(values bool) token {
	t := p.peek(values)
	p.pos++
	return t
}

type parseError string

func (e parseError) Error() string { return string(e) }

func errorf(parts ...string) error { return parseError(strings.Join(parts, "")) }

func (p *parser) parse() ([]Requirement, error) {
	for {
		t := p.lex.next()
		p.toks = append(p.toks, t)
		if t.kind == tokEnd {
			break
		}
	}
	var reqs []Requirement
	for {
		switch t := p.peek(true); t.kind {
		case tokIdent, tokNot:
			r, err := p.requirement()
			if err != nil {
				return nil, errorf("unable to parse requirement: ", err.Error())
			}
			reqs = append(reqs, r)
			switch t := p.take(true); t.kind {
			case tokEnd:
				return reqs, nil
			case tokComma:
				if t2 := p.peek(true); t2.kind != tokIdent && t2.kind != tokNot {
					return nil, errorf("found '", t2.lit, "', expected: identifier after ','")
				}
			default:
				return nil, errorf("found '", t.lit, "', expected: ',' or 'end of string'")
			}
		case tokEnd:
			return reqs, nil
		default:
			return nil, errorf("found '", t.lit, "', expected: !, identifier, or 'end of string'")
		}
	}
}

func (p *parser) requirement() (Requirement, error) {
	var op Operator
	t := p.take(true)
	if t.kind == tokNot {
		op = DoesNotExist
		t = p.take(true)
	}
	if t.kind != tokIdent {
		return Requirement{}, errorf("found '", t.lit, "', expected: identifier")
	}
	key := t.lit
	if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
		return Requirement{}, status.InvalidValue("<nil>", key, strings.Join(msgs, "; "))
	}
	if n := p.peek(true).kind; n == tokEnd || n == tokComma {
		if op != DoesNotExist {
			op = Exists
		}
	}
	if op == Exists || op == DoesNotExist {
		return newRequirement(key, op, nil)
	}
	switch t := p.take(false); t.kind {
	case tokIn:
		op = In
	case tokNotIn:
		op = NotIn
	case tokEq:
		op = Equals
	case tokDoubleEq:
		op = DoubleEquals
	case tokNotEq:
		op = NotEquals
	case tokGt:
		op = GreaterThan
	case tokLt:
		op = LessThan
	default:
		return Requirement{}, errorf("found '", t.lit, "', expected: in, notin, =, ==, !=, gt, lt")
	}
	var vals []string
	if op == In || op == NotIn {
		t := p.take(true)
		if t.kind != tokOpen {
			return Requirement{}, errorf("found '", t.lit, "' expected: '('")
		}
		switch t := p.peek(true); t.kind {
		case tokIdent, tokComma:
			var err error
			if vals, err = p.valueList(); err != nil {
				return Requirement{}, err
			}
			p.take(true) // the ")" valueList stopped at
		case tokClose:
			p.take(true)
			vals = []string{""}
		default:
			return Requirement{}, errorf("found '", t.lit, "', expected: ',', ')' or identifier")
		}
	} else {
		switch t := p.peek(true); t.kind {
		case tokEnd, tokComma:
			vals = []string{""}
		case tokIdent:
			p.take(true)
			vals = []string{t.lit}
		default:
			p.take(true)
			return Requirement{}, errorf("found '", t.lit, "', expected: identifier")
		}
	}
	slices.Sort(vals)
	return newRequirement(key, op, slices.Compact(vals))
}

// valueList parses the values inside "( ... )", where empty entries are
// empty-string values, and stops before the ")".
func (p *parser) valueList() ([]string, error) {
	var vals []string
	for {
		switch t := p.take(true); t.kind {
		case tokIdent:
			vals = append(vals, t.lit)
			switch t2 := p.peek(true); t2.kind {
			case tokComma:
				continue
			case tokClose:
				return vals, nil
			default:
				return nil, errorf("found '", t2.lit, "', expected: ',' or ')'")
			}
		case tokComma:
			if len(vals) == 0 {
				vals = append(vals, "") // "(,"
			}
			switch p.peek(true).kind {
			case tokClose:
				return append(vals, ""), nil // ",)"
			case tokComma:
				p.take(true)
				vals = append(vals, "") // ",,"
			}
		default:
			return nil, errorf("found '", t.lit, "', expected: ',', or identifier")
		}
	}
}

// newRequirement validates a parsed requirement as Kubernetes'
// NewRequirement does; several problems are reported together.
func newRequirement(key string, op Operator, vals []string) (Requirement, error) {
	var errs []string
	if op == GreaterThan || op == LessThan {
		for i, v := range vals {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				errs = append(errs, status.InvalidValue("values["+strconv.Itoa(i)+"]", v,
					"for 'Gt', 'Lt' operators, the value must be an integer").Error())
			}
		}
	}
	for i, v := range vals {
		if msgs := validation.IsLabelValue(v); len(msgs) > 0 {
			errs = append(errs, status.InvalidValue("values["+strconv.Itoa(i)+"]["+key+"]", v, strings.Join(msgs, "; ")).Error())
		}
	}
	if len(errs) > 0 {
		return Requirement{}, aggregate(errs)
	}
	if vals == nil {
		vals = []string{}
	}
	return Requirement{Key: key, Operator: op, Values: vals}, nil
}

// aggregate joins error texts as Kubernetes' error aggregate prints them:
// one as is, several deduplicated in brackets.
func aggregate(errs []string) error {
	var uniq []string
	for _, e := range errs {
		if !slices.Contains(uniq, e) {
			uniq = append(uniq, e)
		}
	}
	if len(uniq) == 1 {
		return parseError(uniq[0])
	}
	return parseError("[" + strings.Join(uniq, ", ") + "]")
}
