package server

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/apisem/apisem/meta"
)

// sameJSON reports whether a and b, ignoring kind and apiVersion, have
// the same JSON encoding, as comparing json.Marshal's outputs would, but
// without encoding all of both: a controller's write through the store
// (a CustomResourceDefinition's status, say) changes one member of an
// object whose spec may be hundreds of kilobytes
// (BenchmarkInstallRealCRDs in examples/interop).
//
// Objects of one plain struct type are compared member by member: a
// member whose values are reflect.DeepEqual encodes alike; the others
// are encoded alone and compared. Where a member's encoding alone might
// not be its part of the object's (omitempty members, one of which may
// be left out) and for other types, whole encodings are compared.
func sameJSON(a, b Object) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() || va.Kind() != reflect.Pointer || va.IsNil() || vb.IsNil() {
		return marshalEqual(a, b)
	}
	members, ok := jsonMembersOf(va.Type().Elem())
	if !ok {
		return marshalEqual(a, b)
	}
	va, vb = va.Elem(), vb.Elem()
	// Last member first: status is last in Kubernetes' types and is what
	// controllers write, and one member found to differ settles it
	// without a walk of the others.
	for i := len(members) - 1; i >= 0; i-- {
		m := members[i]
		x, y := va.Field(m.index).Addr().Interface(), vb.Field(m.index).Addr().Interface()
		if reflect.DeepEqual(x, y) {
			continue
		}
		jx, err1 := json.Marshal(x)
		jy, err2 := json.Marshal(y)
		switch {
		case err1 != nil || err2 != nil:
			return false
		case bytes.Equal(jx, jy):
			continue
		case m.omitted:
			return marshalEqual(a, b)
		}
		return false
	}
	return true
}

// marshalEqual compares the whole encodings of a and b without kind and
// apiVersion.
func marshalEqual(a, b Object) bool {
	ja, err1 := json.Marshal(untyped(a))
	jb, err2 := json.Marshal(untyped(b))
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// jsonMember is a field of a struct that encoding/json writes as a
// member of its own.
type jsonMember struct {
	name  string
	index int
	// omitted: the member may be left out (omitempty or omitzero).
	omitted bool
}

var jsonMembersCache sync.Map // reflect.Type → []jsonMember, or nil when not plain

// jsonMembersOf returns the members of struct type t when encoding/json
// writes each exported field as one member named by it, in which case
// the object's encoding is the members' encodings in order. An embedded
// meta.TypeMeta (kind and apiVersion, which sameJSON ignores) is
// skipped. It reports false for types that encode themselves, embed
// other structs, or use the string option or one name twice.
func jsonMembersOf(t reflect.Type) ([]jsonMember, bool) {
	if v, ok := jsonMembersCache.Load(t); ok {
		m := v.([]jsonMember)
		return m, m != nil
	}
	m := plainMembers(t)
	jsonMembersCache.Store(t, m)
	return m, m != nil
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	typeMetaType      = reflect.TypeFor[meta.TypeMeta]()
)

func plainMembers(t reflect.Type) []jsonMember {
	if t.Kind() != reflect.Struct {
		return nil
	}
	for _, x := range []reflect.Type{t, reflect.PointerTo(t)} {
		if x.Implements(jsonMarshalerType) || x.Implements(textMarshalerType) {
			return nil
		}
	}
	members := []jsonMember{}
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case f.Anonymous && f.Type == typeMetaType && !hasTag:
			continue
		case f.Anonymous && (name == "" || !f.IsExported()):
			return nil // its fields may be promoted
		case !f.IsExported(), tag == "-":
			continue
		case strings.Contains(","+opts+",", ",string,"):
			return nil
		}
		if name == "" {
			name = f.Name
		}
		if names[name] {
			return nil
		}
		names[name] = true
		omit := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		members = append(members, jsonMember{name: name, index: i, omitted: omit})
	}
	return members
}
