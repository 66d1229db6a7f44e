package schema

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/status"
)

// The checks of a definition's schema, as Kubernetes makes them when a
// definition is written (k8s.io/apiextensions-apiserver
// pkg/apis/apiextensions/validation, validateCustomResourceDefinitionValidation,
// and pkg/apiserver/schema, ValidateStructural, and
// pkg/apiserver/schema/defaulting, ValidateDefaults): the schema must be
// structural, its keywords well formed, its defaults valid and pruned.
// The paths are Kubernetes' field paths into the schema, with property
// names as keys: spec.validation.openAPIV3Schema.properties[spec].type.
// Kubernetes reports the structural errors sorted, and the others in the
// order it walks the schema, which visits properties in Go map order; here
// properties are visited sorted.

// Check is the errors of a definition's schema s at path p (such as
// "spec.validation.openAPIV3Schema"), whose resource serves the status
// subresource when statusEnabled is set.
func Check(p string, s *JSONSchemaProps, statusEnabled bool) []status.FieldError {
	if s == nil {
		return nil
	}
	var errs []status.FieldError
	if statusEnabled {
		errs = append(errs, checkStatusRoot(p, s)...)
	}
	if s.Nullable {
		errs = append(errs, forbidden(p+".nullable", "nullable cannot be true at the root"))
	}
	if structural := structuralErrors(p, s); len(structural) > 0 {
		errs = append(errs, structural...)
	} else {
		errs = append(errs, defaultErrors(p, s)...)
	}
	c := openAPICheck{allowDefaults: true}
	c.check(p, s, true)
	return append(errs, c.errs...)
}

func forbidden(path, detail string) status.FieldError { return status.Forbidden(path, detail) }

func required(path, detail string) status.FieldError { return status.Required(path, detail) }

func key(path, k string) string { return path + "[" + k + "]" }

// rootFields are the members of Kubernetes' internal JSONSchemaProps in
// their order, with whether the root schema of a resource with the status
// subresource may set them.
var rootFields = []struct {
	name    string
	allowed bool
	set     func(*JSONSchemaProps) bool
}{
	{"ID", false, func(s *JSONSchemaProps) bool { return s.ID != "" }},
	{"Schema", false, func(s *JSONSchemaProps) bool { return s.Schema != "" }},
	{"Ref", false, func(s *JSONSchemaProps) bool { return s.Ref != nil }},
	{"Description", true, func(s *JSONSchemaProps) bool { return s.Description != "" }},
	{"Type", true, func(s *JSONSchemaProps) bool { return s.Type != "" }},
	{"Nullable", false, func(s *JSONSchemaProps) bool { return s.Nullable }},
	{"Format", true, func(s *JSONSchemaProps) bool { return s.Format != "" }},
	{"Title", true, func(s *JSONSchemaProps) bool { return s.Title != "" }},
	{"Default", false, func(s *JSONSchemaProps) bool { return s.Default != nil }},
	{"Maximum", true, func(s *JSONSchemaProps) bool { return s.Maximum != nil }},
	{"ExclusiveMaximum", true, func(s *JSONSchemaProps) bool { return s.ExclusiveMaximum }},
	{"Minimum", true, func(s *JSONSchemaProps) bool { return s.Minimum != nil }},
	{"ExclusiveMinimum", true, func(s *JSONSchemaProps) bool { return s.ExclusiveMinimum }},
	{"MaxLength", true, func(s *JSONSchemaProps) bool { return s.MaxLength != nil }},
	{"MinLength", true, func(s *JSONSchemaProps) bool { return s.MinLength != nil }},
	{"Pattern", true, func(s *JSONSchemaProps) bool { return s.Pattern != "" }},
	{"MaxItems", true, func(s *JSONSchemaProps) bool { return s.MaxItems != nil }},
	{"MinItems", true, func(s *JSONSchemaProps) bool { return s.MinItems != nil }},
	{"UniqueItems", true, func(s *JSONSchemaProps) bool { return s.UniqueItems }},
	{"MultipleOf", true, func(s *JSONSchemaProps) bool { return s.MultipleOf != nil }},
	{"Enum", false, func(s *JSONSchemaProps) bool { return s.Enum != nil }},
	{"MaxProperties", false, func(s *JSONSchemaProps) bool { return s.MaxProperties != nil }},
	{"MinProperties", false, func(s *JSONSchemaProps) bool { return s.MinProperties != nil }},
	{"Required", true, func(s *JSONSchemaProps) bool { return s.Required != nil }},
	{"Items", true, func(s *JSONSchemaProps) bool { return s.Items != nil }},
	{"AllOf", false, func(s *JSONSchemaProps) bool { return s.AllOf != nil }},
	{"OneOf", false, func(s *JSONSchemaProps) bool { return s.OneOf != nil }},
	{"AnyOf", false, func(s *JSONSchemaProps) bool { return s.AnyOf != nil }},
	{"Not", false, func(s *JSONSchemaProps) bool { return s.Not != nil }},
	{"Properties", true, func(s *JSONSchemaProps) bool { return s.Properties != nil }},
	{"AdditionalProperties", false, func(s *JSONSchemaProps) bool { return s.AdditionalProperties != nil }},
	{"Example", true, func(s *JSONSchemaProps) bool { return s.Example != nil }},
	{"XPreserveUnknownFields", true, func(s *JSONSchemaProps) bool { return s.XPreserveUnknownFields != nil }},
	{"XEmbeddedResource", false, func(s *JSONSchemaProps) bool { return s.XEmbeddedResource }},
	{"XIntOrString", false, func(s *JSONSchemaProps) bool { return s.XIntOrString }},
	{"XListMapKeys", false, func(s *JSONSchemaProps) bool { return s.XListMapKeys != nil }},
	{"XListType", false, func(s *JSONSchemaProps) bool { return s.XListType != nil }},
	{"XMapType", false, func(s *JSONSchemaProps) bool { return s.XMapType != nil }},
	{"XValidations", true, func(s *JSONSchemaProps) bool { return s.XValidations != nil }},
}

// checkStatusRoot checks that the root schema of a resource with the
// status subresource sets only what survives taking properties[status]
// out of it: the first member that it may not set is reported, or a type
// other than object. Kubernetes prints the whole schema as the bad value
// in its internal Go form; here the value is left out.
func checkStatusRoot(p string, s *JSONSchemaProps) []status.FieldError {
	for _, f := range rootFields {
		switch {
		case !f.set(s):
		case f.name == "Type":
			if s.Type != "object" {
				return []status.FieldError{status.InvalidValue(p+".type", s.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)}
			}
		case !f.allowed:
			return []status.FieldError{status.InvalidValue(p, goSchemaOf(s), "only [Description Type Format Title Maximum ExclusiveMaximum "+
				"Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties "+
				"ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled")}
		}
	}
	return nil
}

// goSchema is a schema as Kubernetes' internal Go type
// (k8s.io/apiextensions-apiserver pkg/apis/apiextensions, JSONSchemaProps)
// encodes to JSON, without JSON tags: the bad value it prints for a
// schema.
type goSchema struct {
	ID                     string
	Schema                 string
	Ref                    *string
	Description            string
	Type                   string
	Nullable               bool
	Format                 string
	Title                  string
	Default                any
	Maximum                *float64
	ExclusiveMaximum       bool
	Minimum                *float64
	ExclusiveMinimum       bool
	MaxLength              *int64
	MinLength              *int64
	Pattern                string
	MaxItems               *int64
	MinItems               *int64
	UniqueItems            bool
	MultipleOf             *float64
	Enum                   []any
	MaxProperties          *int64
	MinProperties          *int64
	Required               []string
	Items                  *goItems
	AllOf                  []goSchema
	OneOf                  []goSchema
	AnyOf                  []goSchema
	Not                    *goSchema
	Properties             map[string]goSchema
	AdditionalProperties   *goSchemaOrBool
	PatternProperties      map[string]goSchema
	Dependencies           map[string]any
	AdditionalItems        *goSchemaOrBool
	Definitions            map[string]goSchema
	ExternalDocs           *struct{ Description, URL string }
	Example                any
	XPreserveUnknownFields *bool
	XEmbeddedResource      bool
	XIntOrString           bool
	XListMapKeys           []string
	XListType              *string
	XMapType               *string
	XValidations           []goRule
}

type goItems struct {
	Schema      *goSchema
	JSONSchemas []goSchema
}

type goSchemaOrBool struct {
	Allows bool
	Schema *goSchema
}

type goRule struct {
	Rule, Message, MessageExpression string
	Reason                           *string
	FieldPath                        string
	OptionalOldSelf                  *bool
}

func goSchemaOf(s *JSONSchemaProps) *goSchema {
	if s == nil {
		return nil
	}
	list := func(ss []JSONSchemaProps) []goSchema {
		if ss == nil {
			return nil
		}
		out := make([]goSchema, len(ss))
		for i := range ss {
			out[i] = *goSchemaOf(&ss[i])
		}
		return out
	}
	g := &goSchema{
		ID: s.ID, Schema: s.Schema, Ref: s.Ref, Description: s.Description, Type: s.Type, Nullable: s.Nullable,
		Format: s.Format, Title: s.Title, Default: s.Default, Maximum: s.Maximum, ExclusiveMaximum: s.ExclusiveMaximum,
		Minimum: s.Minimum, ExclusiveMinimum: s.ExclusiveMinimum, MaxLength: s.MaxLength, MinLength: s.MinLength,
		Pattern: s.Pattern, MaxItems: s.MaxItems, MinItems: s.MinItems, UniqueItems: s.UniqueItems, MultipleOf: s.MultipleOf,
		Enum: s.Enum, MaxProperties: s.MaxProperties, MinProperties: s.MinProperties, Required: s.Required,
		AllOf: list(s.AllOf), OneOf: list(s.OneOf), AnyOf: list(s.AnyOf), Not: goSchemaOf(s.Not), Example: s.Example,
		XPreserveUnknownFields: s.XPreserveUnknownFields, XEmbeddedResource: s.XEmbeddedResource, XIntOrString: s.XIntOrString,
		XListMapKeys: s.XListMapKeys, XListType: s.XListType, XMapType: s.XMapType,
	}
	if s.Items != nil {
		g.Items = &goItems{Schema: goSchemaOf(s.Items)}
	}
	if s.Properties != nil {
		g.Properties = make(map[string]goSchema, len(s.Properties))
		p := new(JSONSchemaProps) // one copy for all: goSchemaOf keeps nothing of it
		for k := range s.Properties {
			*p = s.Properties[k]
			g.Properties[k] = *goSchemaOf(p)
		}
	}
	if ap := s.AdditionalProperties; ap != nil {
		g.AdditionalProperties = &goSchemaOrBool{Allows: ap.Allows, Schema: goSchemaOf(ap.Schema)}
	}
	for _, r := range s.XValidations {
		g.XValidations = append(g.XValidations, goRule{Rule: r.Rule, Message: r.Message, MessageExpression: r.MessageExpression,
			Reason: r.Reason, FieldPath: r.FieldPath, OptionalOldSelf: r.OptionalOldSelf})
	}
	return g
}

// The levels of a schema in a structural schema.
type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// structuralErrors is what makes s not a structural schema, sorted.
func structuralErrors(p string, s *JSONSchemaProps) []status.FieldError {
	var errs []status.FieldError
	structural(&errs, p, s, rootLevel)
	completeness(&errs, p, p, s, s, false)
	slices.SortStableFunc(errs, func(a, b status.FieldError) int { return strings.Compare(a.Error(), b.Error()) })
	return errs
}

// structural checks s, a schema of the structure (not under allOf,
// anyOf, oneOf or not), at lvl.
func structural(errs *[]status.FieldError, p string, s *JSONSchemaProps, lvl level) {
	if s == nil {
		return
	}
	if s.Type == "array" && s.Items == nil {
		*errs = append(*errs, required(p+".items", "must be specified"))
	}
	structural(errs, p+".items", s.Items, itemLevel)
	ps := new(JSONSchemaProps) // one copy for all: the walk keeps nothing of it
	for _, k := range sortedKeys(s.Properties) {
		*ps = s.Properties[k]
		structural(errs, key(p+".properties", k), ps, fieldLevel)
	}
	if s.AdditionalProperties != nil {
		if lvl == rootLevel {
			*errs = append(*errs, forbidden(p+".additionalProperties", "must not be used at the root"))
		}
		structural(errs, p+".additionalProperties", s.AdditionalProperties.Schema, fieldLevel)
	}
	preserve := preserves(s)
	if s.XIntOrString && preserve {
		*errs = append(*errs, status.InvalidValue(p+".x-kubernetes-preserve-unknown-fields", true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if s.XIntOrString && s.XEmbeddedResource {
		*errs = append(*errs, status.InvalidValue(p+".x-kubernetes-embedded-resource", true, "must be false if x-kubernetes-int-or-string is true"))
	}
	valueValidation(errs, p, s, isIntOrStringAnyOf(s.AnyOf), len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf))
	switch {
	case s.XEmbeddedResource && s.Type != "object":
		if s.Type == "" {
			*errs = append(*errs, required(p+".type", "must be object if x-kubernetes-embedded-resource is true"))
		} else {
			*errs = append(*errs, status.InvalidValue(p+".type", s.Type, "must be object if x-kubernetes-embedded-resource is true"))
		}
	case s.Type == "" && !s.XIntOrString && !preserve:
		switch lvl {
		case rootLevel:
			*errs = append(*errs, required(p+".type", "must not be empty at the root"))
		case itemLevel:
			*errs = append(*errs, required(p+".type", "must not be empty for specified array items"))
		default:
			*errs = append(*errs, required(p+".type", "must not be empty for specified object fields"))
		}
	}
	if s.XEmbeddedResource && s.AdditionalProperties != nil {
		*errs = append(*errs, forbidden(p+".additionalProperties", "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && s.Type != "" && s.Type != "object" {
		*errs = append(*errs, status.InvalidValue(p+".type", s.Type, "must be object at the root"))
	}
	resource := lvl == rootLevel || s.XEmbeddedResource
	for _, k := range []string{"kind", "apiVersion"} {
		if ps, ok := s.Properties[k]; ok && resource && ps.Type != "string" {
			*errs = append(*errs, status.InvalidValue(key(p+".properties", k)+".type", ps.Type, "must be string"))
		}
	}
	if m, ok := s.Properties["metadata"]; ok {
		mp := key(p+".properties", "metadata")
		if resource && m.Type != "object" {
			*errs = append(*errs, status.InvalidValue(mp+".type", m.Type, "must be object"))
		}
		if lvl == rootLevel && !onlyNames(&m) {
			*errs = append(*errs, forbidden(mp, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
		}
	}
	if s.XEmbeddedResource && !preserve && len(s.Properties) == 0 {
		*errs = append(*errs, required(p+".properties", "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
}

// onlyNames reports whether the schema of a resource's metadata says
// nothing but its type, a default, and the schemas of name and
// generateName, all a structural schema may say about it.
func onlyNames(m *JSONSchemaProps) bool {
	c := *m
	_, name := c.Properties["name"]
	_, generateName := c.Properties["generateName"]
	if name && generateName && len(c.Properties) == 2 || (name || generateName) && len(c.Properties) == 1 {
		c.Properties = nil
	}
	c.Type, c.Default = "", nil
	// What a structural schema does not hold: value validations other
	// than the checks of values, and what Kubernetes drops.
	c.Example, c.ID, c.Schema = nil, "", ""
	return reflect.DeepEqual(c, JSONSchemaProps{})
}

// isIntOrStringAnyOf reports whether anyOf is exactly [{type: integer},
// {type: string}], the form x-kubernetes-int-or-string may take.
func isIntOrStringAnyOf(anyOf []JSONSchemaProps) bool {
	return len(anyOf) == 2 && reflect.DeepEqual(anyOf[0], JSONSchemaProps{Type: "integer"}) &&
		reflect.DeepEqual(anyOf[1], JSONSchemaProps{Type: "string"})
}

// valueValidation checks the logical junctors of s and its pattern.
func valueValidation(errs *[]status.FieldError, p string, s *JSONSchemaProps, skipAnyOf, skipFirstAllOfAnyOf bool) {
	if !skipAnyOf {
		for i := range s.AnyOf {
			nestedSchema(errs, fmt.Sprintf("%s.anyOf[%d]", p, i), &s.AnyOf[i], false)
		}
	}
	for i := range s.AllOf {
		nestedSchema(errs, fmt.Sprintf("%s.allOf[%d]", p, i), &s.AllOf[i], skipFirstAllOfAnyOf && i == 0)
	}
	for i := range s.OneOf {
		nestedSchema(errs, fmt.Sprintf("%s.oneOf[%d]", p, i), &s.OneOf[i], false)
	}
	nestedSchema(errs, p+".not", s.Not, false)
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			*errs = append(*errs, status.InvalidValue(p+".pattern", s.Pattern, "must be a valid regular expression, but isn't: "+err.Error()))
		}
	}
}

// nestedSchema checks s, a schema under allOf, anyOf, oneOf or not, which may
// only check values: it may not say what they are.
func nestedSchema(errs *[]status.FieldError, p string, s *JSONSchemaProps, skipAnyOf bool) {
	if s == nil {
		return
	}
	valueValidation(errs, p, s, skipAnyOf, false)
	nestedSchema(errs, p+".items", s.Items, false)
	ps := new(JSONSchemaProps) // one copy for all: the walk keeps nothing of it
	for _, k := range sortedKeys(s.Properties) {
		*ps = s.Properties[k]
		nestedSchema(errs, key(p+".properties", k), ps, false)
	}
	for _, f := range []struct {
		set          bool
		name, detail string
	}{
		{s.Type != "", "type", "must be empty to be structural"},
		{s.AdditionalProperties != nil, "additionalProperties", "must be undefined to be structural"},
		{s.Default != nil, "default", "must be undefined to be structural"},
		{s.Title != "", "title", "must be empty to be structural"},
		{s.Description != "", "description", "must be empty to be structural"},
		{s.Nullable, "nullable", "must be false to be structural"},
		{preserves(s), "x-kubernetes-preserve-unknown-fields", "must be false to be structural"},
		{s.XEmbeddedResource, "x-kubernetes-embedded-resource", "must be false to be structural"},
		{s.XIntOrString, "x-kubernetes-int-or-string", "must be false to be structural"},
		{len(s.XListMapKeys) > 0, "x-kubernetes-list-map-keys", "must be empty to be structural"},
		{s.XListType != nil, "x-kubernetes-list-type", "must be undefined to be structural"},
		{s.XMapType != nil, "x-kubernetes-map-type", "must be undefined to be structural"},
		{len(s.XValidations) > 0, "x-kubernetes-validations", "must be empty to be structural"},
	} {
		if f.set {
			*errs = append(*errs, forbidden(p+"."+f.name, f.detail))
		}
	}
	if _, ok := s.Properties["metadata"]; ok {
		*errs = append(*errs, forbidden(key(p+".properties", "metadata"), "must not be specified in a nested context"))
	}
}

// completeness checks that what the junctors of the root schema name
// (properties, items) is in the structure, where v is a junctor's schema
// at vp and s the structure's at sp. Kubernetes checks the root's
// junctors only.
func completeness(errs *[]status.FieldError, sp, vp string, s, v *JSONSchemaProps, inJunctor bool) {
	if v == nil {
		return
	}
	if s == nil {
		*errs = append(*errs, required(sp, "because it is defined in "+vp))
		return
	}
	junctors := func() {
		completeness(errs, sp, vp+".not", s, v.Not, true)
		for i := range v.AllOf {
			completeness(errs, sp, fmt.Sprintf("%s.allOf[%d]", vp, i), s, &v.AllOf[i], true)
		}
		for i := range v.AnyOf {
			completeness(errs, sp, fmt.Sprintf("%s.anyOf[%d]", vp, i), s, &v.AnyOf[i], true)
		}
		for i := range v.OneOf {
			completeness(errs, sp, fmt.Sprintf("%s.oneOf[%d]", vp, i), s, &v.OneOf[i], true)
		}
	}
	junctors()
	if !inJunctor {
		return
	}
	completeness(errs, sp+".items", vp+".items", s.Items, v.Items, true)
	for _, k := range sortedKeys(v.Properties) {
		vk := v.Properties[k]
		sk, ok := s.Properties[k]
		if !ok {
			*errs = append(*errs, required(key(sp+".properties", k), "because it is defined in "+key(vp+".properties", k)))
			continue
		}
		completeness(errs, key(sp+".properties", k), key(vp+".properties", k), &sk, &vk, true)
	}
}

// openAPICheck walks a schema for the checks of its keywords
// (Kubernetes' ValidateCustomResourceDefinitionOpenAPISchema, but for the
// rules, which the RuleCompiler checks).
type openAPICheck struct {
	errs []status.FieldError
	// allowDefaults is false where defaults may not be, and why says why.
	allowDefaults bool
	why           string
	// meta is whether the schema is of a resource's apiVersion, kind or
	// metadata, or below.
	meta bool
}

// openAPITypes are the types a schema may have, sorted.
var openAPITypes = []string{"array", "boolean", "integer", "number", "object", "string"}

func (c openAPICheck) forbidDefaults(why string) openAPICheck {
	c.allowDefaults, c.why = false, why
	return c
}

func (c *openAPICheck) add(e status.FieldError) { c.errs = append(c.errs, e) }

// check checks s at p, root being whether it is a resource's root, and
// what is below it, appending to the errors of c (which sub-walks share).
func (c *openAPICheck) check(p string, s *JSONSchemaProps, root bool) {
	if s == nil {
		return
	}
	if s.Type != "" && !slices.Contains(openAPITypes, s.Type) {
		c.add(status.NotSupported(p+".type", s.Type, openAPITypes...))
	}
	if s.Default != nil && !c.allowDefaults {
		detail := "must not be set"
		if c.why != "" {
			detail += " " + c.why
		}
		c.add(forbidden(p+".default", detail))
	}
	if s.ID != "" {
		c.add(forbidden(p+".id", "id is not supported"))
	}
	if s.Ref != nil {
		c.add(forbidden(p+".$ref", "$ref is not supported"))
	}
	if s.Type == "null" {
		c.add(forbidden(p+".type", "type cannot be set to null, use nullable as an alternative"))
	}
	if c.meta && s.XEmbeddedResource {
		c.add(forbidden(p+".x-kubernetes-embedded-resource", "must not be used inside of resource meta"))
	}
	if s.UniqueItems {
		c.add(forbidden(p+".uniqueItems", "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if ap := s.AdditionalProperties; ap != nil {
		if len(s.Properties) != 0 && (!ap.Allows || ap.Schema != nil) {
			c.add(forbidden(p+".additionalProperties", "additionalProperties and properties are mutual exclusive"))
		}
		sub := *c
		if c.meta {
			// Pruning could not tell what a default there applies to.
			sub = c.forbidDefaults("inside additionalProperties applying to object metadata")
		}
		c.sub(sub, p+".additionalProperties", ap.Schema)
	}
	ps := new(JSONSchemaProps) // one copy for all: the walk keeps nothing of it
	for _, k := range sortedKeys(s.Properties) {
		sub := *c
		if (root || s.XEmbeddedResource) && (k == "metadata" || k == "kind" || k == "apiVersion") {
			sub.meta = true
			if root {
				sub = sub.forbidDefaults("in top-level " + k)
			}
		}
		*ps = s.Properties[k]
		c.sub(sub, key(p+".properties", k), ps)
	}
	c.sub(*c, p+".not", s.Not)
	for i := range s.AllOf {
		c.sub(*c, fmt.Sprintf("%s.allOf[%d]", p, i), &s.AllOf[i])
	}
	for i := range s.OneOf {
		c.sub(*c, fmt.Sprintf("%s.oneOf[%d]", p, i), &s.OneOf[i])
	}
	for i := range s.AnyOf {
		c.sub(*c, fmt.Sprintf("%s.anyOf[%d]", p, i), &s.AnyOf[i])
	}
	c.sub(*c, p+".items", s.Items)
	if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
		c.add(status.InvalidValue(p+".x-kubernetes-preserve-unknown-fields", false, "must be true or undefined"))
	}
	c.listAndMapTypes(p, s)
}

// sub checks s at p with the settings of with, and keeps its errors.
func (c *openAPICheck) sub(with openAPICheck, p string, s *JSONSchemaProps) {
	with.errs = c.errs
	with.check(p, s, false)
	c.errs = with.errs
}

// listAndMapTypes checks x-kubernetes-map-type, x-kubernetes-list-type
// and x-kubernetes-list-map-keys.
func (c *openAPICheck) listAndMapTypes(p string, s *JSONSchemaProps) {
	if s.XMapType != nil && s.Type != "object" {
		if s.Type == "" {
			c.add(required(p+".type", "must be object if x-kubernetes-map-type is specified"))
		} else {
			c.add(status.InvalidValue(p+".type", s.Type, "must be object if x-kubernetes-map-type is specified"))
		}
	}
	if s.XMapType != nil && *s.XMapType != "atomic" && *s.XMapType != "granular" {
		c.add(status.NotSupported(p+".x-kubernetes-map-type", *s.XMapType, "atomic", "granular"))
	}
	const setItems = "must be atomic as item of a list with x-kubernetes-list-type=set"
	switch {
	case s.XListType != nil && s.Type != "array":
		if s.Type == "" {
			c.add(required(p+".type", "must be array if x-kubernetes-list-type is specified"))
		} else {
			c.add(status.InvalidValue(p+".type", s.Type, "must be array if x-kubernetes-list-type is specified"))
		}
	case s.XListType != nil && *s.XListType == "set" && s.Items != nil:
		// Kubernetes prints the items' list type as the bad value of
		// both errors.
		switch is := s.Items; is.Type {
		case "array":
			if is.XListType != nil && *is.XListType != "atomic" {
				c.add(status.InvalidValue(p+".items.x-kubernetes-list-type", is.XListType, setItems))
			}
		case "object":
			if is.XMapType == nil || *is.XMapType != "atomic" {
				c.add(status.InvalidValue(p+".items.x-kubernetes-map-type", is.XListType, setItems))
			}
		}
	}
	if s.XListType != nil && *s.XListType != "atomic" && *s.XListType != "set" && *s.XListType != "map" {
		c.add(status.NotSupported(p+".x-kubernetes-list-type", *s.XListType, "atomic", "set", "map"))
	}
	if len(s.XListMapKeys) > 0 {
		if s.XListType == nil {
			c.add(required(p+".x-kubernetes-list-type", "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if *s.XListType != "map" {
			c.add(status.InvalidValue(p+".x-kubernetes-list-type", *s.XListType, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}
	if s.XListType != nil && *s.XListType == "map" {
		if len(s.XListMapKeys) == 0 {
			c.add(required(p+".x-kubernetes-list-map-keys", "must not be empty if x-kubernetes-list-type is map"))
		}
		if s.Items == nil {
			c.add(required(p+".items", "must have a schema if x-kubernetes-list-type is map"))
		} else if s.Items.Type != "object" {
			c.add(status.InvalidValue(p+".items.type", s.Items.Type, "must be object if parent array's x-kubernetes-list-type is map"))
		} else {
			seen := map[string]bool{}
			for _, k := range s.XListMapKeys {
				if ks, ok := s.Items.Properties[k]; !ok {
					c.add(status.InvalidValue(p+".x-kubernetes-list-map-keys", s.XListMapKeys, "entries must all be names of item properties"))
				} else if ks.Type == "array" || ks.Type == "object" {
					// Kubernetes prints the items' type as the bad value.
					c.add(status.InvalidValue(key(p+".items.properties", k)+".type", s.Items.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
				}
				if seen[k] {
					c.add(status.InvalidValue(p+".x-kubernetes-list-map-keys", s.XListMapKeys, "must not contain duplicate entries"))
				}
				seen[k] = true
			}
		}
	}
	// The items of sets and map lists, and the keys of map lists.
	if s.Items == nil || s.XListType == nil || *s.XListType != "set" && *s.XListType != "map" {
		return
	}
	if s.Items.Nullable {
		c.add(forbidden(p+".items.nullable", "cannot be nullable when x-kubernetes-list-type is "+*s.XListType))
	}
	if *s.XListType == "map" {
		for _, k := range s.XListMapKeys {
			ks, ok := s.Items.Properties[k]
			if !ok {
				continue
			}
			kp := key(p+".items.properties", k)
			if !slices.Contains(s.Items.Required, k) && ks.Default == nil {
				c.add(required(kp+".default", "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
			}
			if ks.Nullable {
				c.add(forbidden(kp+".nullable", "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
			}
		}
	}
}

// defaultErrors checks the defaults of s, the root schema at p: each
// must be pruned (hold no member the schema does not know) and valid
// against its schema, including the apiVersion and kind of embedded
// resources. Kubernetes checks the root as an embedded resource.
func defaultErrors(p string, s *JSONSchemaProps) []status.FieldError {
	root := *s
	root.XEmbeddedResource = true
	var errs []status.FieldError
	checkDefaults(&errs, p, &root, false)
	return errs
}

// checkDefaults checks the default of s at p and those below it,
// through items and properties (additionalProperties may have none);
// meta is whether s is a resource's apiVersion, kind or metadata.
func checkDefaults(errs *[]status.FieldError, p string, s *JSONSchemaProps, meta bool) {
	if s == nil {
		return
	}
	if s.XEmbeddedResource {
		meta = false
	}
	if s.Default != nil && !meta {
		dp := p + ".default"
		d := jsonvalue.DeepCopy(s.Default)
		var pruned []string
		prune(d, s, s.XEmbeddedResource, &pruned)
		if len(pruned) > 0 {
			*errs = append(*errs, status.InvalidValue(dp, s.Default, "must not have unknown fields"))
		}
		v, err := Compile(s)
		if err == nil {
			var sc scratch
			w := &walk{}
			v.validate(w, path{sc: &sc}, s.Default, s, nil)
			switch {
			case len(w.embedded) > 0:
				*errs = append(*errs, under(dp, w.embedded)...)
			default:
				*errs = append(*errs, under(dp, w.errs)...)
			}
		}
	}
	checkDefaults(errs, p+".items", s.Items, meta)
	ps := new(JSONSchemaProps) // one copy for all: the walk keeps nothing of it
	for _, k := range sortedKeys(s.Properties) {
		*ps = s.Properties[k]
		checkDefaults(errs, key(p+".properties", k), ps, meta || s.XEmbeddedResource && (k == "metadata" || k == "apiVersion" || k == "kind"))
	}
}

// under puts the paths of errs, relative to a value, under the path p of
// the value.
func under(p string, errs []status.FieldError) []status.FieldError {
	for i, e := range errs {
		switch {
		case e.Field == "":
			errs[i].Field = p
		case e.Field != "<nil>":
			// A member of additionalProperties at the value's root
			// is named ".k" in the message, "k" in the path.
			errs[i].Field = p + "." + strings.TrimPrefix(e.Field, ".")
		}
	}
	return errs
}

// maxSelectableFields is how many selectable fields a version may have.
const maxSelectableFields = 8

// CheckSelectableFields checks the selectable fields of a version, or
// of all, at p, against their schema s: each the jsonPath of a member
// (.spec.color) that the schema names, outside metadata, to a string,
// boolean or integer, each once, at most eight.
func CheckSelectableFields(p string, jsonPaths []string, s *JSONSchemaProps) []status.FieldError {
	var errs []status.FieldError
	seen := map[string]bool{}
	for i, jsonPath := range jsonPaths {
		fp := fmt.Sprintf("%s[%d].jsonPath", p, i)
		if jsonPath == "" {
			errs = append(errs, required(fp, ""))
			continue
		}
		path, root, found, err := schemaFieldPath(jsonPath, s)
		if err != nil {
			errs = append(errs, status.InvalidValue(fp, jsonPath, "is an invalid path: "+err.Error()))
			continue
		}
		if root == "metadata" {
			errs = append(errs, status.InvalidValue(fp, jsonPath, "must not point to fields in metadata"))
		}
		if found == nil || found.Type != "string" && found.Type != "boolean" && found.Type != "integer" {
			errs = append(errs, status.InvalidValue(fp, jsonPath, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		if seen[path] {
			errs = append(errs, status.FieldError{Type: status.CauseTypeFieldValueDuplicate, Field: fp, BadValue: jsonPath})
		}
		seen[path] = true
	}
	if len(seen) > maxSelectableFields {
		errs = append(errs, status.TooMany(p, len(seen), maxSelectableFields))
	}
	return errs
}

// schemaFieldPath follows a path of members (".spec.color") through the
// schema s as Kubernetes does for selectable fields (its
// k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel ValidFieldPath,
// without the bracket notation): it returns the path as a field path, its
// first member, and the schema it leads to.
func schemaFieldPath(jsonPath string, s *JSONSchemaProps) (path, root string, found *JSONSchemaProps, err error) {
	toks := pathTokens(jsonPath)
	for i := 0; i < len(toks); i++ {
		switch toks[i] {
		case "[":
			return "", "", nil, fmt.Errorf("array notation is not allowed")
		case ".":
			if i++; i == len(toks) {
				return "", "", nil, fmt.Errorf("unexpected end of JSON path")
			}
			name := toks[i]
			switch {
			case s != nil && s.Properties != nil:
				p, ok := s.Properties[name]
				if !ok {
					return "", "", nil, fmt.Errorf("does not refer to a valid field")
				}
				if path == "" {
					root = name
					path = name
				} else {
					path += "." + name
				}
				s = &p
			case s != nil && s.AdditionalProperties != nil:
				path = key(path, name)
				if root == "" {
					root = "[" + name + "]"
				}
				s = s.AdditionalProperties.Schema
			default:
				return "", "", nil, fmt.Errorf("does not refer to a valid field")
			}
		default:
			return "", "", nil, fmt.Errorf("expected [ or . but got: %s", toks[i])
		}
	}
	return path, root, s, nil
}

// pathTokens splits a JSON path into ".", "[" and "]" and the text
// between them, a single-quoted string whole, as Kubernetes' scanner does.
func pathTokens(s string) []string {
	var toks []string
	for len(s) > 0 {
		n := len(s)
		if s[0] == '\'' {
			for i := 1; i < len(s); i++ {
				if s[i] == '\'' && s[i-1] != '\\' {
					n = i + 1
					break
				}
			}
		} else if i := strings.IndexAny(s, ".[]"); i == 0 {
			n = 1
		} else if i > 0 {
			n = i
		}
		toks = append(toks, s[:n])
		s = s[n:]
	}
	return toks
}
