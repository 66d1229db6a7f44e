package managedfields

import (
	"fmt"

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
	objT, err := f.typedOf(obj, f.views.wants(obj), typed.AllowDuplicates)
	if err != nil {
		return nil, true, fmt.Errorf("failed to convert new object to smd typed: %v", err)
	}
	set, err := objT.ToFieldSet()
	if err != nil {
		return nil, false, nil // duplicates the comparison walks past
	}
	// The filters select or drop whole subtrees, so they commute with the
	// difference.
	set = set.EnsureNamedFieldsAreMembers(objT.Schema(), objT.TypeRef()).Difference(shape.drop)
	if filter := f.filterFor(op.Subresource); filter != nil {
		set = filter.Filter(set)
	}
	if set.Empty() {
		return nil, true, nil
	}
	raw, err := set.ToJSON()
	if err != nil {
		return nil, true, err
	}
	manager := op.Manager
	if manager == "" {
		manager = unknownManager
	}
	return []meta.ManagedFieldsEntry{{
		Manager: manager, Operation: OperationUpdate, APIVersion: string(f.version), Time: op.time(),
		FieldsType: fieldsTypeV1, FieldsV1: &meta.FieldsV1{Raw: raw}, Subresource: op.Subresource,
	}}, true, nil
}
