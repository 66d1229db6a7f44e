package server

import (
	"maps"
	"slices"
	"strconv"

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

// smdSchema converts the named definitions to an smd schema. Each
// object schema within a definition becomes a type of its own, which its
// place refers to by name: structured-merge-diff compares the types of
// the two sides of a merge or comparison at every node
// (schema.Atom.Equals), which for an inlined object walks its whole
// subtree and for a named one compares its fields' names; a large custom
// resource schema, all inlined, made that a tenth of an update's CPU.
// Naming changes no answer: a type is found by its name, and a named
// type's atom is the one inlining would give (its x-kubernetes-map-type,
// list types and inherited x-kubernetes-preserve-unknown-fields included;
// TestNamedSchemaAnswers). Only objects are named: an untyped schema
// (int-or-string, preserved unknown fields without a type) stays inlined,
// as structured-merge-diff tells an untyped inlined reference from a
// named one (isUntypedDeducedRef).
func smdSchema(defs map[string]*openapi.Schema) *smdschema.Schema {
	c := &smdConverter{defs: defs, out: &smdschema.Schema{}}
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		var a smdschema.Atom
		if name == rawExtensionSchema {
			a = untypedAtom(untypedAtomic, smdschema.Atomic)
		} else {
			a = c.atom(defs[name], false)
		}
		c.out.Types = append(c.out.Types, smdschema.TypeDef{Name: name, Atom: a})
	}
	c.out.Types = append(c.out.Types,
		smdschema.TypeDef{Name: untypedAtomic, Atom: untypedAtom(untypedAtomic, smdschema.Atomic)},
		smdschema.TypeDef{Name: untypedDeduced, Atom: untypedAtom(untypedDeduced, smdschema.Separable)})
	return c.out
}

// smdConverter converts definitions, naming their nested objects.
type smdConverter struct {
	defs map[string]*openapi.Schema
	out  *smdschema.Schema
	n    int // nested objects named so far
}

// nestedPrefix begins the names of nested object types: definitions are
// named by reverse domain or Go package, never so.
const nestedPrefix = "__object_"

// name adds a, the type of a nested object, to the schema under a new
// name, and returns the name.
func (c *smdConverter) name(a smdschema.Atom) string {
	var name string
	for {
		c.n++
		name = nestedPrefix + strconv.Itoa(c.n)
		if _, taken := c.defs[name]; !taken {
			break
		}
	}
	c.out.Types = append(c.out.Types, smdschema.TypeDef{Name: name, Atom: a})
	return name
}

// atom converts one schema. preserve (x-kubernetes-preserve-unknown-
// fields, inherited by nested schemas) gives objects without
// additionalProperties members of any name.
func (c *smdConverter) atom(s *openapi.Schema, preserve bool) smdschema.Atom {
	preserve = preserve || s.PreserveUnknownFields
	switch s.Type {
	case "":
		return smdschema.Atom{
			Scalar: scalarPtr(smdschema.Scalar("untyped")),
			List:   c.list(s, preserve),
			Map:    c.mapOf(s, preserve),
		}
	case "object":
		return smdschema.Atom{Map: c.mapOf(s, preserve)}
	case "array":
		return smdschema.Atom{List: c.list(s, preserve)}
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

// ref is the type of a member, an item or a map value: a definition by
// its name, a nested object by the name it is given, anything else
// inlined.
func (c *smdConverter) ref(s *openapi.Schema, preserve bool) smdschema.TypeRef {
	if s.Ref != "" {
		name := s.Ref
		ref := smdschema.TypeRef{NamedType: &name}
		if rel := mapRelationship(s); rel != "" {
			ref.ElementRelationship = &rel
		}
		return ref
	}
	a := c.atom(s, preserve)
	if s.Type == "object" {
		name := c.name(a)
		return smdschema.TypeRef{NamedType: &name}
	}
	return smdschema.TypeRef{Inlined: a}
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

func (c *smdConverter) mapOf(s *openapi.Schema, preserve bool) *smdschema.Map {
	m := &smdschema.Map{ElementRelationship: mapRelationship(s)}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		m.Fields = append(m.Fields, smdschema.StructField{Name: name, Type: c.ref(p, preserve), Default: p.Default})
	}
	switch {
	case s.AdditionalProperties != nil:
		m.ElementType = c.ref(s.AdditionalProperties, preserve)
	case preserve || len(s.Properties) == 0:
		m.ElementType = smdschema.TypeRef{NamedType: &untypedDeduced}
	}
	return m
}

// list converts an array: x-kubernetes-list-type atomic, set or map
// (keyed by x-kubernetes-list-map-keys); without it, a strategic merge
// patch strategy "merge" makes the list a set, or a map keyed by the
// patch merge key; otherwise it is atomic.
func (c *smdConverter) list(s *openapi.Schema, preserve bool) *smdschema.List {
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
		l.ElementType = c.ref(s.Items, preserve)
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
