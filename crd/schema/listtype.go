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
// schema s. On an update (old not nil, the old object's content), they
// ratchet as a whole, as Kubernetes' do: none are reported when the old
// object already had one.
func listTypeErrors(sc *scratch, s *JSONSchemaProps, content, old map[string]any) []status.FieldError {
	if s == nil {
		return nil
	}
	if old != nil {
		w := listWalk{sc: sc}
		w.object(path{}, s, old, true)
		if len(w.errs) > 0 {
			return nil
		}
	}
	w := listWalk{sc: sc}
	w.object(path{}, s, content, true)
	return w.errs
}

// listWalk gathers the list-type errors of one object.
type listWalk struct {
	errs []status.FieldError
	sc   *scratch
}

// object checks the members of x, an object under s; root leaves out
// apiVersion, kind and metadata, which the server checks.
func (w *listWalk) object(at path, s *JSONSchemaProps, x map[string]any, root bool) {
	if s == nil || x == nil {
		return
	}
	keys := w.sc.keys(x)
	defer w.sc.dropKeys(keys)
	skip := func(k string) bool {
		return root && (k == "apiVersion" || k == "kind" || k == "metadata")
	}
	if ap := s.AdditionalProperties.schema(); ap != nil {
		for _, k := range keys {
			if !skip(k) {
				w.value(w.sc.push(at, keyed, k, 0), ap, x[k])
				w.sc.pop()
			}
		}
	}
	for _, k := range keys {
		if skip(k) {
			continue
		}
		if p := w.sc.prop(s.Properties, k); p != nil {
			w.value(w.sc.push(at, member, k, 0), p, x[k])
			w.sc.pop()
			w.sc.release()
		}
	}
}

func (w *listWalk) value(at path, s *JSONSchemaProps, x any) {
	switch x := x.(type) {
	case []any:
		w.list(at, s, x)
	case map[string]any:
		w.object(at, s, x, false)
	}
}

// list checks x, a list under s, then its items.
func (w *listWalk) list(at path, s *JSONSchemaProps, x []any) {
	if s.XListType != nil {
		switch *s.XListType {
		case "set":
			for _, i := range duplicates(x) {
				w.errs = append(w.errs, duplicate(index(at.String(), i), x[i]))
			}
		case "map":
			w.mapList(at, s, x)
		}
	}
	if s.Items != nil {
		for i, e := range x {
			w.value(w.sc.push(at, indexed, "", i), s.Items, e)
			w.sc.pop()
		}
	}
}

// mapList checks that the items of a map list are objects with distinct
// keys.
func (w *listWalk) mapList(at path, s *JSONSchemaProps, x []any) {
	for i, e := range x {
		if _, ok := e.(map[string]any); e != nil && !ok {
			w.errs = append(w.errs, status.InvalidValue(index(at.String(), i), e, "must be an object for an array of list-type map"))
			return
		}
	}
	if len(x) < 2 {
		return
	}
	if len(s.XListMapKeys) == 1 {
		// The values of the one key, with an item that lacks it (or is
		// null) apart from every value, null included.
		k := s.XListMapKeys[0]
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
		for _, k := range s.XListMapKeys {
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
