package patch

import (
	"fmt"
	"sort"
	"strings"
)

// Schema tells StrategicMergePatch how to merge one JSON value: which of
// an object's fields are lists that merge instead of being replaced. It is
// what Kubernetes reads from the patchStrategy and patchMergeKey struct
// tags. A nil *Schema, and any field a Schema does not list, means: objects
// merge recursively, lists and scalars are replaced.
type Schema struct {
	// Fields are the schemas of an object's fields, by JSON name.
	Fields map[string]*Schema

	// MergeList makes this value, a list, merge with the current list
	// rather than replace it (patchStrategy "merge").
	MergeList bool

	// MergeKey is the field that identifies an element of a merging list
	// of objects (patchMergeKey, e.g. "uid" for ownerReferences). Empty
	// means a list of primitives, merged as a set.
	MergeKey string

	// Elem is the schema of each element of a list of objects.
	Elem *Schema
}

func (s *Schema) field(name string) *Schema {
	if s == nil {
		return nil
	}
	return s.Fields[name]
}

// Strategic merge patch directives.
const (
	directivePatch        = "$patch"
	directiveRetainKeys   = "$retainKeys"
	prefixDeletePrimitive = "$deleteFromPrimitiveList/"
	prefixSetElementOrder = "$setElementOrder/"

	patchReplace = "replace"
	patchDelete  = "delete"
	patchMerge   = "merge"
)

// StrategicMergePatch applies the strategic merge patch p to doc, whose
// fields' merge strategies s describes. The patch must be a JSON object.
//
// Beyond merge patch semantics it understands, at any level:
//   - "$patch": "replace" in an object: the object replaces the current one;
//     "$patch": "delete": the current object becomes empty. In an element
//     of a merging list of objects, "delete" removes the element with the
//     same merge key and "replace" makes the patch's elements the list.
//   - "$retainKeys": [names]: fields of the current object not named are
//     removed before merging.
//   - "$deleteFromPrimitiveList/<field>": [values]: removes those values
//     from the list <field>.
//   - "$setElementOrder/<field>": [values or {mergeKey: value}]: the order
//     the merged list <field> must have; elements only the server knows keep
//     their place relative to their neighbours.
func StrategicMergePatch(doc, p []byte, s *Schema) ([]byte, error) {
	pv, err := decode(p, "strategic merge patch")
	if err != nil {
		return nil, err
	}
	pm, ok := pv.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: a strategic merge patch must be a JSON object", ErrMalformed)
	}
	d, err := decode(doc, "document")
	if err != nil {
		return nil, err
	}
	dm, ok := d.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the document must be a JSON object", ErrMalformed)
	}
	out, err := mergeMap(dm, pm, s)
	if err != nil {
		return nil, err
	}
	return encode(out)
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// mergeMap merges patch into original (which it may modify and return).
func mergeMap(original, patch map[string]any, s *Schema) (map[string]any, error) {
	if d, ok := patch[directivePatch]; ok {
		switch d {
		case patchReplace:
			return cleanMap(patch, s)
		case patchDelete:
			return map[string]any{}, nil
		}
		return nil, malformed("unknown $patch directive %v in an object", d)
	}
	if original == nil {
		original = map[string]any{}
	}
	if err := retainKeys(original, patch); err != nil {
		return nil, err
	}
	// The server's order of each list the patch orders, before the merge
	// changes it.
	var serverOrder map[string][]any
	for k := range patch {
		if field, ok := strings.CutPrefix(k, prefixSetElementOrder); ok {
			if cur, ok := original[field].([]any); ok {
				if serverOrder == nil {
					serverOrder = make(map[string][]any)
				}
				serverOrder[field] = append([]any(nil), cur...)
			}
		}
	}

	// Order the keys: plain fields first, in sorted order, then the
	// deletions from primitive lists, then the element orders, so the
	// result does not depend on map iteration order and an order applies
	// to the list after all its changes.
	keys := make([]string, 0, len(patch))
	for k := range patch {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := keyRank(keys[i]), keyRank(keys[j])
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})

	for _, k := range keys {
		pv := patch[k]
		switch {
		case k == directiveRetainKeys:
			// Applied above.
		case strings.HasPrefix(k, prefixDeletePrimitive):
			field := k[len(prefixDeletePrimitive):]
			del, ok := pv.([]any)
			if !ok {
				return nil, malformed("%s must be a list", k)
			}
			if cur, ok := original[field].([]any); ok {
				original[field] = withoutValues(cur, del)
			}
		case strings.HasPrefix(k, prefixSetElementOrder):
			field := k[len(prefixSetElementOrder):]
			order, ok := pv.([]any)
			if !ok {
				return nil, malformed("%s must be a list", k)
			}
			if err := checkOrder(patch[field], order, s.field(field), k); err != nil {
				return nil, err
			}
			if cur, ok := original[field].([]any); ok {
				original[field] = applyOrder(cur, order, serverOrder[field], s.field(field))
			}
		case pv == nil:
			delete(original, k)
		default:
			merged, err := mergeField(original[k], pv, s.field(k))
			if err != nil {
				return nil, err
			}
			original[k] = merged
		}
	}
	return original, nil
}

func keyRank(k string) int {
	switch {
	case strings.HasPrefix(k, prefixDeletePrimitive):
		return 1
	case strings.HasPrefix(k, prefixSetElementOrder):
		return 2
	}
	return 0
}

// mergeField merges the patch value pv of a field into its current value
// cur (nil when absent).
func mergeField(cur, pv any, s *Schema) (any, error) {
	switch p := pv.(type) {
	case map[string]any:
		c, _ := cur.(map[string]any)
		if c == nil {
			// Absent or of another type: merge into nothing, which also
			// strips the patch's directives.
			c = map[string]any{}
		}
		return mergeMap(c, p, s)
	case []any:
		c, ok := cur.([]any)
		if !ok || s == nil || !s.MergeList {
			return cleanList(p, s)
		}
		return mergeList(c, p, s)
	}
	return pv, nil
}

// mergeList merges the patch list p into the merging list cur. The
// result is in Kubernetes' order: the elements the patch names in the
// patch's order, and those only the server had interleaved by their
// positions on the server; where the two cannot be compared (an element
// new to the server) the patch's comes first, so patching [a,b] with [c]
// gives [c,a,b] (normalizeElementOrder in
// k8s.io/apimachinery/pkg/util/strategicpatch).
func mergeList(cur, p []any, s *Schema) ([]any, error) {
	server := append([]any(nil), cur...)
	if s.MergeKey == "" {
		// A set of primitives: what is new joins, the first of
		// duplicates stays.
		out := dedupe(append(cur, p...))
		return applyOrder(out, p, server, s), nil
	}
	items := make([]any, 0, len(p))
	var order []any // the patch's elements, without directives
	replace := false
	var drop map[string]bool
	for _, e := range p {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, malformed("an element of a list merged by %q is not an object", s.MergeKey)
		}
		d, ok := m[directivePatch]
		if !ok {
			if _, ok := m[s.MergeKey]; !ok {
				return nil, malformed("an element lacks the merge key %q", s.MergeKey)
			}
			items = append(items, m)
			order = append(order, m)
			continue
		}
		switch d {
		case patchDelete:
			key, ok := m[s.MergeKey]
			if !ok {
				return nil, malformed("an element with $patch: delete lacks the merge key %q", s.MergeKey)
			}
			if drop == nil {
				drop = make(map[string]bool)
			}
			drop[keyOf(key)] = true
		case patchReplace:
			replace = true
		case patchMerge:
			return nil, malformed("$patch: merge is not supported in a list")
		default:
			return nil, malformed("unknown $patch directive %v in a list", d)
		}
	}
	if replace {
		return cleanList(items, s)
	}
	if drop != nil {
		kept := cur[:0]
		for _, e := range cur {
			if !drop[identity(e, s)] {
				kept = append(kept, e)
			}
		}
		cur = kept
	}
	index := positions(cur, s)
	for _, e := range items {
		m := e.(map[string]any)
		id := identity(m, s)
		if i, ok := index[id]; ok {
			cm, _ := cur[i].(map[string]any)
			merged, err := mergeMap(cm, m, s.Elem)
			if err != nil {
				return nil, err
			}
			cur[i] = merged
			continue
		}
		c, err := cleanMap(m, s.Elem)
		if err != nil {
			return nil, err
		}
		index[id] = len(cur)
		cur = append(cur, c)
	}
	return applyOrder(cur, order, server, s), nil
}

// cleanMap returns a patch object as a new value: directives applied to
// nothing (so they disappear) and null members dropped.
func cleanMap(m map[string]any, s *Schema) (map[string]any, error) {
	switch d, ok := m[directivePatch]; {
	case !ok, d == patchReplace:
	case d == patchDelete:
		return map[string]any{}, nil
	default:
		return nil, malformed("unknown $patch directive %v in an object", d)
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if v == nil || isDirective(k) {
			continue
		}
		c, err := mergeField(nil, v, s.field(k))
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

// cleanList returns a patch list as a new value, without directive
// elements and with its objects cleaned.
func cleanList(l []any, s *Schema) ([]any, error) {
	out := make([]any, 0, len(l))
	var elem *Schema
	if s != nil {
		elem = s.Elem
	}
	for _, e := range l {
		switch t := e.(type) {
		case map[string]any:
			if _, ok := t[directivePatch]; ok && s != nil && s.MergeKey != "" {
				continue
			}
			c, err := cleanMap(t, elem)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		case []any:
			c, err := cleanList(t, nil)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		default:
			out = append(out, e)
		}
	}
	return out, nil
}

func isDirective(k string) bool {
	return k == directivePatch || k == directiveRetainKeys ||
		strings.HasPrefix(k, prefixDeletePrimitive) || strings.HasPrefix(k, prefixSetElementOrder)
}

// retainKeys applies a $retainKeys directive: the patch may only set the
// fields it names, and the other fields of original are removed.
func retainKeys(original, patch map[string]any) error {
	rk, ok := patch[directiveRetainKeys]
	if !ok {
		return nil
	}
	list, ok := rk.([]any)
	if !ok {
		return malformed("$retainKeys must be a list of field names")
	}
	keep := make(map[string]bool, len(list))
	for _, v := range list {
		name, ok := v.(string)
		if !ok {
			return malformed("$retainKeys must be a list of field names")
		}
		keep[name] = true
	}
	for k, v := range patch {
		if v == nil || isDirective(k) {
			continue
		}
		if !keep[k] {
			return malformed("the patch sets %q, which its $retainKeys list does not name", k)
		}
	}
	for k := range original {
		if !keep[k] {
			delete(original, k)
		}
	}
	return nil
}

// dedupe removes later duplicates from a list of primitives, in place.
func dedupe(l []any) []any {
	seen := make(map[string]bool, len(l))
	out := l[:0]
	for _, v := range l {
		k := keyOf(v)
		if !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

func withoutValues(l, del []any) []any {
	drop := make(map[string]bool, len(del))
	for _, d := range del {
		drop[keyOf(d)] = true
	}
	out := make([]any, 0, len(l))
	for _, v := range l {
		if !drop[keyOf(v)] {
			out = append(out, v)
		}
	}
	return out
}

// identity returns the key that identifies an element of a list: the
// element itself for primitives, its merge key's value for objects.
func identity(e any, s *Schema) string {
	if s != nil && s.MergeKey != "" {
		if m, ok := e.(map[string]any); ok {
			if v, ok := m[s.MergeKey]; ok {
				return keyOf(v)
			}
			return "" // no merge key: matches nothing keyOf returns
		}
	}
	return keyOf(e)
}

// positions maps each element's identity to its first index in l.
func positions(l []any, s *Schema) map[string]int {
	m := make(map[string]int, len(l))
	for i, e := range l {
		id := identity(e, s)
		if _, dup := m[id]; !dup && id != "" {
			m[id] = i
		}
	}
	return m
}

// checkOrder verifies that the elements a patch lists for a field appear in
// its $setElementOrder list, in the same relative order.
func checkOrder(patchList any, order []any, s *Schema, directive string) error {
	l, ok := patchList.([]any)
	if !ok {
		return nil
	}
	j := 0
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			if _, ok := m[directivePatch]; ok {
				continue
			}
		}
		id := identity(e, s)
		for j < len(order) && identity(order[j], s) != id {
			j++
		}
		if j == len(order) {
			return malformed("the order of the patch list does not match its %s list", directive)
		}
		j++
	}
	return nil
}

// applyOrder reorders the merged list cur: the elements named in order come
// in that order, and the others, which only the server had, keep their
// relative order and are interleaved by their positions in server, the
// list before the merge. Where the two cannot be compared (an element new
// to the server) the ordered element goes first.
func applyOrder(cur, order, server []any, s *Schema) []any {
	want := positions(order, s)
	had := positions(server, s)
	var ordered, rest []any
	for _, e := range cur {
		if _, ok := want[identity(e, s)]; ok {
			ordered = append(ordered, e)
		} else {
			rest = append(rest, e)
		}
	}
	sort.SliceStable(ordered, func(i, j int) bool {
		return want[identity(ordered[i], s)] < want[identity(ordered[j], s)]
	})
	out := make([]any, 0, len(cur))
	i, j := 0, 0
	for i < len(rest) || j < len(ordered) {
		switch {
		case j == len(ordered):
			out = append(out, rest[i])
			i++
		case i == len(rest):
			out = append(out, ordered[j])
			j++
		default:
			pi, oki := had[identity(rest[i], s)]
			pj, okj := had[identity(ordered[j], s)]
			if oki && okj && pi < pj {
				out = append(out, rest[i])
				i++
			} else {
				out = append(out, ordered[j])
				j++
			}
		}
	}
	return out
}
