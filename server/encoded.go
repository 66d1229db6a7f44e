package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/apisem/apisem/meta"
)

// encoded is the JSON of an object in the form of its cached list item
// (codec.itemJSON), with the place of its metadata member's value, so
// that a change to metadata alone (managedFields, generation, the
// resourceVersion the store gives) costs a new encoding of the metadata,
// spliced in, never one of the whole object.
type encoded struct {
	b []byte
	// b[meta:end] is the metadata value; end is 0 when the object does
	// not write its metadata as meta.ObjectMeta's JSON (a type with its
	// own MarshalJSON), and a change of metadata then encodes the object
	// again.
	meta, end int
}

// encode returns the JSON of o, an object the pipeline owns.
func (c *codec) encode(o Object) (encoded, error) {
	b, err := c.appendJSON(nil, o, c.res.TypedListItems)
	if err != nil {
		return encoded{}, err
	}
	e := encoded{b: b}
	if start, end, ok := memberValue(b, "metadata"); ok {
		// Splice only where the splice gives exactly the encoding: by
		// construction for the types metaByConstruction knows, else
		// checked.
		if c.metaSplices {
			e.meta, e.end = start, end
		} else if mj, err := c.metadataJSON(o.Meta()); err == nil && bytes.Equal(b[start:end], mj) {
			e.meta, e.end = start, end
		}
	}
	return e, nil
}

// metaByConstruction reports whether every object like o writes its
// metadata member as metadataJSON does: an Unstructured (appendJSON
// writes it so), or a struct without a MarshalJSON of its own whose
// "metadata" field is a meta.ObjectMeta, which encoding/json writes as it
// writes a meta.ObjectMeta alone.
func metaByConstruction(o Object) bool {
	if _, ok := o.(*Unstructured); ok {
		return true
	}
	if _, ok := o.(json.Marshaler); ok {
		return false
	}
	t := reflect.TypeOf(o)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return false
	}
	t = t.Elem()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "metadata" {
			return f.Type == reflect.TypeFor[meta.ObjectMeta]()
		}
	}
	return false
}

// metadataJSON is m as the resource's objects write their metadata member:
// an Unstructured's members are sorted, a typed object's in struct order.
func (c *codec) metadataJSON(m *meta.ObjectMeta) ([]byte, error) {
	if c.unstructured {
		mm, err := metaMap(m)
		if err != nil {
			return nil, err
		}
		return json.Marshal(mm)
	}
	return json.Marshal(m)
}

// withMeta returns e with the metadata of o, whose other members are
// those e was made from.
func (c *codec) withMeta(e encoded, o Object) (encoded, error) {
	if e.end == 0 {
		return c.encode(o)
	}
	mj, err := c.metadataJSON(o.Meta())
	if err != nil {
		return encoded{}, err
	}
	b := make([]byte, 0, len(e.b)-(e.end-e.meta)+len(mj))
	b = append(b, e.b[:e.meta]...)
	b = append(b, mj...)
	b = append(b, e.b[e.end:]...)
	return encoded{b: b, meta: e.meta, end: e.meta + len(mj)}, nil
}

// untypedLen is the length of b, an object's JSON in itemJSON's form,
// without kind and apiVersion: the size of the object as stored. The two
// members take the same bytes in either order.
func (c *codec) untypedLen(b []byte) int {
	if !c.res.TypedListItems {
		return len(b)
	}
	return len(b) - (len(c.typed) - 1) // `"kind":"K","apiVersion":"v",`
}

// specChanged reports whether the objects of JSON a and b (both in
// itemJSON's form) differ outside metadata and status: the change that
// moves metadata.generation. One encoder writes one type
// deterministically, so equal members are equal bytes.
func specChanged(a, b []byte) bool {
	skip := func(k []byte) bool {
		switch string(k) {
		case "metadata", "status", "kind", "apiVersion":
			return true
		}
		return false
	}
	am := map[string][]byte{}
	members(a, func(k, v []byte) {
		if !skip(k) {
			am[string(k)] = v
		}
	})
	n, changed := 0, false
	members(b, func(k, v []byte) {
		if skip(k) || changed {
			return
		}
		n++
		if av, ok := am[string(k)]; !ok || !bytes.Equal(av, v) {
			changed = true
		}
	})
	return changed || n != len(am)
}

// members calls f with the key (unquoted, as written) and the value of
// each member of b, a compact JSON object that encoding/json wrote; it
// stops at anything else.
func members(b []byte, f func(k, v []byte)) {
	if len(b) < 2 || b[0] != '{' {
		return
	}
	for i := 1; i < len(b) && b[i] == '"'; {
		kEnd := skipValue(b, i)
		if kEnd >= len(b) || b[kEnd] != ':' {
			return
		}
		vEnd := skipValue(b, kEnd+1)
		if vEnd > len(b) {
			return
		}
		f(b[i+1:kEnd-1], b[kEnd+1:vEnd])
		if vEnd >= len(b) || b[vEnd] != ',' {
			return
		}
		i = vEnd + 1
	}
}

// memberValue returns where the value of the member key of the compact
// JSON object b is.
func memberValue(b []byte, key string) (start, end int, ok bool) {
	members(b, func(k, v []byte) {
		if !ok && string(k) == key {
			start = cap(b) - cap(v) // v is b[start:...]
			end, ok = start+len(v), true
		}
	})
	return start, end, ok
}

// skipValue returns the end of the compact JSON value at b[i].
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // a scalar ends at its parent's end
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',', ':':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// inflight holds, for each object a write is handing to the store, its
// one encoding and whether it equals the current object's: the store's
// no-op check (Options.Equal) reads the verdict instead of encoding the
// two objects again, and the stored version's JSON is spliced from the
// write's instead of encoded anew. Entries live from the pipeline's end
// to the store's answer.
type inflight struct{ m sync.Map } // Object → *pending

type pending struct {
	enc  encoded
	same bool
}

func (f *inflight) get(o Object) (*pending, bool) {
	p, ok := f.m.Load(o)
	if !ok {
		return nil, false
	}
	return p.(*pending), true
}
