package schema

import "slices"

// Default sets the defaults of s in obj, a custom resource as decoded
// JSON, where members are missing (or null and not nullable), as
// Kubernetes' structural defaulting does. Values are JSON values as
// server.Unstructured holds them: integers are int64.
func Default(obj map[string]any, s *JSONSchemaProps) {
	var sc scratch
	sc.applyDefaults(obj, s)
}

// Prune drops from obj, a custom resource as decoded JSON, the members s
// does not know, as Kubernetes' structural pruning does (apiVersion,
// kind and metadata are kept at the root and in embedded resources), and
// then the nulls s neither allows nor defaults. It returns the paths of
// the members dropped as unknown, sorted (such as "spec.foo" or
// "spec.list[0].b"), which Kubernetes reports as unknown fields.
func Prune(obj map[string]any, s *JSONSchemaProps) []string {
	if s == nil {
		return nil
	}
	var pruned []string
	var sc scratch
	sc.prune(obj, s, path{}, true, &pruned)
	sc.pruneNulls(obj, s)
	slices.Sort(pruned)
	return pruned
}

// A Tree is a schema prepared for Settled. The zero Tree and nil stand
// for no schema, which changes nothing.
type Tree struct{ n *schemaNode }

// NewTree returns the tree of s, which it reads and does not keep.
func NewTree(s *JSONSchemaProps) *Tree { return &Tree{n: newSchemaNodeOf(s)} }

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
