package patch

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits bound the work a patch may cause. The zero value means the
// defaults.
type Limits struct {
	// MaxOperations caps the operations of one JSON patch. Zero means
	// DefaultMaxOperations.
	MaxOperations int
	// MaxCopyBytes caps the total (approximate) encoded size of the values
	// a JSON patch's copy operations duplicate. Zero means
	// DefaultMaxCopyBytes.
	MaxCopyBytes int64
	// MaxArrayMoves caps the array elements a JSON patch's inserts and
	// removals shift in total: 10,000 inserts at the front of a list of a
	// million would otherwise move ten billion. Zero means
	// DefaultMaxArrayMoves.
	MaxArrayMoves int64
}

const (
	// DefaultMaxOperations is Kubernetes' cap on JSON patch operations.
	DefaultMaxOperations = 10000
	// DefaultMaxCopyBytes is 3 MiB, Kubernetes' default request body
	// limit: a patch may not grow a document by more than a body could.
	DefaultMaxCopyBytes = 3 << 20
	// DefaultMaxArrayMoves allows about a gigabyte of memory moves.
	DefaultMaxArrayMoves = 1 << 26
)

func (l Limits) maxOperations() int {
	if l.MaxOperations <= 0 {
		return DefaultMaxOperations
	}
	return l.MaxOperations
}

func (l Limits) maxArrayMoves() int64 {
	if l.MaxArrayMoves <= 0 {
		return DefaultMaxArrayMoves
	}
	return l.MaxArrayMoves
}

func (l Limits) maxCopyBytes() int64 {
	if l.MaxCopyBytes <= 0 {
		return DefaultMaxCopyBytes
	}
	return l.MaxCopyBytes
}

// JSONPatch applies the RFC 6902 JSON patch p (an array of operations) to
// doc and returns the patched document. Operations apply in order; if one
// fails, nothing is returned. Array indexes follow the RFC strictly:
// decimal without leading zeros, "-" for the end of an array in add.
func JSONPatch(doc, p []byte, lim Limits) ([]byte, error) {
	ops, err := decode(p, "json patch")
	if err != nil {
		return nil, err
	}
	list, ok := ops.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: json patch: the patch must be a JSON array of operations", ErrMalformed)
	}
	if n := len(list); n > lim.maxOperations() {
		return nil, fmt.Errorf("%w: the allowed maximum operations in a JSON patch is %d, got %d",
			ErrTooLarge, lim.maxOperations(), n)
	}
	parsed := make([]operation, len(list))
	for i, raw := range list {
		if parsed[i], err = parseOperation(raw); err != nil {
			return nil, fmt.Errorf("%w: json patch operation %d: %v", ErrMalformed, i, err)
		}
	}
	d, err := decode(doc, "document")
	if err != nil {
		return nil, err
	}
	w := work{maxCopy: lim.maxCopyBytes(), maxShift: lim.maxArrayMoves()}
	for i := range parsed {
		if d, err = parsed[i].apply(d, &w); err != nil {
			return nil, fmt.Errorf("%w (operation %d)", err, i)
		}
	}
	return encode(d)
}

// work is what one patch has spent so far.
type work struct {
	copied, maxCopy  int64 // approximate bytes duplicated by copy
	shifts, maxShift int64 // array elements moved
}

func (w *work) shift(n int) error {
	w.shifts += int64(n)
	if w.shifts > w.maxShift {
		return fmt.Errorf("%w: the operations move more than %d array elements", ErrTooLarge, w.maxShift)
	}
	return nil
}

type operation struct {
	op       string
	path     []string
	from     []string
	value    any
	rawPath  string
	rawFrom  string
	hasValue bool
}

func parseOperation(raw any) (operation, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return operation{}, fmt.Errorf("an operation must be a JSON object")
	}
	var o operation
	opv, ok := m["op"].(string)
	if !ok {
		return o, fmt.Errorf(`missing or non-string "op"`)
	}
	o.op = opv
	switch o.op {
	case "add", "remove", "replace", "move", "copy", "test":
	default:
		return o, fmt.Errorf("unknown op %q", o.op)
	}
	path, ok := m["path"].(string)
	if !ok {
		return o, fmt.Errorf(`%s: missing or non-string "path"`, o.op)
	}
	var err error
	if o.path, err = parsePointer(path); err != nil {
		return o, err
	}
	o.rawPath = path
	switch o.op {
	case "add", "replace", "test":
		o.value, o.hasValue = m["value"]
		if !o.hasValue {
			return o, fmt.Errorf(`%s: missing "value"`, o.op)
		}
	case "move", "copy":
		from, ok := m["from"].(string)
		if !ok {
			return o, fmt.Errorf(`%s: missing or non-string "from"`, o.op)
		}
		if o.from, err = parsePointer(from); err != nil {
			return o, err
		}
		o.rawFrom = from
	}
	return o, nil
}

// parsePointer splits an RFC 6901 JSON pointer into unescaped tokens.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("invalid JSON pointer %q: must be empty or start with /", p)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		if !strings.Contains(t, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(t); j++ {
			if t[j] != '~' {
				b.WriteByte(t[j])
				continue
			}
			if j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1') {
				return nil, fmt.Errorf("invalid JSON pointer %q: ~ must be followed by 0 or 1", p)
			}
			if t[j+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			j++
		}
		toks[i] = b.String()
	}
	return toks, nil
}

func notApplicable(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrNotApplicable}, args...)...)
}

func (o *operation) apply(doc any, w *work) (any, error) {
	switch o.op {
	case "add":
		return add(doc, o.path, o.rawPath, o.value, w)
	case "remove":
		d, _, err := remove(doc, o.path, o.rawPath, w)
		return d, err
	case "replace":
		if _, err := get(doc, o.path, o.rawPath); err != nil {
			return nil, err
		}
		if len(o.path) == 0 {
			return o.value, nil
		}
		d, _, err := remove(doc, o.path, o.rawPath, w)
		if err != nil {
			return nil, err
		}
		return add(d, o.path, o.rawPath, o.value, w)
	case "move":
		if isProperPrefix(o.from, o.path) {
			return nil, notApplicable("move: %q is inside %q", o.rawPath, o.rawFrom)
		}
		if len(o.from) == 0 {
			// from == path == "" (the prefix check rejected anything else).
			return doc, nil
		}
		d, v, err := remove(doc, o.from, o.rawFrom, w)
		if err != nil {
			return nil, err
		}
		return add(d, o.path, o.rawPath, v, w)
	case "copy":
		v, err := get(doc, o.from, o.rawFrom)
		if err != nil {
			return nil, err
		}
		v = deepCopy(v, &w.copied)
		if w.copied > w.maxCopy {
			return nil, fmt.Errorf("%w: copy operations duplicated more than %d bytes", ErrTooLarge, w.maxCopy)
		}
		return add(doc, o.path, o.rawPath, v, w)
	case "test":
		v, err := get(doc, o.path, o.rawPath)
		if err != nil {
			return nil, err
		}
		if !equal(v, o.value) {
			return nil, notApplicable("test: the value at %q is not the expected value", o.rawPath)
		}
		return doc, nil
	}
	return nil, fmt.Errorf("%w: unknown op %q", ErrMalformed, o.op)
}

func isProperPrefix(prefix, path []string) bool {
	if len(prefix) >= len(path) {
		return false
	}
	for i := range prefix {
		if prefix[i] != path[i] {
			return false
		}
	}
	return true
}

// arrayIndex parses an array index token: "0" or a decimal without a
// leading zero, at most max.
func arrayIndex(tok string, max int, raw string) (int, error) {
	if tok == "" || len(tok) > 1 && tok[0] == '0' || tok[0] == '+' || tok[0] == '-' {
		return 0, notApplicable("invalid array index %q in %q", tok, raw)
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 {
		return 0, notApplicable("invalid array index %q in %q", tok, raw)
	}
	if i > max {
		return 0, notApplicable("array index %d out of bounds in %q", i, raw)
	}
	return i, nil
}

func get(doc any, path []string, raw string) (any, error) {
	v := doc
	for _, tok := range path {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[tok]; !ok {
				return nil, notApplicable("the path %q does not exist", raw)
			}
		case []any:
			i, err := arrayIndex(tok, len(c)-1, raw)
			if err != nil {
				return nil, err
			}
			v = c[i]
		default:
			return nil, notApplicable("the path %q does not exist", raw)
		}
	}
	return v, nil
}

// at applies leaf to the container holding the last token of path and
// returns doc with that container replaced by leaf's result (slices may be
// reallocated, so every level is reassigned on the way back).
func at(doc any, path []string, raw string, leaf func(container any, tok string) (any, error)) (any, error) {
	if len(path) == 1 {
		return leaf(doc, path[0])
	}
	switch c := doc.(type) {
	case map[string]any:
		child, ok := c[path[0]]
		if !ok {
			return nil, notApplicable("the path %q does not exist", raw)
		}
		nc, err := at(child, path[1:], raw, leaf)
		if err != nil {
			return nil, err
		}
		c[path[0]] = nc
		return c, nil
	case []any:
		i, err := arrayIndex(path[0], len(c)-1, raw)
		if err != nil {
			return nil, err
		}
		nc, err := at(c[i], path[1:], raw, leaf)
		if err != nil {
			return nil, err
		}
		c[i] = nc
		return c, nil
	}
	return nil, notApplicable("the path %q does not exist", raw)
}

func add(doc any, path []string, raw string, v any, w *work) (any, error) {
	if len(path) == 0 {
		return v, nil
	}
	return at(doc, path, raw, func(container any, tok string) (any, error) {
		switch c := container.(type) {
		case map[string]any:
			c[tok] = v
			return c, nil
		case []any:
			i := len(c)
			if tok != "-" {
				var err error
				if i, err = arrayIndex(tok, len(c), raw); err != nil {
					return nil, err
				}
			}
			if err := w.shift(len(c) - i); err != nil {
				return nil, err
			}
			c = append(c, nil)
			copy(c[i+1:], c[i:])
			c[i] = v
			return c, nil
		}
		return nil, notApplicable("cannot add at %q: the parent is not an object or array", raw)
	})
}

func remove(doc any, path []string, raw string, w *work) (any, any, error) {
	if len(path) == 0 {
		return nil, nil, notApplicable("cannot remove the whole document")
	}
	var removed any
	d, err := at(doc, path, raw, func(container any, tok string) (any, error) {
		switch c := container.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, notApplicable("the path %q does not exist", raw)
			}
			removed = v
			delete(c, tok)
			return c, nil
		case []any:
			i, err := arrayIndex(tok, len(c)-1, raw)
			if err != nil {
				return nil, err
			}
			if err := w.shift(len(c) - i - 1); err != nil {
				return nil, err
			}
			removed = c[i]
			return append(c[:i], c[i+1:]...), nil
		}
		return nil, notApplicable("the path %q does not exist", raw)
	})
	return d, removed, err
}
