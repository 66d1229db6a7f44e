package server

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/openapi"
)

// A resource without a Schema gets one derived from its Go type, the type
// of Resource.New's objects, so that kubectl explain documents its fields
// and server-side apply types them as a cluster types a built-in kind: an
// applied field the type does not declare is refused, whatever
// fieldValidation says, instead of being decoded away. The tags the
// derivation reads are documented in package openapi's doc.
//
// Reflection is fine here: derivation runs when the server's resources
// change (New, AddResource, RemoveResource) and when a resource's field
// manager is first used, never per request.

// derivedSchema is r's Schema and Definitions: its own when it has a
// Schema, else derived from its Go type; a type that encodes itself
// (json.Marshaler, as Unstructured) gets none, which publishes an object
// of any fields and deduces its apply type.
func derivedSchema(r *Resource) (*openapi.Schema, map[string]*openapi.Schema, error) {
	if r.Schema != nil || r.New == nil {
		return r.Schema, r.Definitions, nil
	}
	t := reflect.TypeOf(r.New())
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || marshals(t) {
		return nil, r.Definitions, nil
	}
	d := &deriver{
		names: map[reflect.Type]string{t: r.schemaName()},
		taken: map[string]bool{r.schemaName(): true},
		defs:  map[string]*openapi.Schema{},
	}
	s, err := d.structSchema(t, r.Kind)
	if err != nil {
		return nil, nil, fmt.Errorf("server: the schema of %s from Go type %s: %w", r.Kind, t, err)
	}
	for name, def := range r.Definitions {
		if _, ok := d.defs[name]; ok {
			return nil, nil, fmt.Errorf("server: the schema of %s from Go type %s: definition %s is also in Resource.Definitions", r.Kind, t, name)
		}
		d.defs[name] = def
	}
	return s, d.defs, nil
}

// deriver derives the schemas of one resource's types.
type deriver struct {
	names map[reflect.Type]string // named struct types' definitions, set before they are built, so recursion ends
	taken map[string]bool         // values of names
	defs  map[string]*openapi.Schema
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// marshals reports whether t (or *t) encodes itself to JSON.
func marshals(t reflect.Type) bool {
	return t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler)
}

func marshalsText(t reflect.Type) bool {
	return t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

// anyValue is the schema of a value the derivation cannot see into.
func anyValue() *openapi.Schema { return &openapi.Schema{PreserveUnknownFields: true} }

// known are the types with schemas of their own: the meta/v1 types the
// server defines (ObjectMeta's property is metadataProperty's, as a
// resource without metadata gets it).
var known = map[reflect.Type]func() *openapi.Schema{
	reflect.TypeFor[meta.ObjectMeta]():         func() *openapi.Schema { c := *metadataProperty; return &c },
	reflect.TypeFor[meta.ListMeta]():           func() *openapi.Schema { return &openapi.Schema{Ref: openapi.ListMetaSchema} },
	reflect.TypeFor[meta.Time]():               func() *openapi.Schema { return &openapi.Schema{Ref: openapi.TimeSchema} },
	reflect.TypeFor[meta.MicroTime]():          func() *openapi.Schema { return &openapi.Schema{Ref: openapi.MicroTimeSchema} },
	reflect.TypeFor[meta.OwnerReference]():     func() *openapi.Schema { return &openapi.Schema{Ref: metaV1 + "OwnerReference"} },
	reflect.TypeFor[meta.ManagedFieldsEntry](): func() *openapi.Schema { return &openapi.Schema{Ref: metaV1 + "ManagedFieldsEntry"} },
	reflect.TypeFor[meta.FieldsV1]():           func() *openapi.Schema { return &openapi.Schema{Ref: metaV1 + "FieldsV1"} },
	reflect.TypeFor[time.Time]():               func() *openapi.Schema { return &openapi.Schema{Type: "string", Format: "date-time"} },
	reflect.TypeFor[time.Duration]():           func() *openapi.Schema { return &openapi.Schema{Type: "integer", Format: "int64"} },
	reflect.TypeFor[json.RawMessage]():         anyValue,
}

// typeSchema is the schema of a value of type t.
func (d *deriver) typeSchema(t reflect.Type) (*openapi.Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if f := known[t]; f != nil {
		return f(), nil
	}
	if t.Name() == "IntOrString" && t.PkgPath() == "k8s.io/apimachinery/pkg/util/intstr" {
		return &openapi.Schema{IntOrString: true}, nil // as a CustomResourceDefinition's
	}
	if marshals(t) {
		return anyValue(), nil
	}
	if marshalsText(t) {
		return &openapi.Schema{Type: "string"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &openapi.Schema{Type: "boolean"}, nil
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		return &openapi.Schema{Type: "integer", Format: "int32"}, nil
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &openapi.Schema{Type: "integer", Format: "int64"}, nil
	case reflect.Float32:
		return &openapi.Schema{Type: "number", Format: "float"}, nil
	case reflect.Float64:
		return &openapi.Schema{Type: "number", Format: "double"}, nil
	case reflect.String:
		return &openapi.Schema{Type: "string"}, nil
	case reflect.Interface:
		return anyValue(), nil
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !marshals(t.Elem()) && !marshalsText(t.Elem()) {
			return &openapi.Schema{Type: "string", Format: "byte"}, nil // base64, as encoding/json writes []byte
		}
		items, err := d.typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		return &openapi.Schema{Type: "array", Items: items}, nil
	case reflect.Map:
		switch k := t.Key(); {
		case k.Kind() == reflect.String, marshalsText(k),
			k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr:
		default:
			return nil, fmt.Errorf("map key type %s has no JSON form", k)
		}
		elem, err := d.typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		return &openapi.Schema{Type: "object", AdditionalProperties: elem}, nil
	case reflect.Struct:
		if name, ok := d.names[t]; ok {
			return &openapi.Schema{Ref: name}, nil
		}
		if t.Name() == "" || strings.ContainsAny(t.Name(), "[]") {
			// Anonymous and generic types are inlined: they cannot refer
			// to themselves without a named type.
			return d.structSchema(t, "")
		}
		name := definitionName(t)
		if d.taken[name] {
			return nil, fmt.Errorf("two types are named %s", t.Name())
		}
		d.names[t], d.taken[name] = name, true
		s, err := d.structSchema(t, t.Name())
		if err != nil {
			return nil, err
		}
		d.defs[name] = s
		return &openapi.Schema{Ref: name}, nil
	}
	return nil, fmt.Errorf("type %s has no JSON form", t)
}

// goField is one member of a struct's JSON object.
type goField struct {
	name   string
	field  reflect.StructField
	owner  reflect.Type // the struct that declares it
	depth  int          // of embedding
	tagged bool         // named by its json tag
	omit   bool         // omitempty or omitzero
	quoted bool         // the ",string" option
}

// jsonFields lists the members of t's JSON object as encoding/json
// writes them: exported fields by their json names, the fields of
// untagged embedded structs promoted, and of two fields with one name the
// shallower, or else the tagged one, kept (neither when that does not
// decide).
func jsonFields(t reflect.Type) []goField {
	var all []goField
	var walk func(t reflect.Type, depth int, seen []reflect.Type)
	walk = func(t reflect.Type, depth int, seen []reflect.Type) {
		if slices.Contains(seen, t) {
			return
		}
		seen = append(seen, t)
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				walk(ft, depth+1, seen)
				continue
			}
			if !f.IsExported() && !(f.Anonymous && ft.Kind() == reflect.Struct) {
				continue // an embedded struct of an unexported type, named by its tag, is encoded
			}
			g := goField{name: name, field: f, owner: t, depth: depth, tagged: name != ""}
			if name == "" {
				g.name = f.Name
			}
			for _, o := range strings.Split(opts, ",") {
				switch o {
				case "omitempty", "omitzero":
					g.omit = true
				case "string":
					g.quoted = true
				}
			}
			all = append(all, g)
		}
	}
	walk(t, 0, nil)
	var out []goField
	for i, g := range all {
		keep := true
		for j, h := range all {
			if h.name == g.name && i != j && (h.depth < g.depth || h.depth == g.depth && (h.tagged || !g.tagged)) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, g)
		}
	}
	return out
}

// structSchema is the object schema of struct type t. The members
// apiVersion and kind of an embedded TypeMeta, and a metadata of type
// ObjectMeta, are every object's, described as objectSchema describes
// them and never required.
func (d *deriver) structSchema(t reflect.Type, what string) (*openapi.Schema, error) {
	s := &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{}}
	for _, f := range jsonFields(t) {
		if f.owner == reflect.TypeFor[meta.TypeMeta]() {
			s.Properties[f.name] = map[string]*openapi.Schema{"apiVersion": apiVersionProperty, "kind": kindProperty}[f.name]
			continue
		}
		p, err := d.fieldSchema(f)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", what, f.name, err)
		}
		s.Properties[f.name] = p
		if p.Ref != openapi.ObjectMetaSchema && required(f) {
			s.Required = append(s.Required, f.name)
		}
	}
	slices.Sort(s.Required)
	return s, nil
}

// required: a member without omitempty is required, as Kubernetes'
// OpenAPI generator has it, unless its apisem tag says otherwise.
func required(f goField) bool {
	opts := f.field.Tag.Get("apisem")
	for _, o := range strings.Split(opts, ",") {
		switch o {
		case "optional":
			return false
		case "required":
			return true
		}
	}
	return !f.omit
}

// fieldSchema is the schema of one member: its type's, with what its tags
// add.
func (d *deriver) fieldSchema(f goField) (*openapi.Schema, error) {
	s, err := d.typeSchema(f.field.Type)
	if err != nil {
		return nil, err
	}
	if f.quoted && s.Type != "" && s.Type != "object" && s.Type != "array" {
		s = &openapi.Schema{Type: "string"} // ",string": the scalar is written as a JSON string
	}
	if doc := f.field.Tag.Get("doc"); doc != "" {
		s.Description = doc
	}
	s.PatchStrategy = f.field.Tag.Get("patchStrategy")
	s.PatchMergeKey = f.field.Tag.Get("patchMergeKey")
	if (s.PatchStrategy != "" || s.PatchMergeKey != "") && s.Type != "array" && s.Ref == "" && s.Type != "object" {
		return nil, fmt.Errorf("patchStrategy on a %s", s.Type)
	}
	opts := f.field.Tag.Get("apisem")
	if opts == "" {
		return s, nil
	}
	for _, o := range strings.Split(opts, ",") {
		key, val, _ := strings.Cut(o, "=")
		var values []string
		if val != "" {
			values = strings.Split(val, "|")
		}
		switch {
		case key == "optional" || key == "required":
		case key == "enum" && s.Type == "string":
			s.Enum = values
		case key == "listType" && s.Type == "array" && (val == "atomic" || val == "set" || val == "map"):
			s.ListType = val
		case key == "listMapKeys" && s.Type == "array" && len(values) > 0:
			s.ListMapKeys = values
		case key == "mapType" && (s.Type == "object" || s.Ref != "") && (val == "atomic" || val == "granular"):
			s.MapType = val
		default:
			return nil, fmt.Errorf("apisem tag option %q does not apply to a field of type %s", o, f.field.Type)
		}
	}
	if (s.ListType == "map") != (len(s.ListMapKeys) > 0) {
		return nil, fmt.Errorf("apisem tag %q: listType=map goes with listMapKeys", opts)
	}
	return s, nil
}

// definitionName names the definition of a named struct type by its Go
// package, as Kubernetes' OpenAPI generator does (k8s.io/api/core/v1's
// PodSpec is io.k8s.api.core.v1.PodSpec), so that types of one name in
// two packages do not collide: the path's first element with its dots
// reversed, then the others, then the type's name.
func definitionName(t reflect.Type) string {
	host, rest, _ := strings.Cut(t.PkgPath(), "/")
	parts := strings.Split(host, ".")
	slices.Reverse(parts)
	if rest != "" {
		parts = append(parts, strings.Split(rest, "/")...)
	}
	return strings.Join(append(parts, t.Name()), ".")
}
