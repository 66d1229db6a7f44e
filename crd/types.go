package crd

import (
	"encoding/json"
	"slices"

	kjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

// The group, version and names of the CustomResourceDefinition resource.
const (
	Group    = "apiextensions.k8s.io"
	Version  = "v1"
	Kind     = "CustomResourceDefinition"
	ListKind = "CustomResourceDefinitionList"
	Plural   = "customresourcedefinitions"
	Singular = "customresourcedefinition"
)

// CleanupFinalizer is the finalizer a CustomResourceDefinition carries
// once its deletion has begun, until its objects are gone.
const CleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// Scopes of a custom resource.
const (
	ClusterScoped   = "Cluster"
	NamespaceScoped = "Namespaced"
)

// Condition types of a CustomResourceDefinition.
const (
	Established   = "Established"
	NamesAccepted = "NamesAccepted"
	Terminating   = "Terminating"
)

// CustomResourceDefinition is apiextensions.k8s.io/v1
// CustomResourceDefinition, with Kubernetes' JSON form (fields in its
// order, so that objects read as kube-apiserver writes them).
type CustomResourceDefinition struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            CustomResourceDefinitionSpec   `json:"spec"`
	Status          CustomResourceDefinitionStatus `json:"status"`
}

// CustomResourceDefinitionSpec is what a CustomResourceDefinition defines.
type CustomResourceDefinitionSpec struct {
	Group                 string                            `json:"group"`
	Names                 CustomResourceDefinitionNames     `json:"names"`
	Scope                 string                            `json:"scope"`
	Versions              []CustomResourceDefinitionVersion `json:"versions"`
	Conversion            *CustomResourceConversion         `json:"conversion,omitempty"`
	PreserveUnknownFields bool                              `json:"preserveUnknownFields,omitempty"`
}

// CustomResourceDefinitionNames are the names of a custom resource.
type CustomResourceDefinitionNames struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// CustomResourceDefinitionVersion is one version of a custom resource.
type CustomResourceDefinitionVersion struct {
	Name                     string                           `json:"name"`
	Served                   bool                             `json:"served"`
	Storage                  bool                             `json:"storage"`
	Deprecated               bool                             `json:"deprecated,omitempty"`
	DeprecationWarning       *string                          `json:"deprecationWarning,omitempty"`
	Schema                   *CustomResourceValidation        `json:"schema,omitempty"`
	Subresources             *CustomResourceSubresources      `json:"subresources,omitempty"`
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty"`
	SelectableFields         []SelectableField                `json:"selectableFields,omitempty"`
}

// CustomResourceValidation holds a version's schema.
type CustomResourceValidation struct {
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty"`
}

// CustomResourceSubresources are a version's subresources.
type CustomResourceSubresources struct {
	// Status, when set (to an empty object), serves <name>/status.
	Status *struct{}                       `json:"status,omitempty"`
	Scale  *CustomResourceSubresourceScale `json:"scale,omitempty"`
}

// CustomResourceSubresourceScale names the paths of the scale subresource.
type CustomResourceSubresourceScale struct {
	SpecReplicasPath   string  `json:"specReplicasPath"`
	StatusReplicasPath string  `json:"statusReplicasPath"`
	LabelSelectorPath  *string `json:"labelSelectorPath,omitempty"`
}

// CustomResourceColumnDefinition is an additional printer column.
type CustomResourceColumnDefinition struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    int32  `json:"priority,omitempty"`
	JSONPath    string `json:"jsonPath"`
}

// SelectableField is a field usable in field selectors.
type SelectableField struct {
	JSONPath string `json:"jsonPath"`
}

// CustomResourceConversion says how versions convert; only "None" (the
// apiVersion is rewritten) is supported here.
type CustomResourceConversion struct {
	Strategy string          `json:"strategy"`
	Webhook  json.RawMessage `json:"webhook,omitempty"`
}

// CustomResourceDefinitionStatus is maintained by the controller.
type CustomResourceDefinitionStatus struct {
	Conditions     []CustomResourceDefinitionCondition `json:"conditions,omitempty"`
	AcceptedNames  CustomResourceDefinitionNames       `json:"acceptedNames"`
	StoredVersions []string                            `json:"storedVersions,omitempty"`
}

// CustomResourceDefinitionCondition is one condition of a
// CustomResourceDefinition.
type CustomResourceDefinitionCondition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitzero"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
}

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
// kept and published, and evaluated when Options.Rules is set.
type ValidationRule struct {
	Rule              string  `json:"rule"`
	Message           string  `json:"message,omitempty"`
	MessageExpression string  `json:"messageExpression,omitempty"`
	Reason            *string `json:"reason,omitempty"`
	FieldPath         string  `json:"fieldPath,omitempty"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty"`
}

var _ server.Object = (*CustomResourceDefinition)(nil)

// Meta returns the object's metadata.
func (c *CustomResourceDefinition) Meta() *meta.ObjectMeta { return &c.ObjectMeta }

// Types returns the object's kind and apiVersion.
func (c *CustomResourceDefinition) Types() *meta.TypeMeta { return &c.TypeMeta }

// DeepCopyObject returns a copy sharing nothing with c.
func (c *CustomResourceDefinition) DeepCopyObject() server.Object { return c.DeepCopy() }

// DeepCopy returns a copy sharing nothing with c.
func (c *CustomResourceDefinition) DeepCopy() *CustomResourceDefinition {
	if c == nil {
		return nil
	}
	out := &CustomResourceDefinition{TypeMeta: c.TypeMeta, Spec: c.Spec, Status: c.Status}
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	sp := &out.Spec
	sp.Names = c.Spec.Names.deepCopy()
	if c.Spec.Conversion != nil {
		cv := *c.Spec.Conversion
		cv.Webhook = slices.Clone(cv.Webhook)
		sp.Conversion = &cv
	}
	sp.Versions = slices.Clone(c.Spec.Versions)
	for i := range sp.Versions {
		v := &sp.Versions[i]
		if v.DeprecationWarning != nil {
			w := *v.DeprecationWarning
			v.DeprecationWarning = &w
		}
		if v.Schema != nil {
			v.Schema = &CustomResourceValidation{OpenAPIV3Schema: v.Schema.OpenAPIV3Schema.DeepCopy()}
		}
		if v.Subresources != nil {
			sub := *v.Subresources
			if sub.Status != nil {
				sub.Status = &struct{}{}
			}
			if sub.Scale != nil {
				sc := *sub.Scale
				if sc.LabelSelectorPath != nil {
					p := *sc.LabelSelectorPath
					sc.LabelSelectorPath = &p
				}
				sub.Scale = &sc
			}
			v.Subresources = &sub
		}
		v.AdditionalPrinterColumns = slices.Clone(v.AdditionalPrinterColumns)
		v.SelectableFields = slices.Clone(v.SelectableFields)
	}
	out.Status.Conditions = slices.Clone(c.Status.Conditions)
	out.Status.AcceptedNames = c.Status.AcceptedNames.deepCopy()
	out.Status.StoredVersions = slices.Clone(c.Status.StoredVersions)
	return out
}

// statusCopy returns a copy of c whose metadata and status share nothing
// with c, and whose spec is c's: for writers of status and metadata
// alone, so that the versions they write and the one they replace,
// kept in the store's history, hold one spec between them.
func (c *CustomResourceDefinition) statusCopy() *CustomResourceDefinition {
	out := &CustomResourceDefinition{TypeMeta: c.TypeMeta, Spec: c.Spec, Status: c.Status}
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Conditions = slices.Clone(c.Status.Conditions)
	out.Status.AcceptedNames = c.Status.AcceptedNames.deepCopy()
	out.Status.StoredVersions = slices.Clone(c.Status.StoredVersions)
	return out
}

// statusCopyOf is statusCopy for store.UpdateOptions.Copy.
func statusCopyOf(o any) any { return o.(*CustomResourceDefinition).statusCopy() }

func (n CustomResourceDefinitionNames) deepCopy() CustomResourceDefinitionNames {
	n.ShortNames = slices.Clone(n.ShortNames)
	n.Categories = slices.Clone(n.Categories)
	return n
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

// condition returns the condition of type t, or nil.
func (s *CustomResourceDefinitionStatus) condition(t string) *CustomResourceDefinitionCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

// IsEstablished reports whether c's Established condition is True.
func (c *CustomResourceDefinition) IsEstablished() bool {
	cond := c.Status.condition(Established)
	return cond != nil && cond.Status == "True"
}

// setCondition sets cond, keeping the transition time when the status
// does not change (as Kubernetes' SetCRDCondition).
func (s *CustomResourceDefinitionStatus) setCondition(cond CustomResourceDefinitionCondition) {
	old := s.condition(cond.Type)
	if old == nil {
		s.Conditions = append(s.Conditions, cond)
		return
	}
	if old.Status == cond.Status {
		cond.LastTransitionTime = old.LastTransitionTime
	}
	*old = cond
}
