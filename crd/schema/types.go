package schema

import (
	"encoding/json"
	"slices"

	kjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/jsonvalue"
)

// JSONSchemaProps is a structural OpenAPI v3 schema, as a
// CustomResourceDefinition holds it. Values (Default, Enum, Example) are
// JSON values: map[string]any, []any, string, int64, float64, bool, nil.
type JSONSchemaProps struct {
	ID                     string                     `json:"id,omitempty"`
	Schema                 string                     `json:"$schema,omitempty"`
	Ref                    *string                    `json:"$ref,omitempty"`
	Description            string                     `json:"description,omitempty"`
	Type                   string                     `json:"type,omitempty"`
	Format                 string                     `json:"format,omitempty"`
	Title                  string                     `json:"title,omitempty"`
	Default                any                        `json:"default,omitempty"`
	Maximum                *float64                   `json:"maximum,omitempty"`
	ExclusiveMaximum       bool                       `json:"exclusiveMaximum,omitempty"`
	Minimum                *float64                   `json:"minimum,omitempty"`
	ExclusiveMinimum       bool                       `json:"exclusiveMinimum,omitempty"`
	MaxLength              *int64                     `json:"maxLength,omitempty"`
	MinLength              *int64                     `json:"minLength,omitempty"`
	Pattern                string                     `json:"pattern,omitempty"`
	MaxItems               *int64                     `json:"maxItems,omitempty"`
	MinItems               *int64                     `json:"minItems,omitempty"`
	UniqueItems            bool                       `json:"uniqueItems,omitempty"`
	MultipleOf             *float64                   `json:"multipleOf,omitempty"`
	Enum                   []any                      `json:"enum,omitempty"`
	MaxProperties          *int64                     `json:"maxProperties,omitempty"`
	MinProperties          *int64                     `json:"minProperties,omitempty"`
	Required               []string                   `json:"required,omitempty"`
	Items                  *JSONSchemaProps           `json:"items,omitempty"`
	AllOf                  []JSONSchemaProps          `json:"allOf,omitempty"`
	OneOf                  []JSONSchemaProps          `json:"oneOf,omitempty"`
	AnyOf                  []JSONSchemaProps          `json:"anyOf,omitempty"`
	Not                    *JSONSchemaProps           `json:"not,omitempty"`
	Properties             map[string]JSONSchemaProps `json:"properties,omitempty"`
	AdditionalProperties   *SchemaOrBool              `json:"additionalProperties,omitempty"`
	Example                any                        `json:"example,omitempty"`
	Nullable               bool                       `json:"nullable,omitempty"`
	XPreserveUnknownFields *bool                      `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	XEmbeddedResource      bool                       `json:"x-kubernetes-embedded-resource,omitempty"`
	XIntOrString           bool                       `json:"x-kubernetes-int-or-string,omitempty"`
	XListMapKeys           []string                   `json:"x-kubernetes-list-map-keys,omitempty"`
	XListType              *string                    `json:"x-kubernetes-list-type,omitempty"`
	XMapType               *string                    `json:"x-kubernetes-map-type,omitempty"`
	XValidations           []ValidationRule           `json:"x-kubernetes-validations,omitempty"`
}

// SchemaOrBool is additionalProperties: a schema, or a boolean.
type SchemaOrBool struct {
	Allows bool
	Schema *JSONSchemaProps
}

// MarshalJSON writes the schema, or the boolean when there is none.
func (s SchemaOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// UnmarshalJSON reads a schema (which allows) or a boolean.
func (s *SchemaOrBool) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true", "false":
		*s = SchemaOrBool{Allows: string(b) == "true"}
		return nil
	case "null":
		*s = SchemaOrBool{}
		return nil
	}
	var p JSONSchemaProps
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &p); err != nil {
		return err
	}
	*s = SchemaOrBool{Allows: true, Schema: &p}
	return nil
}

// ValidationRule is an x-kubernetes-validations rule (CEL). Rules are
// kept and published, and checked and evaluated by a RuleCompiler.
type ValidationRule struct {
	Rule              string  `json:"rule"`
	Message           string  `json:"message,omitempty"`
	MessageExpression string  `json:"messageExpression,omitempty"`
	Reason            *string `json:"reason,omitempty"`
	FieldPath         string  `json:"fieldPath,omitempty"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty"`
}

// DeepCopy returns a copy of s sharing nothing with it.
func (s *JSONSchemaProps) DeepCopy() *JSONSchemaProps {
	if s == nil {
		return nil
	}
	out := s.deepCopyValue()
	return &out
}

// deepCopyValue is DeepCopy for the values of maps and slices, which
// need no copy of their own on the heap (a schema's properties are most
// of a definition's copy: BenchmarkInstallRealCRDs in examples/interop).
// Its receiver is a value: with a pointer, the copy of each map value it
// is called on would move to the heap.
func (s JSONSchemaProps) deepCopyValue() JSONSchemaProps {
	out := s
	out.Ref = clonePtr(s.Ref)
	out.Default = jsonvalue.DeepCopy(s.Default)
	out.Example = jsonvalue.DeepCopy(s.Example)
	out.Maximum, out.Minimum, out.MultipleOf = clonePtr(s.Maximum), clonePtr(s.Minimum), clonePtr(s.MultipleOf)
	out.MaxLength, out.MinLength = clonePtr(s.MaxLength), clonePtr(s.MinLength)
	out.MaxItems, out.MinItems = clonePtr(s.MaxItems), clonePtr(s.MinItems)
	out.MaxProperties, out.MinProperties = clonePtr(s.MaxProperties), clonePtr(s.MinProperties)
	if s.Enum != nil {
		out.Enum = make([]any, len(s.Enum))
		for i, e := range s.Enum {
			out.Enum[i] = jsonvalue.DeepCopy(e)
		}
	}
	out.Required = slices.Clone(s.Required)
	out.Items = s.Items.DeepCopy()
	out.AllOf, out.OneOf, out.AnyOf = copySchemas(s.AllOf), copySchemas(s.OneOf), copySchemas(s.AnyOf)
	out.Not = s.Not.DeepCopy()
	if s.Properties != nil {
		out.Properties = make(map[string]JSONSchemaProps, len(s.Properties))
		for k, p := range s.Properties {
			out.Properties[k] = p.deepCopyValue()
		}
	}
	if s.AdditionalProperties != nil {
		out.AdditionalProperties = &SchemaOrBool{Allows: s.AdditionalProperties.Allows, Schema: s.AdditionalProperties.Schema.DeepCopy()}
	}
	out.XPreserveUnknownFields = clonePtr(s.XPreserveUnknownFields)
	out.XListMapKeys = slices.Clone(s.XListMapKeys)
	out.XListType, out.XMapType = clonePtr(s.XListType), clonePtr(s.XMapType)
	if s.XValidations != nil {
		out.XValidations = make([]ValidationRule, len(s.XValidations))
		for i, r := range s.XValidations {
			r.Reason, r.OptionalOldSelf = clonePtr(r.Reason), clonePtr(r.OptionalOldSelf)
			out.XValidations[i] = r
		}
	}
	return out
}

func copySchemas(in []JSONSchemaProps) []JSONSchemaProps {
	if in == nil {
		return nil
	}
	out := make([]JSONSchemaProps, len(in))
	for i := range in {
		out[i] = in[i].deepCopyValue()
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
