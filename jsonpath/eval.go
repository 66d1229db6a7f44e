package jsonpath

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
)

// A Template is a parsed JSONPath template. It is immutable: one
// Template may be evaluated by many goroutines at once.
type Template struct {
	text string
	root *listNode
	// members is the path of a template that is one action of member
	// names only ({.spec.replicas}), the most common printer column,
	// which FindResults follows without the general evaluator.
	members []string
}

// Parse parses a template: text, in which each {...} is an action (a
// path, a literal, range or end). A CRD's printer column .spec.x is
// the template {.spec.x}.
func Parse(text string) (*Template, error) {
	root, err := parse(text, 0)
	if err != nil {
		return nil, err
	}
	t := &Template{text: text, root: root}
	if len(root.nodes) == 1 {
		if l, ok := root.nodes[0].(*listNode); ok && len(l.nodes) > 0 {
			for _, n := range l.nodes {
				f, ok := n.(*fieldNode)
				if !ok {
					t.members = nil
					break
				}
				t.members = append(t.members, f.name)
			}
		}
	}
	return t, nil
}

// String returns the template as it was parsed.
func (t *Template) String() string { return t.text }

// Options change how a template is evaluated. The zero value is
// Kubernetes' default: a member that is not found is an error.
type Options struct {
	// AllowMissingKeys makes a member that none of the current values
	// has an empty result rather than an error, as kubectl's
	// --allow-missing-template-keys (its default) and a CRD's printer
	// columns do.
	AllowMissingKeys bool
	// MaxValues bounds how many values one evaluation may produce, all
	// its steps counted, so that a template like {..[*]..[*]..[*]} on a
	// large object fails with ErrTooManyValues rather than exhausting
	// memory; Kubernetes has no such bound. Zero means DefaultMaxValues.
	MaxValues int
}

// DefaultMaxValues is the bound on the values of one evaluation when
// Options.MaxValues is zero.
const DefaultMaxValues = 1 << 20

// ErrTooManyValues is returned when an evaluation would produce more
// values than Options.MaxValues.
var ErrTooManyValues = errors.New("jsonpath: too many values")

// maxRangeDepth bounds how deeply range actions nest, each one a level
// of recursion.
const maxRangeDepth = 1000

// Missing is the value of a range over JSON null, or over nothing, which
// in Kubernetes is a reflect.Value that holds nothing: it prints as
// "<no value>".
type Missing struct{}

// FindResults evaluates t on data, a JSON value as encoding/json decodes
// it into an any (map[string]any, []any, string, float64, bool and nil;
// integers may also be int64 or json.Number, as Kubernetes' unstructured
// objects hold them). It returns the values of each action and of each
// text between them, in order; a range repeats the actions up to its end
// for each of its values.
//
// The values are data's own, not copies, plus the template's literals
// (string, int, float64 and bool) and, for a wildcard or recursive
// descent over a string, its bytes (uint8). An object's members are
// visited in the order of their names, where Kubernetes visits them in
// Go's random map order.
func (t *Template) FindResults(data any, o Options) ([][]any, error) {
	if t.members != nil {
		return t.findMembers(data, o)
	}
	e := &evaluator{o: o, budget: o.MaxValues, lastEnd: -1}
	if e.budget <= 0 {
		e.budget = DefaultMaxValues
	}
	if data == nil {
		data = Missing{}
	}
	return e.find(t.root.nodes, 0, data)
}

// findMembers evaluates a template of member names only, as the general
// evaluator would: the first member not found ends the path, with an
// error unless missing members are allowed.
func (t *Template) findMembers(data any, o Options) ([][]any, error) {
	v := data
	for _, name := range t.members {
		m, ok := v.(map[string]any)
		if ok {
			v, ok = m[name]
		}
		if !ok {
			if o.AllowMissingKeys {
				return [][]any{{}}, nil
			}
			return nil, fmt.Errorf("%s is not found", name)
		}
	}
	return [][]any{{v}}, nil
}

// Execute evaluates t on data and writes the results as kubectl's
// -o jsonpath does: the values of each action separated by spaces,
// objects and arrays as compact JSON, null as "null", other values as
// Go's fmt prints them.
func (t *Template) Execute(w io.Writer, data any, o Options) error {
	results, err := t.FindResults(data, o)
	if err != nil {
		return err
	}
	var b []byte
	for _, vs := range results {
		for i, v := range vs {
			if i > 0 {
				b = append(b, ' ')
			}
			s, err := Format(v)
			if err != nil {
				return err
			}
			b = append(b, s...)
		}
	}
	_, err = w.Write(b)
	return err
}

// Format returns the text of one value as kubectl prints it: objects
// and arrays (and any Go map, slice or struct) as compact JSON with
// sorted members, nil as "null", Missing as "<no value>", anything else
// as fmt.Sprint does.
func Format(v any) (string, error) {
	switch v := v.(type) {
	case Missing:
		return "<no value>", nil
	case nil:
		return "null", nil
	case string:
		return v, nil
	case map[string]any, []any:
		b, err := json.Marshal(v)
		return string(b), err
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Map, reflect.Slice, reflect.Array, reflect.Struct:
		b, err := json.Marshal(v)
		return string(b), err
	}
	return fmt.Sprint(v), nil
}

// evaluator holds the state of one evaluation. The range counters
// follow Kubernetes' (k8s.io/client-go/util/jsonpath): a range action
// raises beginRange, the actions after it are evaluated once per value,
// and an end action stops that pass; lastEnd is the index of the end
// action that stopped the last one.
type evaluator struct {
	o                             Options
	budget                        int
	beginRange, inRange, endRange int
	lastEnd                       int
}

// spend takes n values from the budget.
func (e *evaluator) spend(n int) error {
	e.budget -= n
	if e.budget < 0 {
		return ErrTooManyValues
	}
	return nil
}

// find evaluates the template's nodes from index i on data.
func (e *evaluator) find(nodes []node, i int, data any) ([][]any, error) {
	if err := e.spend(1); err != nil {
		return nil, err
	}
	cur := []any{data}
	full := [][]any{}
	for ; i < len(nodes); i++ {
		results, err := e.walk(cur, nodes[i])
		if err != nil {
			return nil, err
		}
		if e.endRange > 0 && e.endRange <= e.inRange {
			e.endRange--
			e.lastEnd = i
			break
		}
		if e.beginRange > 0 {
			e.beginRange--
			e.inRange++
			if e.inRange > maxRangeDepth {
				return nil, fmt.Errorf("jsonpath: ranges nested more than %d deep", maxRangeDepth)
			}
			if len(results) > 0 {
				for _, v := range results {
					if v == nil {
						v = Missing{} // Kubernetes ranges over reflect.ValueOf(v.Interface())
					}
					next, err := e.find(nodes, i+1, v)
					if err != nil {
						return nil, err
					}
					full = append(full, next...)
				}
			} else if _, err := e.find(nodes, i+1, Missing{}); err != nil {
				// The pass over nothing finds where the range ends.
				return nil, err
			}
			e.inRange--
			for k := i + 1; k < len(nodes); k++ {
				if k == e.lastEnd {
					i = k
					break
				}
			}
			continue
		}
		full = append(full, results)
	}
	return full, nil
}

func (e *evaluator) walk(in []any, n node) ([]any, error) {
	switch n := n.(type) {
	case *listNode:
		return e.list(in, n)
	case *textNode:
		return []any{n.text}, e.spend(1)
	case *fieldNode:
		return e.field(in, n.name)
	case *arrayNode:
		return e.array(in, n)
	case *filterNode:
		return e.filter(in, n)
	case *intNode:
		return repeat(in, n.v), e.spend(len(in))
	case *floatNode:
		return repeat(in, n.v), e.spend(len(in))
	case *boolNode:
		return repeat(in, n.v), e.spend(len(in))
	case *wildcardNode:
		return e.wildcard(in)
	case *recursiveNode:
		return e.recursive(in)
	case *unionNode:
		return e.union(in, n)
	case *identNode:
		return e.ident(in, n)
	}
	panic(fmt.Sprintf("jsonpath: unexpected node %T", n))
}

// repeat returns v once for each value of in.
func repeat[T any](in []any, v T) []any {
	out := make([]any, len(in))
	for i := range out {
		out[i] = v
	}
	return out
}

func (e *evaluator) list(in []any, l *listNode) ([]any, error) {
	cur := in
	for _, n := range l.nodes {
		var err error
		if cur, err = e.walk(cur, n); err != nil {
			return cur, err
		}
	}
	return cur, nil
}

func (e *evaluator) ident(in []any, n *identNode) ([]any, error) {
	switch n.name {
	case "range":
		e.beginRange++
		return in, nil
	case "end":
		if e.inRange == 0 {
			return []any{}, fmt.Errorf("not in range, nothing to end")
		}
		e.endRange++
		return []any{}, nil
	}
	return in, fmt.Errorf("unrecognized identifier %v", n.name)
}

func (e *evaluator) field(in []any, name string) ([]any, error) {
	out := []any{}
	if len(in) == 0 {
		return out, nil
	}
	for _, v := range in {
		if m, ok := v.(map[string]any); ok {
			if x, ok := m[name]; ok {
				out = append(out, x)
			}
		}
	}
	if err := e.spend(len(out)); err != nil {
		return nil, err
	}
	if len(out) == 0 && !e.o.AllowMissingKeys {
		return out, fmt.Errorf("%s is not found", name)
	}
	return out, nil
}

func (e *evaluator) array(in []any, a *arrayNode) ([]any, error) {
	out := []any{}
	for _, v := range in {
		if v == nil {
			continue
		}
		arr, ok := v.([]any)
		if !ok {
			if _, ok := v.(Missing); ok {
				// Kubernetes panics here.
				return in, fmt.Errorf("<invalid Value> is not array or slice")
			}
			return in, fmt.Errorf("%T is not array or slice", v)
		}
		p := a.params
		n := len(arr)
		if !p[0].known {
			p[0].v = 0
		}
		if p[0].v < 0 {
			p[0].v += n
		}
		if !p[1].known {
			p[1].v = n
		}
		if p[1].v < 0 || (p[1].v == 0 && p[1].derived) {
			p[1].v += n
		}
		if p[1].v == p[0].v {
			// An empty selection ends the step, even for the values
			// after this one, as in Kubernetes.
			return out, nil
		}
		switch {
		case p[0].v >= n || p[0].v < 0:
			return in, fmt.Errorf("array index out of bounds: index %d, length %d", p[0].v, n)
		case p[1].v > n || p[1].v < 0:
			return in, fmt.Errorf("array index out of bounds: index %d, length %d", p[1].v-1, n)
		case p[0].v > p[1].v:
			return in, fmt.Errorf("starting index %d is greater than ending index %d", p[0].v, p[1].v)
		}
		step := 1
		if p[2].known {
			if p[2].v <= 0 {
				return in, fmt.Errorf("step must be > 0")
			}
			step = p[2].v
		}
		sub := arr[p[0].v:p[1].v]
		if err := e.spend((len(sub)-1)/step + 1); err != nil {
			return nil, err
		}
		for i := 0; i < len(sub); i += step {
			out = append(out, sub[i])
		}
	}
	return out, nil
}

func (e *evaluator) union(in []any, u *unionNode) ([]any, error) {
	out := []any{}
	for _, l := range u.lists {
		vs, err := e.list(in, l)
		if err != nil {
			return in, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// children returns the values directly inside v: an object's members
// in the order of their names, an array's elements, a string's bytes.
func (e *evaluator) children(v any) ([]any, error) {
	var out []any
	switch v := v.(type) {
	case map[string]any:
		if err := e.spend(len(v)); err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out = make([]any, len(keys))
		for i, k := range keys {
			out[i] = v[k]
		}
	case []any:
		if err := e.spend(len(v)); err != nil {
			return nil, err
		}
		out = v
	case string:
		if err := e.spend(len(v)); err != nil {
			return nil, err
		}
		out = make([]any, len(v))
		for i := range len(v) {
			out[i] = v[i]
		}
	}
	return out, nil
}

func (e *evaluator) wildcard(in []any) ([]any, error) {
	out := []any{}
	for _, v := range in {
		c, err := e.children(v)
		if err != nil {
			return nil, err
		}
		out = append(out, c...)
	}
	return out, nil
}

// recursive returns every value at or under in that has values inside
// it, each before those inside it; leaves are left out, as in
// Kubernetes.
func (e *evaluator) recursive(in []any) ([]any, error) {
	out := []any{}
	for _, v := range in {
		c, err := e.children(v)
		if err != nil {
			return nil, err
		}
		if len(c) == 0 {
			continue
		}
		out = append(out, v)
		more, err := e.recursive(c)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

func (e *evaluator) filter(in []any, f *filterNode) ([]any, error) {
	out := []any{}
	for _, v := range in {
		arr, ok := v.([]any)
		if !ok {
			s := fmt.Sprint(v)
			if _, ok := v.(Missing); ok {
				s = "<invalid reflect.Value>"
			}
			return in, fmt.Errorf("%s is not array or slice and cannot be filtered", s)
		}
		for _, x := range arr {
			if err := e.spend(1); err != nil {
				return nil, err
			}
			one := []any{x}
			lefts, err := e.list(one, f.left)
			if errors.Is(err, ErrTooManyValues) {
				return nil, err
			}
			if f.op == "exists" {
				if len(lefts) > 0 {
					out = append(out, x)
				}
				continue
			}
			if err != nil {
				return in, err
			}
			switch {
			case len(lefts) == 0:
				continue
			case len(lefts) > 1:
				return in, fmt.Errorf("can only compare one element at a time")
			}
			rights, err := e.list(one, f.right)
			if err != nil {
				return in, err
			}
			switch {
			case len(rights) == 0:
				continue
			case len(rights) > 1:
				return in, fmt.Errorf("can only compare one element at a time")
			}
			pass, err := compare(f.op, lefts[0], rights[0])
			if err != nil {
				return out, err
			}
			if pass {
				out = append(out, x)
			}
		}
	}
	return out, nil
}

// The errors of comparisons, as Go's text/template words them.
var (
	errBadComparisonType = errors.New("invalid type for comparison")
	errBadComparison     = errors.New("incompatible types for comparison")
)

// compare applies a filter's operator as Go's text/template compares:
// values of one basic kind (booleans, integers, floats, strings), and
// signed with unsigned integers; anything else is an error.
func compare(op string, a, b any) (bool, error) {
	switch op {
	case "<":
		return less(a, b)
	case ">":
		le, err := lessEqual(a, b)
		return !le && err == nil, err
	case "==":
		return equal(a, b)
	case "!=":
		eq, err := equal(a, b)
		return !eq, err
	case "<=":
		return lessEqual(a, b)
	case ">=":
		lt, err := less(a, b)
		return !lt && err == nil, err
	}
	return false, fmt.Errorf("unrecognized filter operator %s", op)
}

type kind int

const (
	badKind kind = iota
	boolKind
	intKind
	uintKind
	floatKind
	stringKind
)

// scalar is a value sorted into its basic kind.
type scalar struct {
	kind kind
	b    bool
	i    int64
	u    uint64
	f    float64
	s    string
}

func basic(v any) (scalar, error) {
	switch v := v.(type) {
	case bool:
		return scalar{kind: boolKind, b: v}, nil
	case int:
		return scalar{kind: intKind, i: int64(v)}, nil
	case int64:
		return scalar{kind: intKind, i: v}, nil
	case int32:
		return scalar{kind: intKind, i: int64(v)}, nil
	case uint8:
		return scalar{kind: uintKind, u: uint64(v)}, nil
	case uint64:
		return scalar{kind: uintKind, u: v}, nil
	case float64:
		return scalar{kind: floatKind, f: v}, nil
	case float32:
		return scalar{kind: floatKind, f: float64(v)}, nil
	case string:
		return scalar{kind: stringKind, s: v}, nil
	case json.Number:
		return scalar{kind: stringKind, s: string(v)}, nil
	}
	return scalar{}, errBadComparisonType
}

func equal(a, b any) (bool, error) {
	x, err := basic(a)
	if err != nil {
		return false, err
	}
	y, err := basic(b)
	if err != nil {
		return false, err
	}
	if x.kind != y.kind {
		switch {
		case x.kind == intKind && y.kind == uintKind:
			return x.i >= 0 && uint64(x.i) == y.u, nil
		case x.kind == uintKind && y.kind == intKind:
			return y.i >= 0 && x.u == uint64(y.i), nil
		}
		return false, errBadComparison
	}
	return x == y, nil
}

func less(a, b any) (bool, error) {
	x, err := basic(a)
	if err != nil {
		return false, err
	}
	y, err := basic(b)
	if err != nil {
		return false, err
	}
	if x.kind != y.kind {
		switch {
		case x.kind == intKind && y.kind == uintKind:
			return x.i < 0 || uint64(x.i) < y.u, nil
		case x.kind == uintKind && y.kind == intKind:
			return y.i >= 0 && x.u < uint64(y.i), nil
		}
		return false, errBadComparison
	}
	switch x.kind {
	case intKind:
		return x.i < y.i, nil
	case uintKind:
		return x.u < y.u, nil
	case floatKind:
		return x.f < y.f, nil
	case stringKind:
		return x.s < y.s, nil
	}
	return false, errBadComparisonType
}

func lessEqual(a, b any) (bool, error) {
	lt, err := less(a, b)
	if lt || err != nil {
		return lt, err
	}
	return equal(a, b)
}
