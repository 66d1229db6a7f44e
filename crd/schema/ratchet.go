package schema

import (
	"fmt"
	"reflect"
	"strings"
)

// Validation ratcheting (KEP-4008): on an update, the schema's errors of
// a value the update did not change are dropped. A corr follows the new
// object down the schema with the old object's value at the same place,
// as Kubernetes' correlated objects do (k8s.io/apiserver pkg/cel/common,
// CorrelatedObject), and compares the two the way Kubernetes does.

// The states of corr.eq.
const (
	unknown int8 = iota
	equal
	unequal
)

// corr is a value of the new object (cur) and its counterpart in the old
// one, with the schema of both. Children are made as validation needs
// them and kept, so that comparing a parent reuses their answers.
type corr struct {
	old, cur any
	s        corrSchema
	// eq caches equal's answer.
	eq int8
	// members and elems are the children, by member name and by index.
	members map[string]*corr
	elems   map[int]*corr
	// list finds the old elements of a map list by key, once made.
	list *mapList
}

// corrSchema is what a corr reads of its schema. It is kept apart from
// the schema, whose address may be a walk's scratch copy (see scratch).
type corrSchema struct {
	props             map[string]JSONSchemaProps
	additional, items *JSONSchemaProps
	// mapList is whether the schema is an x-kubernetes-list-type map;
	// keys are its map keys, when its type is array.
	mapList bool
	keys    []string
}

func corrSchemaOf(s *JSONSchemaProps) corrSchema {
	if s == nil {
		return corrSchema{}
	}
	c := corrSchema{props: s.Properties, additional: s.AdditionalProperties.schema(), items: s.Items,
		mapList: s.XListType != nil && *s.XListType == "map"}
	if s.Type == "array" {
		c.keys = s.XListMapKeys
	}
	return c
}

// key is the correlation of member k of an object: nil unless both
// objects have it and the schema says what it is (a property or
// additionalProperties).
func (c *corr) key(k string) *corr {
	if c == nil {
		return nil
	}
	if ch, ok := c.members[k]; ok {
		return ch
	}
	om, ok1 := c.old.(map[string]any)
	nm, ok2 := c.cur.(map[string]any)
	if !ok1 || !ok2 {
		return nil
	}
	ov, ok1 := om[k]
	nv, ok2 := nm[k]
	if !ok1 || !ok2 {
		return nil
	}
	var cs corrSchema
	if p, ok := c.s.props[k]; ok {
		cs = corrSchemaOf(&p)
	} else if c.s.additional != nil {
		cs = corrSchemaOf(c.s.additional)
	} else {
		return nil
	}
	if c.members == nil {
		c.members = map[string]*corr{}
	}
	ch := &corr{old: ov, cur: nv, s: cs}
	c.members[k] = ch
	return ch
}

// index is the correlation of element i of a list: only the elements of
// an x-kubernetes-list-type map list correlate, with the old element of
// the same keys.
func (c *corr) index(i int) *corr {
	if c == nil {
		return nil
	}
	if ch, ok := c.elems[i]; ok {
		return ch
	}
	ol, ok := c.old.([]any)
	if !ok {
		return nil
	}
	nl, ok := c.cur.([]any)
	if !ok || i >= len(nl) || !c.s.mapList {
		return nil
	}
	if c.list == nil {
		c.list = newMapList(c.s.keys, ol)
	}
	ov := c.list.get(nl[i])
	if ov == nil || c.s.items == nil {
		return nil
	}
	if c.elems == nil {
		c.elems = map[int]*corr{}
	}
	ch := &corr{old: ov, cur: nl[i], s: corrSchemaOf(c.s.items)}
	c.elems[i] = ch
	return ch
}

// equal reports whether the update left the value as it was: objects
// with the same members, each correlated and equal; map lists of the
// same length whose elements each have an equal old element; other lists
// and scalars deeply equal.
func (c *corr) equal() bool {
	if c == nil {
		return false
	}
	if c.eq == unknown {
		c.eq = unequal
		if c.compare() {
			c.eq = equal
		}
	}
	return c.eq == equal
}

func (c *corr) compare() bool {
	if c.cur == nil || c.old == nil {
		return c.cur == nil && c.old == nil
	}
	ol, oldList := c.old.([]any)
	nl, newList := c.cur.([]any)
	om, oldMap := c.old.(map[string]any)
	nm, newMap := c.cur.(map[string]any)
	switch {
	case oldList != newList || oldMap != newMap:
		return false
	case oldList:
		if len(ol) != len(nl) {
			return false
		}
		for i := range nl {
			ch := c.index(i)
			if ch == nil {
				// Not a map list: the lists as wholes. A map list
				// with an element that has no old counterpart: changed.
				return c.list == nil && reflect.DeepEqual(ol, nl)
			}
			if !ch.equal() {
				return false
			}
		}
		return true
	case oldMap:
		if len(om) != len(nm) {
			return false
		}
		for k := range nm {
			if ch := c.key(k); ch == nil || !ch.equal() {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(c.old, c.cur)
}

// mapList finds the elements of an old map list by their keys (the
// members x-kubernetes-list-map-keys names, scalars all), the first of
// equal keys winning, as Kubernetes' MapList does. Elements whose keys
// are missing or not scalars have no counterpart.
type mapList struct {
	keys    []string
	keyed   map[any]any
	unkeyed []any // not yet looked at
}

// newMapList finds the elements of old by keys (none: no element has
// a counterpart).
func newMapList(keys []string, old []any) *mapList {
	l := &mapList{keyed: map[any]any{}}
	if len(keys) > 0 && len(old) > 0 {
		l.keys, l.unkeyed = keys, old
	}
	return l
}

func (l *mapList) get(x any) any {
	m, ok := x.(map[string]any)
	if !ok || l.keys == nil {
		return nil
	}
	k, ok := l.key(m)
	if !ok {
		return nil
	}
	if v, ok := l.keyed[k]; ok {
		return v
	}
	for len(l.unkeyed) > 0 {
		item, ok := l.unkeyed[0].(map[string]any)
		l.unkeyed = l.unkeyed[1:]
		if !ok {
			continue
		}
		ik, ok := l.key(item)
		if !ok {
			continue
		}
		if _, seen := l.keyed[ik]; !seen {
			l.keyed[ik] = item
		}
		if ik == k {
			return item
		}
	}
	return nil
}

// key is the key of element m: the value of a single key, or the values
// of several joined in one string.
func (l *mapList) key(m map[string]any) (any, bool) {
	if len(l.keys) == 1 {
		switch v := m[l.keys[0]].(type) {
		case bool, float64, int64, string:
			return v, true
		}
		return nil, false
	}
	var b strings.Builder
	for _, k := range l.keys {
		switch v := m[k].(type) {
		case bool:
			fmt.Fprintf(&b, "\x00%t", v)
		case float64:
			fmt.Fprintf(&b, "\x00%f", v)
		case int64:
			fmt.Fprintf(&b, "\x00%d", v)
		case string:
			fmt.Fprintf(&b, "\x00%q", v)
		default:
			return nil, false
		}
	}
	return b.String(), true
}
