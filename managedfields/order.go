package managedfields

import (
	"maps"
	"reflect"
	"slices"

	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Why a sorted view: structured-merge-diff keeps each level of a field
// set as a sorted slice and inserts into it with a binary search and a
// copy (fieldpath.PathElementSet.Insert), so building the set of a map
// whose keys arrive in Go's random map order costs O(n²): 100,000 keys
// of one map cost seconds of CPU. Visited in sorted order every insert is
// an append. The walkers of structured-merge-diff take the order of a
// map from the value.Map they are given, so the objects handed to it are
// sortedValues: views of the JSON values that iterate, and zip with
// another map, in key order, and that hand out sorted views of whatever
// they reach, the other side of a zip included (the merged object, which
// structured-merge-diff builds as a plain value, is reached that way when
// compared with the live object, and through the converter otherwise).
//
// Views cost allocations (BenchmarkSmall), so only objects with a map of
// bigMap keys or more are viewed. A single map of 1,000 keys still costs
// less plain (BenchmarkApplyBigMap), but many maps just under the
// threshold would add up: at 256 keys a map's inserts copy at most 8 KiB
// each.
//
// Views are for reading: Set and Delete, which no walker of an apply or
// update calls on its inputs, write through to the underlying map.

// bigMap is the size from which a map makes its object worth viewing.
const bigMap = 256

// viewFrom is the size from which a map makes its object viewed: bigMap,
// except in tests, which compare views with plain values.
type viewFrom int

// wants reports whether the objects of one merge or comparison should be
// views: whether one of them holds a big map.
func (n viewFrom) wants(objs ...map[string]any) bool {
	for _, o := range objs {
		if n.big(o) {
			return true
		}
	}
	return false
}

// big reports whether v, a JSON value, holds a map of n keys or more.
func (n viewFrom) big(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		if len(v) >= int(n) {
			return true
		}
		for _, e := range v {
			if n.big(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if n.big(e) {
				return true
			}
		}
	}
	return false
}

// keyCache holds the sorted keys of the maps of one operation, so that
// each map is sorted once however many walkers visit it. It is not safe
// for concurrent use: each operation has its own.
type keyCache struct {
	keys map[uintptr]sortedKeys
}

// sortedKeys are the keys of m, sorted. Holding m keeps its address from
// being reused for another map while the entry exists.
type sortedKeys struct {
	m    map[string]any
	keys []string
}

// smallMap is the size under which a map's keys are sorted on each visit
// rather than cached.
const smallMap = 32

func (c *keyCache) sorted(m map[string]any) []string {
	if len(m) < smallMap {
		return slices.Sorted(maps.Keys(m))
	}
	id := reflect.ValueOf(m).Pointer()
	if e, ok := c.keys[id]; ok {
		return e.keys
	}
	ks := slices.Sorted(maps.Keys(m))
	if c.keys == nil {
		c.keys = map[uintptr]sortedKeys{}
	}
	c.keys[id] = sortedKeys{m, ks}
	return ks
}

func (c *keyCache) forget(m map[string]any) {
	if len(c.keys) > 0 {
		delete(c.keys, reflect.ValueOf(m).Pointer())
	}
}

// typed is tv with its value replaced by a sorted view, if it has a big
// map.
func (n viewFrom) typed(tv *typed.TypedValue) *typed.TypedValue {
	v := tv.AsValue()
	if _, ok := v.(*sortedValue); ok || !n.big(v.Unstructured()) {
		return tv
	}
	return typed.AsTypedUnvalidated(new(keyCache).view(v.Unstructured()), tv.Schema(), tv.TypeRef())
}

// view returns the sorted view of the JSON value v.
func (c *keyCache) view(v any) value.Value {
	return &sortedValue{Value: value.NewValueInterface(v), c: c}
}

// sortedValue is the sorted view of a JSON value: the plain
// value.Value, except that maps and lists are views too.
type sortedValue struct {
	value.Value
	c *keyCache
}

func (v *sortedValue) AsMap() value.Map { return v.AsMapUsing(value.HeapAllocator) }

func (v *sortedValue) AsMapUsing(a value.Allocator) value.Map {
	if m, ok := v.Unstructured().(map[string]any); ok {
		return &sortedMap{m: m, c: v.c}
	}
	return v.Value.AsMapUsing(a)
}

func (v *sortedValue) AsList() value.List { return v.AsListUsing(value.HeapAllocator) }

func (v *sortedValue) AsListUsing(a value.Allocator) value.List {
	if l, ok := v.Unstructured().([]any); ok {
		return &sortedList{l: l, c: v.c}
	}
	return v.Value.AsListUsing(a)
}

// sortedMap is the view of a JSON object, visited in key order.
type sortedMap struct {
	m map[string]any
	c *keyCache
}

func (s *sortedMap) Set(key string, val value.Value) {
	s.c.forget(s.m)
	s.m[key] = val.Unstructured()
}

func (s *sortedMap) Get(key string) (value.Value, bool) { return s.GetUsing(value.HeapAllocator, key) }

func (s *sortedMap) GetUsing(_ value.Allocator, key string) (value.Value, bool) {
	v, ok := s.m[key]
	if !ok {
		return nil, false
	}
	return s.c.view(v), true
}

func (s *sortedMap) Has(key string) bool {
	_, ok := s.m[key]
	return ok
}

func (s *sortedMap) Delete(key string) {
	s.c.forget(s.m)
	delete(s.m, key)
}

func (s *sortedMap) Length() int { return len(s.m) }

func (s *sortedMap) Empty() bool { return len(s.m) == 0 }

func (s *sortedMap) Equals(other value.Map) bool { return s.EqualsUsing(value.HeapAllocator, other) }

// EqualsUsing looks each key up in other: O(n), where the generic
// value.MapEqualsUsing would zip, and so sort, both maps.
func (s *sortedMap) EqualsUsing(a value.Allocator, other value.Map) bool {
	if other == nil || other.Length() != len(s.m) {
		return false
	}
	for k, v := range s.m {
		o, ok := other.GetUsing(a, k)
		if !ok {
			return false
		}
		eq := value.EqualsUsing(a, s.c.view(v), o)
		a.Free(o)
		if !eq {
			return false
		}
	}
	return true
}

func (s *sortedMap) Iterate(fn func(string, value.Value) bool) bool {
	return s.IterateUsing(value.HeapAllocator, fn)
}

func (s *sortedMap) IterateUsing(_ value.Allocator, fn func(string, value.Value) bool) bool {
	for _, k := range s.c.sorted(s.m) {
		if !fn(k, s.c.view(s.m[k])) {
			return false
		}
	}
	return true
}

func (s *sortedMap) Zip(other value.Map, order value.MapTraverseOrder, fn func(string, value.Value, value.Value) bool) bool {
	return s.ZipUsing(value.HeapAllocator, other, order, fn)
}

// ZipUsing visits the union of the keys of s and other in key order,
// whatever the order asked for, with sorted views on both sides.
func (s *sortedMap) ZipUsing(a value.Allocator, other value.Map, _ value.MapTraverseOrder, fn func(string, value.Value, value.Value) bool) bool {
	mine := s.c.sorted(s.m)
	var theirs []string
	switch o := other.(type) {
	case nil:
	case *sortedMap:
		theirs = s.c.sorted(o.m)
	default:
		theirs = make([]string, 0, o.Length())
		o.IterateUsing(a, func(k string, _ value.Value) bool {
			theirs = append(theirs, k)
			return true
		})
		slices.Sort(theirs)
	}
	get := func(k string) value.Value {
		v, ok := other.GetUsing(a, k)
		if !ok {
			return nil
		}
		if sv, ok := v.(*sortedValue); ok {
			return sv
		}
		raw := v.Unstructured()
		a.Free(v)
		return s.c.view(raw)
	}
	i, j := 0, 0
	for i < len(mine) || j < len(theirs) {
		var k string
		var l, r value.Value
		switch {
		case j == len(theirs) || i < len(mine) && mine[i] < theirs[j]:
			k, l = mine[i], s.c.view(s.m[mine[i]])
			i++
		case i == len(mine) || theirs[j] < mine[i]:
			k, r = theirs[j], get(theirs[j])
			j++
		default:
			k, l, r = mine[i], s.c.view(s.m[mine[i]]), get(theirs[j])
			i++
			j++
		}
		if !fn(k, l, r) {
			return false
		}
	}
	return true
}

// sortedList is the view of a JSON array: its items, in order, are
// sorted views.
type sortedList struct {
	l []any
	c *keyCache
}

func (s *sortedList) Length() int { return len(s.l) }

func (s *sortedList) At(i int) value.Value { return s.c.view(s.l[i]) }

func (s *sortedList) AtUsing(_ value.Allocator, i int) value.Value { return s.At(i) }

func (s *sortedList) Range() value.ListRange { return &sortedRange{l: s, i: -1} }

func (s *sortedList) RangeUsing(value.Allocator) value.ListRange { return s.Range() }

func (s *sortedList) Equals(other value.List) bool { return value.ListEquals(s, other) }

func (s *sortedList) EqualsUsing(a value.Allocator, other value.List) bool {
	return value.ListEqualsUsing(a, s, other)
}

type sortedRange struct {
	l *sortedList
	i int
}

func (r *sortedRange) Next() bool {
	r.i++
	return r.i < len(r.l.l)
}

func (r *sortedRange) Item() (int, value.Value) { return r.i, r.l.At(r.i) }
