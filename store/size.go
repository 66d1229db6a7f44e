package store

import (
	"reflect"
	"time"
	"unsafe"

	"github.com/apisem/apisem/meta"
)

// What history memory costs beside objects, for Options.MaxHistoryBytes:
// a version (its fields and history slot) and a cached form (its cell).
const (
	versionOverhead = int(unsafe.Sizeof(version[meta.Object]{})) + 8
	formOverhead    = int(unsafe.Sizeof(form[meta.Object]{}))
)

// maxSizeDepth bounds the walk of estimateSize, against cycles.
const maxSizeDepth = 64

var timeType = reflect.TypeFor[time.Time]()

// estimateSize is the default Options.Size: the bytes reachable from v,
// counting what its pointers, interfaces, strings, slices and maps hold,
// plus a word of bookkeeping per map entry. A time.Time's location is
// shared, and not counted; other shared memory is counted once per
// reference. It is an estimate (allocator rounding and map buckets are
// not modelled), within a small factor of the truth for the trees of
// maps, slices and strings API objects are.
func estimateSize(v any) int {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return 0
	}
	return int(rv.Type().Size()) + sizeBehind(rv, 0)
}

// sizeBehind returns the bytes v refers to, beside v itself.
func sizeBehind(v reflect.Value, depth int) int {
	if depth > maxSizeDepth {
		return 0
	}
	switch v.Kind() {
	case reflect.String:
		return v.Len()
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		return int(e.Type().Size()) + sizeBehind(e, depth+1)
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		n := sizeBehind(e, depth+1)
		if k := e.Kind(); k != reflect.Pointer && k != reflect.Map && k != reflect.Chan && k != reflect.Func {
			n += int(e.Type().Size()) // boxed
		}
		return n
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		n := v.Cap() * int(v.Type().Elem().Size())
		if hasPointers(v.Type().Elem()) {
			for i := range v.Len() {
				n += sizeBehind(v.Index(i), depth+1)
			}
		}
		return n
	case reflect.Array:
		n := 0
		if hasPointers(v.Type().Elem()) {
			for i := range v.Len() {
				n += sizeBehind(v.Index(i), depth+1)
			}
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return 0
		}
		t := v.Type()
		n := v.Len() * (int(t.Key().Size()+t.Elem().Size()) + 8)
		if v.CanInterface() {
			// Labels and annotations, without the iterator's copies.
			if m, ok := v.Interface().(map[string]string); ok {
				for k, e := range m {
					n += len(k) + len(e)
				}
				return n
			}
		}
		deep := hasPointers(t.Key()) || hasPointers(t.Elem())
		for it := v.MapRange(); deep && it.Next(); {
			n += sizeBehind(it.Key(), depth+1) + sizeBehind(it.Value(), depth+1)
		}
		return n
	case reflect.Struct:
		if v.Type() == timeType {
			return 0
		}
		n := 0
		for i := range v.NumField() {
			if f := v.Field(i); hasPointers(f.Type()) {
				n += sizeBehind(f, depth+1)
			}
		}
		return n
	}
	return 0
}

// hasPointers reports whether values of t can refer to other memory.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		if t == timeType {
			return false
		}
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
