package server

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/apisem/apisem/openapi"
)

// schemaName is the definition name of r's object type.
func (r *Resource) schemaName() string {
	if r.SchemaName != "" {
		return r.SchemaName
	}
	if r.Group == "" {
		return "io.k8s.api.core." + r.Version + "." + r.Kind
	}
	parts := strings.Split(r.Group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + r.Version + "." + r.Kind
}

// listSchemaName is the definition name of r's list type.
func (r *Resource) listSchemaName() string {
	return strings.TrimSuffix(r.schemaName(), r.Kind) + r.ListKind
}

// gvkExt is one entry of x-kubernetes-group-version-kind.
type gvkExt struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// schemaJSON is a Schema as written in a document; the field order is the
// one json.Marshal gives a map, which is how Kubernetes' documents read.
type schemaJSON struct {
	Ref                   string                 `json:"$ref,omitempty"`
	AdditionalProperties  *schemaJSON            `json:"additionalProperties,omitempty"`
	AllOf                 []*schemaJSON          `json:"allOf,omitempty"`
	Default               any                    `json:"default,omitempty"`
	Description           string                 `json:"description,omitempty"`
	Enum                  []string               `json:"enum,omitempty"`
	Format                string                 `json:"format,omitempty"`
	Items                 *schemaJSON            `json:"items,omitempty"`
	Properties            map[string]*schemaJSON `json:"properties,omitempty"`
	Required              []string               `json:"required,omitempty"`
	Type                  string                 `json:"type,omitempty"`
	UniqueItems           bool                   `json:"uniqueItems,omitempty"`
	GVK                   []gvkExt               `json:"x-kubernetes-group-version-kind,omitempty"`
	IntOrString           bool                   `json:"x-kubernetes-int-or-string,omitempty"`
	ListMapKeys           []string               `json:"x-kubernetes-list-map-keys,omitempty"`
	ListType              string                 `json:"x-kubernetes-list-type,omitempty"`
	MapType               string                 `json:"x-kubernetes-map-type,omitempty"`
	PatchMergeKey         string                 `json:"x-kubernetes-patch-merge-key,omitempty"`
	PatchStrategy         string                 `json:"x-kubernetes-patch-strategy,omitempty"`
	PreserveUnknownFields bool                   `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
}

// refPrefix is where definitions live: "#/definitions/" in Swagger 2.0,
// "#/components/schemas/" in OpenAPI 3.
func refPrefix(v3 bool) string {
	if v3 {
		return "#/components/schemas/"
	}
	return "#/definitions/"
}

// encodeSchema converts s to its document form, without defaults in Swagger
// 2.0, which Kubernetes prunes from its v2 documents. A reference with a
// description, default or extensions (a field's patch strategy or map
// type, which a client's strategic merge reads there) is wrapped in allOf
// in OpenAPI 3, where $ref may have no siblings, and written with
// siblings (but no default) in Swagger 2.0, as Kubernetes does.
func encodeSchema(s *openapi.Schema, v3 bool) *schemaJSON {
	if s == nil {
		return nil
	}
	if s.Ref != "" {
		ref := &schemaJSON{Ref: refPrefix(v3) + s.Ref}
		beside := schemaJSON{Description: s.Description, Default: s.Default,
			ListMapKeys: s.ListMapKeys, ListType: s.ListType, MapType: s.MapType,
			PatchMergeKey: s.PatchMergeKey, PatchStrategy: s.PatchStrategy}
		switch {
		case reflect.ValueOf(beside).IsZero():
			return ref
		case v3:
			beside.AllOf = []*schemaJSON{ref}
		default:
			beside.Ref, beside.Default = ref.Ref, nil
		}
		return &beside
	}
	j := &schemaJSON{
		AdditionalProperties: encodeSchema(s.AdditionalProperties, v3),
		Default:              s.Default, Description: s.Description, Enum: s.Enum, Format: s.Format,
		Items: encodeSchema(s.Items, v3), Required: s.Required, Type: s.Type,
		IntOrString: s.IntOrString, ListMapKeys: s.ListMapKeys, ListType: s.ListType, MapType: s.MapType,
		PatchMergeKey: s.PatchMergeKey, PatchStrategy: s.PatchStrategy, PreserveUnknownFields: s.PreserveUnknownFields,
	}
	if !v3 {
		j.Default = nil
	}
	if len(s.Properties) > 0 {
		j.Properties = make(map[string]*schemaJSON, len(s.Properties))
		for k, p := range s.Properties {
			j.Properties[k] = encodeSchema(p, v3)
		}
	}
	return j
}

// schemaRefs calls f with every definition name s refers to.
func schemaRefs(s *openapi.Schema, f func(string)) {
	if s == nil {
		return
	}
	if s.Ref != "" {
		f(s.Ref)
		return
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		schemaRefs(s.Properties[k], f)
	}
	schemaRefs(s.Items, f)
	schemaRefs(s.AdditionalProperties, f)
}

// definitions are the named schemas of one server: its own and those of
// every resource, with the kinds each definition is the schema of. They
// never change once built: with returns new ones.
type definitions struct {
	schemas map[string]*openapi.Schema
	gvks    map[string][]gvkExt
	// gvs are the group versions of the resources, each of which lists
	// DeleteOptions and WatchEvent as its kinds.
	gvs map[string]bool
}

// buildDefinitions collects the definitions of resources and checks that
// every reference resolves and no name is defined twice differently.
func buildDefinitions(resources []*Resource) (*definitions, error) {
	return (*definitions)(nil).with(resources)
}

// with returns d's definitions (the server's own when d is nil) plus
// those of resources, checked as buildDefinitions checks them. Only the
// definitions new to d are walked for their references: d's were checked
// when they were added, and nothing is ever removed from a definitions,
// so that a server adding resources one by one (custom resources as
// their definitions are established) does not walk every schema again
// on each addition.
func (d *definitions) with(resources []*Resource) (*definitions, error) {
	n := &definitions{}
	if d == nil {
		n.schemas, n.gvks, n.gvs = metaDefinitions(), map[string][]gvkExt{}, map[string]bool{}
		n.gvks[openapi.StatusSchema] = []gvkExt{{Version: "v1", Kind: "Status"}}
	} else {
		n.schemas, n.gvks, n.gvs = maps.Clone(d.schemas), maps.Clone(d.gvks), maps.Clone(d.gvs)
		for k, v := range n.gvks {
			n.gvks[k] = slices.Clip(v) // appends below must not write into d's
		}
	}
	var added []string
	add := func(name string, s *openapi.Schema) error {
		old, ok := n.schemas[name]
		if ok && !reflect.DeepEqual(old, s) {
			return fmt.Errorf("server: OpenAPI definition %s defined twice, differently", name)
		}
		if !ok {
			added = append(added, name)
		}
		n.schemas[name] = s
		return nil
	}
	for _, r := range resources {
		schema, defs, err := derivedSchema(r)
		if err != nil {
			return nil, err
		}
		for _, name := range slices.Sorted(maps.Keys(defs)) {
			if err := add(name, defs[name]); err != nil {
				return nil, err
			}
		}
		if err := add(r.schemaName(), objectSchema(schema)); err != nil {
			return nil, err
		}
		if r.serves(verbList) { // a resource without lists has no list type
			if err := add(r.listSchemaName(), listSchema(r)); err != nil {
				return nil, err
			}
			n.gvks[r.listSchemaName()] = append(n.gvks[r.listSchemaName()], gvkExt{r.Group, r.ListKind, r.Version})
		}
		if r.Scale != nil {
			// The scale subresource's autoscaling/v1 Scale.
			for name, sch := range scaleDefinitions() {
				if err := add(name, sch); err != nil {
					return nil, err
				}
			}
			n.gvks[scaleSchemaName] = []gvkExt{scaleGVK}
			if err := add(scaleSchemaName, objectSchema(scaleSchema)); err != nil {
				return nil, err
			}
		}
		n.gvks[r.schemaName()] = append(n.gvks[r.schemaName()], gvkExt{r.Group, r.Kind, r.Version})
		if !n.gvs[r.GroupVersion()] {
			// DeleteOptions and WatchEvent are kinds of every group version.
			n.gvs[r.GroupVersion()] = true
			for _, name := range []string{openapi.DeleteOptionsSchema, openapi.WatchEventSchema} {
				n.gvks[name] = append(n.gvks[name], gvkExt{r.Group, strings.TrimPrefix(name, "io.k8s.apimachinery.pkg.apis.meta.v1."), r.Version})
			}
		}
	}
	if d == nil {
		added = slices.Collect(maps.Keys(n.schemas))
	}
	slices.Sort(added)
	for _, name := range added {
		var missing string
		schemaRefs(n.schemas[name], func(ref string) {
			if _, ok := n.schemas[ref]; !ok && missing == "" {
				missing = ref
			}
		})
		if missing != "" {
			return nil, fmt.Errorf("server: OpenAPI definition %s refers to %s, which is not defined", name, missing)
		}
	}
	return n, nil
}

// closure returns the names reachable from roots, sorted.
func (d *definitions) closure(roots ...string) []string {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		schemaRefs(d.schemas[n], visit)
	}
	for _, r := range roots {
		visit(r)
	}
	return slices.Sorted(maps.Keys(seen))
}

// encode returns the named definitions in document form, each with the
// kinds it is the schema of (restricted to keep, when not nil: a group
// version's document names only its own kinds).
func (d *definitions) encode(names []string, v3 bool, keep func(gvkExt) bool) map[string]*schemaJSON {
	out := make(map[string]*schemaJSON, len(names))
	for _, n := range names {
		j := encodeSchema(d.schemas[n], v3)
		for _, g := range d.gvks[n] {
			if keep == nil || keep(g) {
				j.GVK = append(j.GVK, g)
			}
		}
		out[n] = j
	}
	return out
}

// objectSchema is schema, r's (derivedSchema's), with the apiVersion,
// kind and metadata every object has added when absent; no schema is an
// object of any fields.
func objectSchema(schema *openapi.Schema) *openapi.Schema {
	s := &openapi.Schema{Type: "object", PreserveUnknownFields: true}
	if schema != nil {
		c := *schema
		s = &c
	}
	props := maps.Clone(s.Properties)
	if props == nil {
		props = map[string]*openapi.Schema{}
	}
	if props["apiVersion"] == nil {
		props["apiVersion"] = apiVersionProperty
	}
	if props["kind"] == nil {
		props["kind"] = kindProperty
	}
	if props["metadata"] == nil {
		props["metadata"] = metadataProperty
	}
	s.Properties = props
	if s.Type == "" {
		s.Type = "object"
	}
	return s
}

// listSchema is the schema of r's list type.
func listSchema(r *Resource) *openapi.Schema {
	return &openapi.Schema{
		Type:        "object",
		Description: r.ListKind + " is a list of " + r.Kind + " objects.",
		Required:    []string{"items"},
		Properties: map[string]*openapi.Schema{
			"apiVersion": apiVersionProperty,
			"kind":       kindProperty,
			"items": {Type: "array", Description: "The " + r.Kind + " objects of the list.",
				Items: &openapi.Schema{Ref: r.schemaName(), Default: map[string]any{}}},
			"metadata": {Ref: openapi.ListMetaSchema, Default: map[string]any{},
				Description: "Standard list metadata: the resourceVersion of the list and the continue token of the next page."},
		},
	}
}
