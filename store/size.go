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
		switch t := v.Type(); {
		case t == timeType:
			return 0
		case t == objectMetaType && v.CanAddr() && v.CanInterface() && depth+metaDepth <= maxSizeDepth:
			return metaSizeBehind(v.Addr().Interface().(*meta.ObjectMeta))
		}
		return structSizeBehind(v, depth)
	}
	return 0
}

// structSizeBehind is sizeBehind of v, a struct: the sum of its fields'.
func structSizeBehind(v reflect.Value, depth int) int {
	n := 0
	for i := range v.NumField() {
		if f := v.Field(i); hasPointers(f.Type()) {
			n += sizeBehind(f, depth+1)
		}
	}
	return n
}

var objectMetaType = reflect.TypeFor[meta.ObjectMeta]()

// metaDepth is how deep structSizeBehind's walk of an ObjectMeta goes
// (to a managedFields entry's fieldsV1 bytes).
const metaDepth = 6

// metaSizeBehind is structSizeBehind of m, written out: every object has
// an ObjectMeta, whose reflective walk was most of a write's estimate
// (TestMetaSizeBehind keeps the two equal).
func metaSizeBehind(m *meta.ObjectMeta) int {
	n := len(m.Name) + len(m.GenerateName) + len(m.Namespace) + len(m.SelfLink) + len(m.UID) + len(m.ResourceVersion)
	if m.DeletionTimestamp != nil {
		n += int(unsafe.Sizeof(meta.Time{}))
	}
	if m.DeletionGracePeriodSeconds != nil {
		n += int(unsafe.Sizeof(int64(0)))
	}
	n += stringMapSize(m.Labels) + stringMapSize(m.Annotations)
	if m.OwnerReferences != nil {
		n += cap(m.OwnerReferences) * int(unsafe.Sizeof(meta.OwnerReference{}))
		for i := range m.OwnerReferences {
			r := &m.OwnerReferences[i]
			n += len(r.APIVersion) + len(r.Kind) + len(r.Name) + len(r.UID)
			if r.Controller != nil {
				n += int(unsafe.Sizeof(true))
			}
			if r.BlockOwnerDeletion != nil {
				n += int(unsafe.Sizeof(true))
			}
		}
	}
	if m.Finalizers != nil {
		n += cap(m.Finalizers) * int(unsafe.Sizeof(""))
		for _, f := range m.Finalizers {
			n += len(f)
		}
	}
	if m.ManagedFields != nil {
		n += cap(m.ManagedFields) * int(unsafe.Sizeof(meta.ManagedFieldsEntry{}))
		for i := range m.ManagedFields {
			e := &m.ManagedFields[i]
			n += len(e.Manager) + len(e.Operation) + len(e.APIVersion) + len(e.FieldsType) + len(e.Subresource)
			if e.Time != nil {
				n += int(unsafe.Sizeof(meta.Time{}))
			}
			if e.FieldsV1 != nil {
				n += int(unsafe.Sizeof(meta.FieldsV1{})) + cap(e.FieldsV1.Raw)
			}
		}
	}
	return n
}

// stringMapSize is sizeBehind of a map[string]string.
func stringMapSize(m map[string]string) int {
	if m == nil {
		return 0
	}
	n := len(m) * (2*int(unsafe.Sizeof("")) + 8)
	for k, v := range m {
		n += len(k) + len(v)
	}
	return n
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
