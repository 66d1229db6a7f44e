package server

import (
	"maps"
	"slices"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apisem/apisem/openapi"
)

// The structured-merge-diff types of server-side apply, from the OpenAPI
// schemas the server publishes: Kubernetes converts its OpenAPI models the
// same way (k8s.io/kube-openapi/pkg/schemaconv), so lists and maps merge
// as on a cluster with the same schemas.

// Names of the two types every smd schema Kubernetes builds has: any value
// as one atomic unit, and any value whose maps merge key by key.
var (
	untypedAtomic  = "__untyped_atomic_"
	untypedDeduced = "__untyped_deduced_"
)

// rawExtensionSchema is the one definition Kubernetes maps to an untyped
// atomic value whatever its schema says.
const rawExtensionSchema = "io.k8s.apimachinery.pkg.runtime.RawExtension"

func scalarPtr(s smdschema.Scalar) *smdschema.Scalar { return &s }

// untypedAtom is any value: an atomic scalar, list or map whose elements
// are of type elem.
func untypedAtom(mapElem string, mapRel smdschema.ElementRelationship) smdschema.Atom {
	return smdschema.Atom{
		Scalar: scalarPtr(smdschema.Scalar("untyped")),
		List:   &smdschema.List{ElementType: smdschema.TypeRef{NamedType: &untypedAtomic}, ElementRelationship: smdschema.Atomic},
		Map:    &smdschema.Map{ElementType: smdschema.TypeRef{NamedType: &mapElem}, ElementRelationship: mapRel},
	}
}

// smdSchema converts the named definitions to an smd schema.
func smdSchema(defs map[string]*openapi.Schema) *smdschema.Schema {
	out := &smdschema.Schema{}
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		var a smdschema.Atom
		if name == rawExtensionSchema {
			a = untypedAtom(untypedAtomic, smdschema.Atomic)
		} else {
			a = smdAtom(defs[name], false)
		}
		out.Types = append(out.Types, smdschema.TypeDef{Name: name, Atom: a})
	}
	out.Types = append(out.Types,
		smdschema.TypeDef{Name: untypedAtomic, Atom: untypedAtom(untypedAtomic, smdschema.Atomic)},
		smdschema.TypeDef{Name: untypedDeduced, Atom: untypedAtom(untypedDeduced, smdschema.Separable)})
	return out
}

// smdAtom converts one schema. preserve (x-kubernetes-preserve-unknown-
// fields, inherited by inlined schemas) gives objects without
// additionalProperties members of any name.
func smdAtom(s *openapi.Schema, preserve bool) smdschema.Atom {
	preserve = preserve || s.PreserveUnknownFields
	switch s.Type {
	case "":
		return smdschema.Atom{
			Scalar: scalarPtr(smdschema.Scalar("untyped")),
			List:   smdList(s, preserve),
			Map:    smdMap(s, preserve),
		}
	case "object":
		return smdschema.Atom{Map: smdMap(s, preserve)}
	case "array":
		return smdschema.Atom{List: smdList(s, preserve)}
	case "integer", "number":
		return smdschema.Atom{Scalar: scalarPtr(smdschema.Numeric)}
	case "boolean":
		return smdschema.Atom{Scalar: scalarPtr(smdschema.Boolean)}
	case "string":
		if s.Format == "" || s.Format == "byte" {
			return smdschema.Atom{Scalar: scalarPtr(smdschema.String)}
		}
	}
	// Formatted strings (date-time, int-or-string) and unknown types.
	return smdschema.Atom{Scalar: scalarPtr(smdschema.Scalar("untyped"))}
}

// smdRef is the type of a member: a named definition or an inlined one.
func smdRef(s *openapi.Schema, preserve bool) smdschema.TypeRef {
	if s.Ref != "" {
		name := s.Ref
		ref := smdschema.TypeRef{NamedType: &name}
		if rel := mapRelationship(s); rel != "" {
			ref.ElementRelationship = &rel
		}
		return ref
	}
	return smdschema.TypeRef{Inlined: smdAtom(s, preserve)}
}

// mapRelationship is x-kubernetes-map-type: atomic, or granular
// (separable); "" leaves the default, separable.
func mapRelationship(s *openapi.Schema) smdschema.ElementRelationship {
	switch s.MapType {
	case "atomic":
		return smdschema.Atomic
	case "granular":
		return smdschema.Separable
	}
	return ""
}

func smdMap(s *openapi.Schema, preserve bool) *smdschema.Map {
	m := &smdschema.Map{ElementRelationship: mapRelationship(s)}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		m.Fields = append(m.Fields, smdschema.StructField{Name: name, Type: smdRef(p, preserve), Default: p.Default})
	}
	switch {
	case s.AdditionalProperties != nil:
		m.ElementType = smdRef(s.AdditionalProperties, preserve)
	case preserve || len(s.Properties) == 0:
		m.ElementType = smdschema.TypeRef{NamedType: &untypedDeduced}
	}
	return m
}

// smdList converts an array: x-kubernetes-list-type atomic, set or map
// (keyed by x-kubernetes-list-map-keys); without it, a strategic merge
// patch strategy "merge" makes the list a set, or a map keyed by the
// patch merge key; otherwise it is atomic.
func smdList(s *openapi.Schema, preserve bool) *smdschema.List {
	l := &smdschema.List{ElementRelationship: smdschema.Atomic}
	switch s.ListType {
	case "set":
		l.ElementRelationship = smdschema.Associative
	case "map":
		l.ElementRelationship, l.Keys = smdschema.Associative, s.ListMapKeys
	case "":
		if s.PatchStrategy == "merge" || s.PatchStrategy == "merge,retainKeys" {
			l.ElementRelationship = smdschema.Associative
			if s.PatchMergeKey != "" {
				l.Keys = []string{s.PatchMergeKey}
			}
		}
	}
	if s.Items != nil {
		l.ElementType = smdRef(s.Items, preserve)
	} else {
		l.ElementType = smdschema.TypeRef{NamedType: &untypedAtomic}
	}
	return l
}

// applyType is the smd type of r's objects: its schema's (its own or
// the one derived from its Go type), with its definitions and the
// server's, or the deduced type for a resource without one (whose type
// encodes itself, as Unstructured). Definitions mean one schema across
// resources, so a resource's type needs no other resource's.
func applyType(r *Resource) (typed.ParseableType, error) {
	if s, _, err := derivedSchema(r); s == nil || err != nil {
		return typed.DeducedParseableType, err
	}
	d, err := buildDefinitions([]*Resource{r})
	if err != nil {
		return typed.ParseableType{}, err
	}
	name := r.schemaName()
	return typed.ParseableType{Schema: smdSchema(d.schemas), TypeRef: smdschema.TypeRef{NamedType: &name}}, nil
}
