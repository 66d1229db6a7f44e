package builtin

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
	k8sopenapi "k8s.io/kubernetes/pkg/generated/openapi"

	"github.com/apisem/apisem/openapi"
	"github.com/apisem/apisem/patch"
	"github.com/apisem/apisem/server"
)

// definitions are Kubernetes' OpenAPI definitions of the built-in types
// (k8s.io/kubernetes/pkg/generated/openapi, what kube-apiserver
// publishes), by their published names (io.k8s.api.apps.v1.Deployment).
type definitions struct {
	all map[string]common.OpenAPIDefinition
	// schemas are the definitions converted so far.
	schemas map[string]*openapi.Schema
	// patches are the strategic merge patch schemas of definitions.
	patches map[string]*patch.Schema
}

// serverDefined are the definitions the server publishes itself (its
// meta/v1 types): the resources refer to them and do not redefine them.
var serverDefined = []string{
	openapi.ObjectMetaSchema, openapi.ListMetaSchema, openapi.TimeSchema, openapi.MicroTimeSchema,
	openapi.StatusSchema, openapi.DeleteOptionsSchema, openapi.WatchEventSchema, openapi.PatchSchema,
	"io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
	"io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
	"io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference",
	"io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause",
	"io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails",
	"io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions",
	"io.k8s.apimachinery.pkg.runtime.RawExtension",
}

const refPrefix = "#/definitions/"

// kubernetesDefinitions are Kubernetes' definitions of every type it
// publishes. Making them takes most of the time of Resources, so they
// are made once, on first use, and only read.
var kubernetesDefinitions = sync.OnceValue(func() map[string]common.OpenAPIDefinition {
	return k8sopenapi.GetOpenAPIDefinitions(func(name string) spec.Ref {
		return spec.MustCreateRef(refPrefix + name)
	})
})

// openAPIDefinitions returns the definitions of one call of Resources:
// the schemas it converts are its own, since the server holds them.
func openAPIDefinitions() *definitions {
	return &definitions{all: kubernetesDefinitions(), schemas: map[string]*openapi.Schema{}, patches: map[string]*patch.Schema{}}
}

// describe sets the Schema, SchemaName, Definitions and PatchSchema of
// r, the resource of k.
func (d *definitions) describe(k *kind, r *server.Resource) error {
	name := schemaName(k)
	if _, ok := d.all[name]; !ok {
		return fmt.Errorf("builtin: no OpenAPI definition %s", name)
	}
	root, err := d.schema(name)
	if err != nil {
		return err
	}
	defs := map[string]*openapi.Schema{}
	d.closure(root, defs)
	r.Schema, r.SchemaName, r.Definitions = root, name, defs
	r.PatchSchema = d.patchSchema(root)
	return nil
}

// schemaName is the name Kubernetes publishes the kind's schema under.
func schemaName(k *kind) string {
	// The last element of the types' package path: k8s.io/api/rbac/v1
	// for rbac.authorization.k8s.io.
	g, _, _ := strings.Cut(k.Group, ".")
	if g == "" {
		g = "core"
	}
	return "io.k8s.api." + g + "." + k.Version + "." + k.Kind
}

// closure adds the definitions s refers to, directly or not, to defs.
func (d *definitions) closure(s *openapi.Schema, defs map[string]*openapi.Schema) {
	visit(s, func(ref string) {
		if _, ok := defs[ref]; ok || slices.Contains(serverDefined, ref) {
			return
		}
		rs := d.schemas[ref]
		defs[ref] = rs
		d.closure(rs, defs)
	})
}

// visit calls f with every reference in s.
func visit(s *openapi.Schema, f func(string)) {
	if s == nil {
		return
	}
	if s.Ref != "" {
		f(s.Ref)
		return
	}
	for _, p := range s.Properties {
		visit(p, f)
	}
	visit(s.AdditionalProperties, f)
	visit(s.Items, f)
}

// schema returns the named definition as a openapi.Schema, converting it
// and the definitions it refers to on first use.
func (d *definitions) schema(name string) (*openapi.Schema, error) {
	if s, ok := d.schemas[name]; ok {
		return s, nil
	}
	def, ok := d.all[name]
	if !ok {
		return nil, fmt.Errorf("builtin: no OpenAPI definition %s", name)
	}
	s := &openapi.Schema{}
	d.schemas[name] = s // before converting: definitions may be recursive
	c, err := d.convert(&def.Schema)
	if err != nil {
		return nil, fmt.Errorf("builtin: OpenAPI definition %s: %w", name, err)
	}
	*s = *c
	switch name {
	case "io.k8s.apimachinery.pkg.api.resource.Quantity":
		// A string or a number (its v3 schema's oneOf): a format makes
		// server-side apply take both, as Kubernetes' does.
		s.Format = "quantity"
	case "io.k8s.apimachinery.pkg.util.intstr.IntOrString":
		s.IntOrString = true
	}
	return s, nil
}

// convert returns s, one of Kubernetes' schemas, as a openapi.Schema.
func (d *definitions) convert(s *spec.Schema) (*openapi.Schema, error) {
	out := &openapi.Schema{Description: s.Description, Format: s.Format, Default: s.Default}
	ref := s.Ref.String()
	if ref == "" && len(s.AllOf) == 1 {
		ref = s.AllOf[0].Ref.String()
	}
	if ref != "" {
		name, ok := strings.CutPrefix(ref, refPrefix)
		if !ok {
			return nil, fmt.Errorf("reference %q", ref)
		}
		if !slices.Contains(serverDefined, name) {
			if _, err := d.schema(name); err != nil {
				return nil, err
			}
		}
		out.Ref = name
		d.extensions(s, out)
		return out, nil
	}
	if len(s.Type) > 0 {
		out.Type = s.Type[0]
	}
	for _, e := range s.Enum {
		if v, ok := e.(string); ok {
			out.Enum = append(out.Enum, v)
		}
	}
	out.Required = s.Required
	if len(s.Properties) > 0 {
		out.Properties = make(map[string]*openapi.Schema, len(s.Properties))
		for name, p := range s.Properties {
			c, err := d.convert(&p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out.Properties[name] = c
		}
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		c, err := d.convert(ap.Schema)
		if err != nil {
			return nil, err
		}
		out.AdditionalProperties = c
	}
	if it := s.Items; it != nil && it.Schema != nil {
		c, err := d.convert(it.Schema)
		if err != nil {
			return nil, err
		}
		out.Items = c
	}
	d.extensions(s, out)
	return out, nil
}

// extensions copies the Kubernetes extensions the server knows.
func (d *definitions) extensions(s *spec.Schema, out *openapi.Schema) {
	str := func(key string) string {
		v, _ := s.Extensions[key].(string)
		return v
	}
	out.PatchStrategy = str("x-kubernetes-patch-strategy")
	out.PatchMergeKey = str("x-kubernetes-patch-merge-key")
	out.ListType = str("x-kubernetes-list-type")
	out.MapType = str("x-kubernetes-map-type")
	if keys, ok := s.Extensions["x-kubernetes-list-map-keys"].([]any); ok {
		for _, k := range keys {
			if k, ok := k.(string); ok {
				out.ListMapKeys = append(out.ListMapKeys, k)
			}
		}
	}
	if b, ok := s.Extensions["x-kubernetes-int-or-string"].(bool); ok && b {
		out.IntOrString = true
	}
	if b, ok := s.Extensions["x-kubernetes-preserve-unknown-fields"].(bool); ok && b {
		out.PreserveUnknownFields = true
	}
}

// patchSchema returns the strategic merge patch strategies of s: the
// lists whose x-kubernetes-patch-strategy merges them, as Kubernetes
// reads them from the patchStrategy struct tags; nil when s has none.
func (d *definitions) patchSchema(s *openapi.Schema) *patch.Schema {
	if s == nil {
		return nil
	}
	if s.Ref != "" {
		if s.Ref == openapi.ObjectMetaSchema {
			return patch.ObjectMetaSchema()
		}
		if p, ok := d.patches[s.Ref]; ok {
			return p
		}
		d.patches[s.Ref] = nil // a recursive definition merges as a plain object
		p := d.patchSchema(d.schemas[s.Ref])
		d.patches[s.Ref] = p
		return p
	}
	var out patch.Schema
	for name, f := range s.Properties {
		ps := d.patchSchema(f)
		if merges(f) {
			if ps == nil {
				ps = &patch.Schema{}
			}
			c := *ps
			c.MergeList, c.MergeKey = true, f.PatchMergeKey
			ps = &c
		}
		if ps != nil {
			if out.Fields == nil {
				out.Fields = map[string]*patch.Schema{}
			}
			out.Fields[name] = ps
		}
	}
	if s.Items != nil {
		if e := d.patchSchema(s.Items); e != nil {
			out.Elem = e
		}
	}
	if out.Fields == nil && out.Elem == nil {
		return nil
	}
	return &out
}

// merges reports whether a field's patch strategy merges its list.
func merges(s *openapi.Schema) bool {
	return s.Type == "array" && slices.Contains(strings.Split(s.PatchStrategy, ","), "merge")
}
