package builtin

import (
	"context"
	"maps"
	"sync"
	"sync/atomic"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apisem/apisem/openapi"
	"github.com/apisem/apisem/server"
)

// typeConverters are the structured-merge-diff types the
// ApplyConfiguration mutations merge with, one per kind, made from the
// OpenAPI schemas the server publishes for it, as kube-apiserver's
// plugin makes them from its own /openapi/v3: a built-in kind's from
// Kubernetes' definitions, any other's from its resource's schema and
// definitions. They are made when first asked for and forgotten when
// the server's resources change.
type typeConverters struct {
	srv *atomic.Pointer[server.Server]

	mu      sync.Mutex
	changed <-chan struct{}
	byKind  map[schema.GroupVersionKind]managedfields.TypeConverter
}

// Run is the patch.TypeConverterManager's: nothing to refresh, the
// converters are made again when the resources change.
func (*typeConverters) Run(context.Context) {}

// reset forgets the converters made before the resources changed.
func (t *typeConverters) reset(changed <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.changed != changed {
		t.changed, t.byKind = changed, nil
	}
}

// GetTypeConverter returns the converter of gvk, or nil (which the
// dispatcher answers as kube-apiserver does a kind it has no schema of)
// for a kind the server does not serve.
func (t *typeConverters) GetTypeConverter(gvk schema.GroupVersionKind) managedfields.TypeConverter {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tc, ok := t.byKind[gvk]; ok {
		return tc
	}
	tc := t.make(gvk)
	if t.byKind == nil {
		t.byKind = map[schema.GroupVersionKind]managedfields.TypeConverter{}
	}
	t.byKind[gvk] = tc
	return tc
}

func (t *typeConverters) make(gvk schema.GroupVersionKind) managedfields.TypeConverter {
	m := &models{all: map[string]*spec.Schema{}}
	var root string
	switch s := t.srv.Load(); {
	case s == nil:
		return nil
	case gvk == autoscalingv1.SchemeGroupVersion.WithKind("Scale"):
		// kube-apiserver's plugin looks the kind up in the document of
		// its group version, autoscaling/v1, which has no Scale: an
		// ApplyConfiguration of a Scale fails there for want of its
		// type (a JSONPatch needs none), and so it does here.
		for _, r := range s.Resources() {
			if r.Group == gvk.Group && r.Version == gvk.Version {
				tc, _ := managedfields.NewTypeConverter(map[string]*spec.Schema{}, false)
				return tc
			}
		}
		return nil
	default:
		r := resourceOfKind(s, gvk)
		switch {
		case r == nil:
			return nil
		case isBuiltin(r) && r.SchemaName != "":
			root = r.SchemaName
			m.kube(root)
		case r.Schema == nil:
			// No schema: every field atomic, as for a custom resource
			// that preserves unknown fields.
			return managedfields.NewDeducedTypeConverter()
		default:
			root = r.SchemaName
			if root == "" {
				root = gvk.Group + "." + gvk.Version + "." + gvk.Kind
			}
			m.own = r.Definitions
			m.all[root] = m.convert(objectSchema(r.Schema))
		}
	}
	// The root, a copy, names its kind as Kubernetes' published
	// schemas do.
	c := *m.all[root]
	c.Extensions = maps.Clone(c.Extensions)
	if c.Extensions == nil {
		c.Extensions = spec.Extensions{}
	}
	c.Extensions["x-kubernetes-group-version-kind"] = []any{map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}}
	m.all[root] = &c
	tc, err := managedfields.NewTypeConverter(m.all, false)
	if err != nil {
		return nil
	}
	return tc
}

// models collects the OpenAPI models of one kind: the definitions its
// resource has (own), the definitions of Kubernetes they refer to.
type models struct {
	all map[string]*spec.Schema
	own map[string]*openapi.Schema
}

// kube adds Kubernetes' definition name and those it refers to.
func (m *models) kube(name string) {
	if _, ok := m.all[name]; ok {
		return
	}
	def, ok := kubernetesDefinitions()[name]
	if !ok {
		return
	}
	s := def.Schema // a copy: the definitions are shared
	m.all[name] = &s
	for _, d := range def.Dependencies {
		m.kube(d)
	}
}

// ref adds the definition a schema refers to, the resource's own or
// else Kubernetes'.
func (m *models) ref(name string) {
	if _, ok := m.all[name]; ok {
		return
	}
	if o, ok := m.own[name]; ok {
		m.all[name] = &spec.Schema{} // before converting: it may be recursive
		*m.all[name] = *m.convert(o)
		return
	}
	m.kube(name)
}

// convert returns s as an OpenAPI v3 schema, as the server publishes
// it, adding the definitions it refers to.
func (m *models) convert(s *openapi.Schema) *spec.Schema {
	out := &spec.Schema{}
	if s.Ref != "" {
		m.ref(s.Ref)
		out.Ref = spec.MustCreateRef("#/components/schemas/" + s.Ref)
		return out
	}
	if s.Type != "" {
		out.Type = spec.StringOrArray{s.Type}
	}
	out.Format = s.Format
	if len(s.Properties) > 0 {
		out.Properties = make(map[string]spec.Schema, len(s.Properties))
		for name, p := range s.Properties {
			out.Properties[name] = *m.convert(p)
		}
	}
	if s.AdditionalProperties != nil {
		out.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: m.convert(s.AdditionalProperties)}
	}
	if s.Items != nil {
		out.Items = &spec.SchemaOrArray{Schema: m.convert(s.Items)}
	}
	ext := spec.Extensions{}
	set := func(key string, v any, ok bool) {
		if ok {
			ext[key] = v
		}
	}
	set("x-kubernetes-list-type", s.ListType, s.ListType != "")
	set("x-kubernetes-map-type", s.MapType, s.MapType != "")
	set("x-kubernetes-patch-strategy", s.PatchStrategy, s.PatchStrategy != "")
	set("x-kubernetes-patch-merge-key", s.PatchMergeKey, s.PatchMergeKey != "")
	set("x-kubernetes-int-or-string", true, s.IntOrString)
	set("x-kubernetes-preserve-unknown-fields", true, s.PreserveUnknownFields)
	if len(s.ListMapKeys) > 0 {
		keys := make([]any, len(s.ListMapKeys))
		for i, k := range s.ListMapKeys {
			keys[i] = k
		}
		ext["x-kubernetes-list-map-keys"] = keys
	}
	if len(ext) > 0 {
		out.Extensions = ext
	}
	return out
}

// objectSchema is s with the apiVersion, kind and metadata every object
// has, where it lacks them, as the server publishes it.
func objectSchema(s *openapi.Schema) *openapi.Schema {
	c := *s
	c.Properties = maps.Clone(s.Properties)
	if c.Properties == nil {
		c.Properties = map[string]*openapi.Schema{}
	}
	for name, p := range map[string]*openapi.Schema{
		"apiVersion": {Type: "string"}, "kind": {Type: "string"}, "metadata": {Ref: openapi.ObjectMetaSchema},
	} {
		if c.Properties[name] == nil {
			c.Properties[name] = p
		}
	}
	return &c
}
