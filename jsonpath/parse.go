package jsonpath

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The nodes of a parsed template. A template is a list of text and
// action nodes; an action ({...}) is a list of the other kinds, applied
// one after the other to the values the previous one produced.
type (
	listNode struct{ nodes []node }
	textNode struct{ text string }
	// fieldNode selects a member of an object; a name of "*" is a
	// wildcardNode instead.
	fieldNode struct{ name string }
	// identNode is a bare word: "range" and "end" are the only ones
	// evaluation knows.
	identNode struct{ name string }
	arrayNode struct{ params [3]sliceParam }
	// filterNode keeps the elements of an array for which left op right
	// holds, or, with op "exists", for which left finds anything.
	filterNode struct {
		left, right *listNode
		op          string
	}
	intNode       struct{ v int }
	floatNode     struct{ v float64 }
	boolNode      struct{ v bool }
	wildcardNode  struct{}
	recursiveNode struct{}
	unionNode     struct{ lists []*listNode }
)

// node is one of the node types above.
type node any

// sliceParam is one of start, end and step of [start:end:step]. An end
// that was not written after a lone index ([n]) is derived as n+1.
type sliceParam struct {
	v       int
	known   bool
	derived bool
}

// maxNesting bounds how deeply a template re-parses its parts (a union's
// members, a quoted member name, a filter's operands). Each level parses
// a piece of its parent's text, so parsing stays linear in the template.
const maxNesting = 8

// errNesting is returned for templates nested deeper than maxNesting;
// Kubernetes' parser has no such limit, but no template it accepts needs
// more than three levels.
var errNesting = errors.New("jsonpath: template nested too deeply")

// parser holds the state of one parse: the input, the position of the
// next rune and the start of the token being read.
type parser struct {
	in         string
	pos, start int
	width      int // of the last rune read, for backup
	depth      int
}

const eof = -1

// parse parses a template: text with actions in braces.
func parse(text string, depth int) (*listNode, error) {
	if depth > maxNesting {
		return nil, errNesting
	}
	p := &parser{in: text, depth: depth}
	root := &listNode{}
	for {
		i := strings.IndexByte(p.in[p.pos:], '{')
		if i < 0 {
			if p.pos < len(p.in) {
				root.nodes = append(root.nodes, &textNode{p.in[p.pos:]})
			}
			return root, nil
		}
		if i > 0 {
			root.nodes = append(root.nodes, &textNode{p.in[p.pos : p.pos+i]})
		}
		p.pos += i + 1
		p.start = p.pos
		action := &listNode{}
		root.nodes = append(root.nodes, action)
		if err := p.action(action); err != nil {
			return nil, err
		}
	}
}

// parseAction parses text as the inside of an action, as Kubernetes
// parses the members of a union, a quoted member name and the operands
// of a filter: text in braces, of which only the first action counts.
func (p *parser) parseAction(text string) (*listNode, error) {
	root, err := parse("{"+text+"}", p.depth+1)
	if err != nil {
		return nil, err
	}
	return root.nodes[0].(*listNode), nil
}

func (p *parser) next() rune {
	if p.pos >= len(p.in) {
		p.width = 0
		return eof
	}
	r, w := utf8.DecodeRuneInString(p.in[p.pos:])
	p.width = w
	p.pos += w
	return r
}

func (p *parser) backup() { p.pos -= p.width }

func (p *parser) peek() rune {
	r := p.next()
	p.backup()
	return r
}

// consume returns the text read since the last call.
func (p *parser) consume() string {
	s := p.in[p.start:p.pos]
	p.start = p.pos
	return s
}

// action parses the inside of an action into cur, up to and including
// its closing brace.
func (p *parser) action(cur *listNode) error {
	for {
		rest := p.in[p.pos:]
		var err error
		switch {
		case strings.HasPrefix(rest, "}"):
			p.pos++
			p.consume()
			return nil
		case strings.HasPrefix(rest, "[?("):
			err = p.filter(cur)
		case strings.HasPrefix(rest, ".."):
			err = p.recursive(cur)
		default:
			switch r := p.next(); {
			case r == eof || r == '\r' || r == '\n':
				return fmt.Errorf("unclosed action")
			case r == ' ', r == '@', r == '$': // $ and @ name the current value: nothing to do
				p.consume()
			case r == '[':
				err = p.array(cur)
			case r == '"' || r == '\'':
				err = p.quote(cur, r)
			case r == '.':
				p.field(cur)
			case r == '+' || r == '-' || unicode.IsDigit(r):
				p.backup()
				err = p.number(cur)
			case isAlphaNumeric(r):
				p.backup()
				p.identifier(cur)
			default:
				return fmt.Errorf("unrecognized character in action: %#U", r)
			}
		}
		if err != nil {
			return err
		}
	}
}

// identifier reads a bare word: true, false, or an identifier.
func (p *parser) identifier(cur *listNode) {
	for !isTerminator(p.next()) {
	}
	p.backup()
	switch v := p.consume(); v {
	case "true", "false":
		cur.nodes = append(cur.nodes, &boolNode{v == "true"})
	default:
		cur.nodes = append(cur.nodes, &identNode{v})
	}
}

// recursive reads "..", and the member name right after it if any.
func (p *parser) recursive(cur *listNode) error {
	if n := len(cur.nodes); n > 0 {
		if _, ok := cur.nodes[n-1].(*recursiveNode); ok {
			return fmt.Errorf("invalid multiple recursive descent")
		}
	}
	p.pos += len("..")
	p.consume()
	cur.nodes = append(cur.nodes, &recursiveNode{})
	if isAlphaNumeric(p.peek()) {
		p.field(cur)
	}
	return nil
}

// number reads an integer or a decimal number, with an optional sign.
func (p *parser) number(cur *listNode) error {
	if r := p.peek(); r == '+' || r == '-' {
		p.next()
	}
	for {
		if r := p.next(); r != '.' && !unicode.IsDigit(r) {
			p.backup()
			break
		}
	}
	v := p.consume()
	if i, err := strconv.Atoi(v); err == nil {
		cur.nodes = append(cur.nodes, &intNode{i})
		return nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		cur.nodes = append(cur.nodes, &floatNode{f})
		return nil
	}
	return fmt.Errorf("cannot parse number %s", v)
}

// array reads [...] after its '[': a union of comma-separated members,
// a quoted member name, or an index or slice.
func (p *parser) array(cur *listNode) error {
	for {
		switch p.next() {
		case eof, '\n':
			return fmt.Errorf("unterminated array")
		case ']':
			t := p.consume() // [...]
			return p.arrayText(cur, t[1:len(t)-1])
		}
	}
}

func (p *parser) arrayText(cur *listNode, text string) error {
	if text == "*" {
		text = ":"
	}
	if strings.Contains(text, ",") {
		u := &unionNode{}
		for s := range strings.SplitSeq(text, ",") {
			l, err := p.parseAction("[" + strings.Trim(s, " ") + "]")
			if err != nil {
				return err
			}
			u.lists = append(u.lists, l)
		}
		cur.nodes = append(cur.nodes, u)
		return nil
	}
	if len(text) >= 2 && text[0] == '\'' && text[len(text)-1] == '\'' && !strings.Contains(text[1:len(text)-1], "'") {
		// A quoted member name is read as .name would be, so a
		// '.' in it separates members, as in Kubernetes.
		l, err := p.parseAction("." + text[1:len(text)-1])
		if err != nil {
			return err
		}
		cur.nodes = append(cur.nodes, l.nodes...)
		return nil
	}
	parts, ok := sliceParts(text)
	if !ok {
		return fmt.Errorf("invalid array index %s", text)
	}
	var a arrayNode
	for i, s := range parts {
		switch {
		case s == "" && i == 1:
			// [n] is [n:n+1].
			a.params[1] = sliceParam{v: a.params[0].v + 1, known: true, derived: true}
		case s == "":
		case i > 0 && s == ":":
		default:
			if i > 0 {
				s = s[1:]
			}
			v, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("array index %s is not a number", s)
			}
			a.params[i] = sliceParam{v: v, known: true}
		}
	}
	cur.nodes = append(cur.nodes, &a)
	return nil
}

// sliceParts splits an index or slice as Kubernetes' pattern
// ^(-?\d*)(:-?\d*)?(:-?\d*)?$ does (ASCII digits): the start, then the
// end and the step each with their leading ':', "" when absent.
func sliceParts(s string) (parts [3]string, ok bool) {
	for i := range parts {
		j := 0
		if i > 0 {
			if !strings.HasPrefix(s, ":") {
				break
			}
			j = 1
		}
		if j < len(s) && s[j] == '-' {
			j++
		}
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		parts[i], s = s[:j], s[j:]
	}
	return parts, s == ""
}

// filter reads [?(...)]: the expression up to the first ')' outside
// the first quoted string, then ']'.
func (p *parser) filter(cur *listNode) error {
	p.pos += len("[?(")
	p.consume()
	begin, end := false, false
	var pair rune
scan:
	for {
		switch r := p.next(); r {
		case eof, '\n':
			return fmt.Errorf("unterminated filter")
		case '"', '\'':
			if !begin {
				begin, pair = true, r
				continue
			}
			if p.in[p.pos-2] != '\\' && r == pair {
				end = true
			}
		case ')':
			if begin == end {
				break scan
			}
		}
	}
	if p.next() != ']' {
		return fmt.Errorf("unclosed array expect ]")
	}
	text := p.consume()
	text = text[:len(text)-2]
	left, op, right, ok := splitComparison(text)
	if !ok {
		l, err := p.parseAction(text)
		if err != nil {
			return err
		}
		cur.nodes = append(cur.nodes, &filterNode{left: l, right: &listNode{}, op: "exists"})
		return nil
	}
	l, err := p.parseAction(left)
	if err != nil {
		return err
	}
	r, err := p.parseAction(right)
	if err != nil {
		return err
	}
	cur.nodes = append(cur.nodes, &filterNode{left: l, right: r, op: op})
	return nil
}

// splitComparison splits a filter expression as Kubernetes' pattern
// ^([^!<>=]+)([!<>=]+)(.+?)$ does: the text before the first run of
// operator characters, the run, and the rest, which must not be empty
// (the run gives its last character up for it if need be).
func splitComparison(s string) (left, op, right string, ok bool) {
	i := strings.IndexAny(s, "!<>=")
	if i <= 0 {
		return "", "", "", false
	}
	j := i
	for j < len(s) && strings.IndexByte("!<>=", s[j]) >= 0 {
		j++
	}
	switch {
	case j < len(s):
	case j-i >= 2:
		j--
	default:
		return "", "", "", false
	}
	return s[:i], s[i:j], s[j:], true
}

// quote reads a quoted string after its opening quote q, which ends at
// the first q not right after a backslash.
func (p *parser) quote(cur *listNode, q rune) error {
	for {
		switch p.next() {
		case eof, '\n':
			return fmt.Errorf("unterminated quoted string")
		case q:
			if p.in[p.pos-2] == '\\' {
				continue
			}
			v := p.consume()
			s, err := unquote(v)
			if err != nil {
				return fmt.Errorf("unquote string %s error %v", v, err)
			}
			cur.nodes = append(cur.nodes, &textNode{s})
			return nil
		}
	}
}

// unquote unquotes a string in single or double quotes with Go's escapes.
func unquote(s string) (string, error) {
	q := s[0]
	s = s[1 : len(s)-1]
	if strings.IndexByte(s, '\\') < 0 && strings.IndexByte(s, q) < 0 {
		return s, nil
	}
	buf := make([]byte, 0, len(s))
	for len(s) > 0 {
		c, multibyte, rest, err := strconv.UnquoteChar(s, q)
		if err != nil {
			return "", err
		}
		s = rest
		if c < utf8.RuneSelf || !multibyte {
			buf = append(buf, byte(c))
		} else {
			buf = utf8.AppendRune(buf, c)
		}
	}
	return string(buf), nil
}

// field reads a member name up to the next unescaped terminator; a
// backslash escapes the rune after it and is dropped. "*" is a wildcard.
func (p *parser) field(cur *listNode) {
	p.consume()
	for {
		r := p.next()
		if r == '\\' {
			p.next()
			continue
		}
		if isTerminator(r) {
			p.backup()
			break
		}
	}
	v := p.consume()
	if v == "*" {
		cur.nodes = append(cur.nodes, &wildcardNode{})
		return
	}
	cur.nodes = append(cur.nodes, &fieldNode{strings.ReplaceAll(v, `\`, "")})
}

// isTerminator reports whether r ends a member name or a bare word.
func isTerminator(r rune) bool {
	switch r {
	case eof, ' ', '\t', '\r', '\n', '.', ',', '[', ']', '$', '@', '{', '}':
		return true
	}
	return false
}

func isAlphaNumeric(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
