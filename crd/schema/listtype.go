package schema

import (
	"encoding/json"
	"fmt"

	"github.com/apisem/apisem/status"
)

// The uniqueness of x-kubernetes-list-type set and map lists, which
// Kubernetes checks apart from the OpenAPI schema, after it and the
// checks of embedded resources (k8s.io/apiextensions-apiserver
// pkg/apiserver/schema/listtype, ValidateListSetsAndMaps, run by the
// custom resource strategy).
//
// A set must not hold an item twice; a map list must hold objects (or
// nulls), no two with the same values of the list's map keys. Each value
// is reported once, at the index where it appears the second time, as
// `spec.tags[2]: Duplicate value: "a"`; a map list's duplicate is printed
// as an object of its keys' values (`Duplicate value: {"name":"a"}`), an
// item without them as `{}`. Equality is Kubernetes': scalars by their
// decoded Go value, so that the integer 1 and the number 1.0 differ;
// objects and lists by their JSON encoding, in which they are equal. A
// map list with an item that is neither an object nor null gets only the
// error `must be an object for an array of list-type map` at the first
// such item.
//
// Paths are Kubernetes' field paths: members of additionalProperties as
// keys (`spec.labels[a].set[1]`), not as kube-openapi's schema errors
// print them.

// listTypeErrors is the list-type errors of content, the members of a
// custom resource outside apiVersion, kind and metadata, under the root
// schema's list tree n. On an update (old not nil, the old object's
// content), they ratchet as a whole, as Kubernetes' do: none are
// reported when the old object already had one.
func listTypeErrors(n *listNode, content, old map[string]any) []status.FieldError {
	if n == nil {
		return nil
	}
	var sc scratch
	if old != nil {
		var w listWalk
		w.object(path{sc: &sc}, n, old, true)
		if len(w.errs) > 0 {
			return nil
		}
	}
	var w listWalk
	w.object(path{sc: &sc}, n, content, true)
	return w.errs
}

// A listNode is a schema as the list-type checks read it: only the
// schemas with set or map lists at or below them, linked by pointers,
// so that the checks walk no more of an object than where such lists
// may be, and copy no property's schema on the way.
type listNode struct {
	props      map[string]*listNode
	names      []string // of props, sorted
	additional *listNode
	items      *listNode
	listType   string // set, map, or none
	mapKeys    []string
}

// newListNode returns the list tree of s, nil when s has no set or map
// list.
func newListNode(s *JSONSchemaProps) *listNode {
	if s == nil {
		return nil
	}
	n := &listNode{additional: newListNode(s.AdditionalProperties.schema()), items: newListNode(s.Items)}
	if t := s.XListType; t != nil && (*t == "set" || *t == "map") {
		n.listType, n.mapKeys = *t, s.XListMapKeys
	}
	p := new(JSONSchemaProps) // one copy for all: newListNode keeps nothing of it
	for _, k := range sortedKeys(s.Properties) {
		*p = s.Properties[k]
		if c := newListNode(p); c != nil {
			if n.props == nil {
				n.props = map[string]*listNode{}
			}
			n.props[k] = c
			n.names = append(n.names, k)
		}
	}
	if n.props == nil && n.additional == nil && n.items == nil && n.listType == "" {
		return nil
	}
	return n
}

// listWalk gathers the list-type errors of one object.
type listWalk struct {
	errs []status.FieldError
}

// object checks the members of x, an object under n; root leaves out
// apiVersion, kind and metadata, which the server checks. Members are
// visited in order: first all under additionalProperties, then those
// of properties.
func (w *listWalk) object(at path, n *listNode, x map[string]any, root bool) {
	if n == nil || x == nil {
		return
	}
	skip := func(k string) bool {
		return root && (k == "apiVersion" || k == "kind" || k == "metadata")
	}
	if n.additional != nil {
		keys, taken := at.sc.keys(x)
		defer at.sc.dropKeys(taken)
		for _, k := range keys {
			if !skip(k) {
				w.value(at.sc.push(at, keyed, k, 0), n.additional, x[k])
				at.sc.pop()
			}
		}
	}
	for _, k := range n.names {
		if v, ok := x[k]; ok && !skip(k) {
			w.value(at.sc.push(at, member, k, 0), n.props[k], v)
			at.sc.pop()
		}
	}
}

func (w *listWalk) value(at path, n *listNode, x any) {
	switch x := x.(type) {
	case []any:
		w.list(at, n, x)
	case map[string]any:
		w.object(at, n, x, false)
	}
}

// list checks x, a list under n, then its items.
func (w *listWalk) list(at path, n *listNode, x []any) {
	switch n.listType {
	case "set":
		for _, i := range duplicates(x) {
			w.errs = append(w.errs, duplicate(index(at.String(), i), x[i]))
		}
	case "map":
		w.mapList(at, n.mapKeys, x)
	}
	if n.items != nil {
		for i, e := range x {
			w.value(at.sc.push(at, indexed, "", i), n.items, e)
			at.sc.pop()
		}
	}
}

// mapList checks that the items of a map list are objects with distinct
// keys.
func (w *listWalk) mapList(at path, mapKeys []string, x []any) {
	for i, e := range x {
		if _, ok := e.(map[string]any); e != nil && !ok {
			w.errs = append(w.errs, status.InvalidValue(index(at.String(), i), e, "must be an object for an array of list-type map"))
			return
		}
	}
	if len(x) < 2 {
		return
	}
	if len(mapKeys) == 1 {
		// The values of the one key, with an item that lacks it (or is
		// null) apart from every value, null included.
		k := mapKeys[0]
		keys := make([]any, len(x))
		for i, e := range x {
			item, _ := e.(map[string]any)
			v, ok := item[k]
			if !ok {
				v = missingKey{}
			}
			keys[i] = v
		}
		for _, i := range duplicates(keys) {
			dup := map[string]any{}
			if _, missing := keys[i].(missingKey); !missing {
				dup[k] = keys[i]
			}
			w.errs = append(w.errs, duplicate(index(at.String(), i), dup))
		}
		return
	}
	// Several keys: each item's key is the object of the keys it has.
	keys := make([]any, len(x))
	for i, e := range x {
		key := map[string]any{}
		item, _ := e.(map[string]any)
		for _, k := range mapKeys {
			if v, ok := item[k]; ok {
				key[k] = v
			}
		}
		keys[i] = key
	}
	for _, i := range duplicates(keys) {
		w.errs = append(w.errs, duplicate(index(at.String(), i), keys[i]))
	}
}

// missingKey stands for the key of a map list item that does not have it.
type missingKey struct{}

// duplicates returns the indexes of x where a value appears for the
// second time, in order. Objects and lists compare by their JSON
// encoding, other values by their decoded Go value (so the integer 1 and
// the number 1.0 differ, as they do in Kubernetes).
func duplicates(x []any) []int {
	if len(x) < 2 {
		return nil
	}
	seen := make(map[any]int, len(x))
	var out []int
	for i, e := range x {
		var k any
		switch e := e.(type) {
		case map[string]any, []any:
			b, err := json.Marshal(e)
			if err != nil {
				continue // not from decoded JSON
			}
			// Apart from scalars: a list encoded is not the string.
			k = compound(b)
		case json.Number:
			k = numberValue(e)
		default:
			k = e
		}
		if seen[k]++; seen[k] == 2 {
			out = append(out, i)
		}
	}
	return out
}

// compound is the JSON encoding of an object or list, as a key apart
// from strings.
type compound string

// numberValue is a json.Number as Kubernetes decodes it: an int64 when
// it is an integer that fits, else a float64.
func numberValue(n json.Number) any {
	if i, err := n.Int64(); err == nil {
		return i
	}
	f, _ := n.Float64()
	return f
}

// duplicate is Kubernetes' field.Duplicate, which prints objects and
// lists as JSON.
func duplicate(path string, v any) status.FieldError {
	return status.FieldError{Type: status.CauseTypeFieldValueDuplicate, Field: path, BadValue: v}
}

func index(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}

// hasListTypes reports whether s has a set or map list anywhere, so
// that objects of schemas without need no walk.
func hasListTypes(s *JSONSchemaProps) bool {
	found := false
	Walk(s, func(p *JSONSchemaProps) {
		if p.XListType != nil && (*p.XListType == "set" || *p.XListType == "map") {
			found = true
		}
	})
	return found
}
