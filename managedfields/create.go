package managedfields

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apisem/apisem/meta"
)

// The first entry of a new object. An Update that creates an object
// records the fields in which the object differs from the empty one
// (Options.Empty): structured-merge-diff's comparison of the two, whose
// walk zips every map of the object with the empty object's. When the
// empty object is a tree of maps that merge key by key ({"metadata":{}}
// for most types), that difference is every field of the new object but
// those maps: the fields the object's field set holds (typed.ToFieldSet:
// its leaves, list items and map keys), the struct fields above them
// (fieldpath.Set.EnsureNamedFieldsAreMembers), less the empty object's
// maps. created builds the entry so, without the comparison, and Update
// uses it where the two agree (TestCreatedIsUpdate, FuzzCreated): not for
// an object with an empty list that merges item by item, which the
// comparison records and the field set does not, nor for a type with a
// list whose items are named by their index, whose struct fields the
// field set's walk does not reach.

// Objects of one shape (the same members of the same kinds, without
// lists) have the same field set, which created keeps for the shapes it
// meets most: a controller's or a client's creates tend to share one. The
// shape's key is a walk of the object, far cheaper than typing it and
// collecting its field set (BenchmarkSmall/create). An object with a list
// is not kept: a list's field set names its items by their values.

// maxShapes bounds the shapes a FieldManager keeps; past it, they are
// forgotten and kept anew.
const maxShapes = 512

// shapes are the field sets of the shapes created met, by key; an empty
// value is a shape that records nothing.
type shapes struct {
	mu sync.RWMutex
	m  map[string][]byte // lazily initialized
}

func (c *shapes) get(key []byte) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	raw, ok := c.m[string(key)]
	return raw, ok
}

func (c *shapes) put(key, raw []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxShapes || c.m == nil {
		c.m = make(map[string][]byte, maxShapes)
	}
	c.m[string(key)] = raw
}

// appendShape appends the key of the shape of the JSON value v to dst:
// its maps' keys, sorted, and the kind of each value; ok is false for a
// value with a list, or of a kind JSON does not have.
func appendShape(dst []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case map[string]any:
		dst = append(dst, '{')
		// The keys sorted in place of slices.Sorted's allocation: a
		// create's shape is a walk of every map of the object.
		var arr [16]string
		keys := arr[:0]
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			dst = strconv.AppendQuote(dst, k)
			if dst, ok = appendShape(dst, v[k]); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	case nil:
		return append(dst, 'z'), true
	case string:
		return append(dst, 's'), true
	case bool:
		return append(dst, 'b'), true
	case int64, float64, int, int32, float32:
		return append(dst, 'n'), true
	}
	return dst, false
}

// createShape is what created needs of a FieldManager's type, worked out
// once: whether the empty object allows it (ok), and drop: the empty
// object's maps, which the new object's field set holds and its entry
// does not, with the fields every entry is stripped of (stripSet).
type createShape struct {
	ok   bool
	drop *fieldpath.Set
}

// newCreateShape works out the createShape of f's type.
func newCreateShape(f *FieldManager) createShape {
	emptyT, err := f.typedOf(nil, false)
	if err != nil {
		return createShape{}
	}
	s, tr := emptyT.Schema(), emptyT.TypeRef()
	if !granularMaps(s, tr, f.empty()) || hasIndexedList(s) {
		return createShape{}
	}
	set, err := emptyT.ToFieldSet()
	if err != nil {
		return createShape{}
	}
	return createShape{ok: true, drop: set.EnsureNamedFieldsAreMembers(s, tr).Union(stripSet)}
}

// granularMaps reports whether v, a value of type tr, is a tree of maps
// that merge key by key.
func granularMaps(s *schema.Schema, tr schema.TypeRef, v map[string]any) bool {
	a, ok := s.Resolve(tr)
	if !ok || a.Map == nil || a.Map.ElementRelationship == schema.Atomic {
		return false
	}
	for k, e := range v {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		t := a.Map.ElementType
		if f, ok := a.Map.FindField(k); ok {
			t = f.Type
		}
		if !granularMaps(s, t, m) {
			return false
		}
	}
	return true
}

// hasIndexedList reports whether s has a list that merges item by item
// whose items are not named by keys or scalar values: by their index, or
// by a whole object, below which the field set's walk reaches no struct
// field.
func hasIndexedList(s *schema.Schema) bool {
	var walk func(a schema.Atom) bool
	walk = func(a schema.Atom) bool {
		switch {
		case a.List != nil:
			if a.List.ElementRelationship != schema.Atomic && len(a.List.Keys) == 0 {
				if e, ok := s.Resolve(a.List.ElementType); !ok || e.Scalar == nil || e.Map != nil || e.List != nil {
					return true
				}
			}
			return walk(a.List.ElementType.Inlined)
		case a.Map != nil:
			for _, f := range a.Map.Fields {
				if walk(f.Type.Inlined) {
					return true
				}
			}
			return walk(a.Map.ElementType.Inlined)
		}
		return false
	}
	for _, t := range s.Types {
		if walk(t.Atom) {
			return true
		}
	}
	return false
}

// coversEmpty reports whether obj has a map, or nothing, wherever the
// empty object e has one, and no empty list: then its difference from
// the empty object is what created computes.
func coversEmpty(e, obj map[string]any) bool {
	for k, ev := range e {
		ov, ok := obj[k]
		if !ok {
			continue
		}
		om, ok := ov.(map[string]any)
		if !ok || !coversEmpty(ev.(map[string]any), om) {
			return false
		}
	}
	return !hasEmptyList(obj)
}

// hasEmptyList reports whether the JSON value v holds an empty list.
func hasEmptyList(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if hasEmptyList(e) {
				return true
			}
		}
	case []any:
		if len(v) == 0 {
			return true
		}
		for _, e := range v {
			if hasEmptyList(e) {
				return true
			}
		}
	}
	return false
}

// created returns the managedFields of obj, a new object, after an Update
// by op that created it, as update would record them from no entries;
// ok is false where the two could differ, and the caller then updates.
func (f *FieldManager) created(obj map[string]any, op Operation) (entries []meta.ManagedFieldsEntry, ok bool, err error) {
	shape := f.create
	if !shape.ok || !coversEmpty(f.empty(), obj) {
		return nil, false, nil
	}
	key, keep := appendShape(append([]byte(op.Subresource), 0), obj)
	if keep {
		if raw, ok := f.shapes.get(key); ok {
			return f.createdEntries(raw, op), true, nil
		}
	}
	raw, err := f.createdFields(shape, obj, op)
	if err != nil {
		return nil, true, err
	}
	if raw == nil {
		return nil, false, nil
	}
	if keep {
		f.shapes.put(key, raw)
	}
	return f.createdEntries(raw, op), true, nil
}

// createdEntries are the entries of a create by op whose fields are raw,
// none for none.
func (f *FieldManager) createdEntries(raw []byte, op Operation) []meta.ManagedFieldsEntry {
	if len(raw) == 0 {
		return nil
	}
	manager := op.Manager
	if manager == "" {
		manager = unknownManager
	}
	// The entry, its time and its fieldsV1 in one allocation: every
	// create makes one (BenchmarkCreatedShape).
	e := &struct {
		entry  [1]meta.ManagedFieldsEntry
		time   meta.Time
		fields meta.FieldsV1
	}{time: op.timeValue(), fields: meta.FieldsV1{Raw: slices.Clone(raw)}}
	e.entry[0] = meta.ManagedFieldsEntry{
		Manager: manager, Operation: OperationUpdate, APIVersion: string(f.version), Time: &e.time,
		FieldsType: fieldsTypeV1, FieldsV1: &e.fields, Subresource: op.Subresource,
	}
	return e.entry[:]
}

// createdFields is the fieldsV1 of created's entry, empty for none; nil
// (and no error) where the comparison could differ.
func (f *FieldManager) createdFields(shape createShape, obj map[string]any, op Operation) ([]byte, error) {
	objT, err := f.typedOf(obj, f.views.wants(obj), typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to convert new object to smd typed: %v", err)
	}
	set, err := objT.ToFieldSet()
	if err != nil {
		return nil, nil // duplicates the comparison walks past
	}
	// The filters select or drop whole subtrees, so they commute with the
	// difference.
	set = set.EnsureNamedFieldsAreMembers(objT.Schema(), objT.TypeRef()).Difference(shape.drop)
	if filter := f.filterFor(op.Subresource); filter != nil {
		set = filter.Filter(set)
	}
	if set.Empty() {
		return []byte{}, nil
	}
	return set.ToJSON()
}

// Created returns the entries Update(nil, obj, nil, nil, op) returns:
// those of a create that sent none, where raw is the new object's JSON
// and decode decodes it into obj, the form Update takes. The objects a
// client creates tend to share one shape, and the field set of a shape
// met before is found from raw alone: decode is called only for a shape
// that is new, or that is not kept (one with a list). raw's shape is its
// members' names as written and the kinds of their values, so that two
// JSON texts of one shape decode into maps of one shape (appendShape),
// whose field set created keeps.
func (f *FieldManager) Created(raw []byte, decode func([]byte) (map[string]any, error), op Operation) ([]meta.ManagedFieldsEntry, error) {
	var buf [512]byte // the shapes of most objects fit
	key, keep := appendJSONShape(append(append(buf[:0], op.Subresource...), 0), raw)
	if keep {
		if fields, ok := f.jsonShapes.get(key); ok {
			return f.createdEntries(fields, op), nil
		}
	}
	obj, err := decode(raw)
	if err != nil {
		return nil, err
	}
	entries, ok, err := f.created(obj, op)
	switch {
	case ok && err != nil:
		return nil, err
	case ok:
		if keep {
			fields := []byte{} // a shape that records nothing
			if len(entries) > 0 {
				fields = entries[0].FieldsV1.Raw
			}
			f.jsonShapes.put(key, slices.Clone(fields))
		}
		return entries, nil
	}
	// Update's second try of created, with no entries, is this one.
	return f.updateFrom(nil, obj, nil, f.liveOrNew(nil, nil, op.Subresource != ""), op)
}

// maxJSONShapeDepth bounds the nesting appendJSONShape follows; a deeper
// value is not kept.
const maxJSONShapeDepth = 64

// appendJSONShape appends the shape of raw, a JSON object, to dst: a
// walk of raw that keeps each member's name as written and the kind of
// each value, and no whitespace. ok is false for raw with a list, raw
// nested deeper than maxJSONShapeDepth, and anything but one well-formed
// JSON object.
func appendJSONShape(dst, raw []byte) (_ []byte, ok bool) {
	s := jsonShaper{b: raw}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return dst, false
	}
	if dst, ok = s.value(dst, 0); !ok {
		return dst, false
	}
	s.space()
	return dst, s.i == len(s.b)
}

// jsonShaper is appendJSONShape's walk: b[i:] is what is left to read.
// The shape is passed along, not kept, so that it can stay on the stack.
type jsonShaper struct {
	b []byte
	i int
}

func (s *jsonShaper) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads the value at s.i and appends its kind: an object's shape
// (its members' names and the kinds of their values, in braces), s for a
// string, n a number, b a boolean, z null. (One recursive function, not
// two, keeps dst on the caller's stack.)
func (s *jsonShaper) value(dst []byte, depth int) (_ []byte, ok bool) {
	if s.i >= len(s.b) {
		return dst, false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return append(dst, 's'), s.string()
	case c == '-' || '0' <= c && c <= '9':
		return append(dst, 'n'), s.number()
	case c == 't':
		return append(dst, 'b'), s.literal("true")
	case c == 'f':
		return append(dst, 'b'), s.literal("false")
	case c == 'n':
		return append(dst, 'z'), s.literal("null")
	case c != '{':
		return dst, false // a list, or no JSON value
	}
	if depth >= maxJSONShapeDepth {
		return dst, false
	}
	s.i++
	dst = append(dst, '{')
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return append(dst, '}'), true
	}
	for {
		s.space()
		start := s.i
		if !s.string() {
			return dst, false
		}
		dst = append(dst, s.b[start:s.i]...)
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return dst, false
		}
		s.i++
		s.space()
		if dst, ok = s.value(dst, depth+1); !ok {
			return dst, false
		}
		s.space()
		if s.i >= len(s.b) {
			return dst, false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return append(dst, '}'), true
		default:
			return dst, false
		}
	}
}

func (s *jsonShaper) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// string reads the string at s.i (a '"'), escapes checked.
func (s *jsonShaper) string() bool {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if len(s.b)-s.i < 6 {
					return false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						return false
					}
				}
				s.i += 6
			default:
				return false
			}
		default:
			s.i++
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number reads the number at s.i, in JSON's grammar.
func (s *jsonShaper) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *jsonShaper) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}
