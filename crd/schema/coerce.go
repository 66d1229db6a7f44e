package schema

import "slices"

// Default sets the defaults of s in obj, a custom resource as decoded
// JSON, where members are missing (or null and not nullable), as
// Kubernetes' structural defaulting does. Values are JSON values as
// server.Unstructured holds them: integers are int64. It makes the Tree
// of s, for one object; a Tree defaults many.
func Default(obj map[string]any, s *JSONSchemaProps) { NewTree(s).Default(obj) }

// Prune drops from obj, a custom resource as decoded JSON, the members s
// does not know, as Kubernetes' structural pruning does (apiVersion,
// kind and metadata are kept at the root and in embedded resources), and
// then the nulls s neither allows nor defaults. It returns the paths of
// the members dropped as unknown, sorted (such as "spec.foo" or
// "spec.list[0].b"), which Kubernetes reports as unknown fields. It
// makes the Tree of s, for one object; a Tree prunes many.
func Prune(obj map[string]any, s *JSONSchemaProps) []string { return NewTree(s).Prune(obj) }

// A Tree is a schema prepared for Settled, Default and Prune, which walk
// it without copying its schemas. The zero Tree and nil stand for no
// schema, which changes nothing.
type Tree struct {
	n *schemaNode
	// defaults are the schemas' defaults, by node.
	defaults map[*schemaNode]any
}

// NewTree returns the tree of s. It keeps the default values of s, which
// must not change, and nothing else of it.
func NewTree(s *JSONSchemaProps) *Tree {
	t := &Tree{defaults: map[*schemaNode]any{}}
	t.n = newSchemaNodeOf(s, t.defaults)
	if len(t.defaults) == 0 {
		t.defaults = nil
	}
	return t
}

// Default is Default with the tree's schema.
func (t *Tree) Default(obj map[string]any) {
	if t != nil {
		t.applyDefaults(obj, t.n)
	}
}

// Prune is Prune with the tree's schema.
func (t *Tree) Prune(obj map[string]any) []string {
	if t == nil || t.n == nil {
		return nil
	}
	var pruned []string
	var sc scratch
	t.n.prune(&sc, obj, path{}, true, &pruned)
	t.n.pruneNulls(obj)
	slices.Sort(pruned)
	return pruned
}

// Settled reports whether Default and Prune would leave obj, a custom
// resource as decoded JSON, as it is. It reads obj only and allocates
// nothing: an object read from storage under the schema it was written
// with needs no copy.
func (t *Tree) Settled(obj map[string]any) bool {
	if t == nil || t.n == nil {
		return true
	}
	if obj == nil {
		obj = map[string]any{}
	}
	return t.n.settled(obj, true, true)
}
