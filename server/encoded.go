package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
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
	return c.encodedOf(b, o.Meta()), nil
}

// encodeTo is encode, into *buf when buf is not nil and o writes its own
// JSON (JSONAppender) in the form of the list items: for a create, whose
// first encoding is garbage once the stored version's JSON is spliced
// from it, so that a buffer serves create after create. *buf keeps the
// buffer, grown if it had to be.
func (c *codec) encodeTo(buf *[]byte, o Object) (encoded, error) {
	a, ok := o.(JSONAppender)
	if buf == nil || !ok || c.res.TypedListItems || *o.Types() != (meta.TypeMeta{}) {
		return c.encode(o)
	}
	b, err := a.AppendJSON((*buf)[:0])
	if err == nil && len(b) == 0 {
		err = errors.New("server: AppendJSON of " + c.res.Kind + " appended nothing")
	}
	if err != nil {
		return encoded{}, err
	}
	*buf = b
	return c.encodedOf(b, o.Meta()), nil
}

// getScratch returns a buffer of c.scratch, for putScratch to give back.
func (c *codec) getScratch() *[]byte {
	if buf, _ := c.scratch.Get().(*[]byte); buf != nil {
		return buf
	}
	return new([]byte)
}

// putScratch gives buf back to c.scratch, unless it grew too large to
// keep.
func (c *codec) putScratch(buf *[]byte) {
	if cap(*buf) <= maxScratch {
		c.scratch.Put(buf)
	}
}

// encodedOf is b, the JSON of an object with metadata m, as an encoded:
// with the place of the metadata when it may be spliced.
func (c *codec) encodedOf(b []byte, m *meta.ObjectMeta) encoded {
	e := encoded{b: b}
	if start, end, ok := memberValue(b, "metadata"); ok {
		// Splice only where the splice gives exactly the encoding: by
		// construction for the types metaByConstruction knows, else
		// checked.
		if c.metaSplices {
			e.meta, e.end = start, end
		} else if mj, err := c.metadataJSON(m); err == nil && bytes.Equal(b[start:end], mj) {
			e.meta, e.end = start, end
		}
	}
	return e
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
		return appendSortedMetaJSON(nil, m)
	}
	return appendMetaJSON(nil, m)
}

// appendWithMeta appends the encoding of o to dst: e, made of o when its
// metadata was other, with o's metadata spliced in. The metadata is
// written to a scratch buffer first, so that dst grows once, to the
// exact size: the result is usually a stored version's cached JSON,
// kept (and charged to the history) as long as the version.
func (c *codec) appendWithMeta(dst []byte, e encoded, o Object) ([]byte, error) {
	if e.end == 0 {
		return c.appendJSON(dst, o, c.res.TypedListItems)
	}
	buf := c.getScratch()
	defer c.putScratch(buf)
	var mj []byte
	var err error
	if c.unstructured {
		mj, err = appendSortedMetaJSON((*buf)[:0], o.Meta())
	} else {
		mj, err = appendMetaJSON((*buf)[:0], o.Meta())
	}
	if err != nil {
		return dst, err
	}
	*buf = mj
	dst = slices.Grow(dst, len(e.b)-(e.end-e.meta)+len(mj))
	dst = append(dst, e.b[:e.meta]...)
	dst = append(dst, mj...)
	return append(dst, e.b[e.end:]...), nil
}

// maxScratch bounds the scratch buffers a codec keeps.
const maxScratch = 64 << 10

// managedFieldsBound bounds the length the JSON of entries adds to an
// object's: what a create's encoding, made before the write's
// managedFields were set (and before its generation, which the slack
// covers), can grow by once they are. A string's byte takes at most six
// escaped (\u003c), fieldsV1 likewise (encoding/json compacts and
// escapes it), and the rest of an entry less than its constant.
func managedFieldsBound(entries []meta.ManagedFieldsEntry) int {
	n := len(`,"managedFields":[],"generation":9223372036854775807`)
	for _, e := range entries {
		n += len(`{"manager":"","operation":"","apiVersion":"","time":"2006-01-02T15:04:05Z","fieldsType":"","fieldsV1":null,"subresource":""},`)
		n += 6 * (len(e.Manager) + len(e.Operation) + len(e.APIVersion) + len(e.FieldsType) + len(e.Subresource))
		if e.FieldsV1 != nil {
			n += 6 * len(e.FieldsV1.Raw)
		}
	}
	return n
}

// untypedLen is n, the length of an object's JSON in itemJSON's form,
// without kind and apiVersion: the size of the object as stored. The two
// members take the same bytes in either order.
func (c *codec) untypedLen(n int) int {
	if !c.res.TypedListItems {
		return n
	}
	return n - (len(c.typed) - 1) // `"kind":"K","apiVersion":"v",`
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

// setMember returns a copy of b, a compact JSON object an encoder wrote,
// with the member key's value val, or without the member when val is nil:
// what the encoder writes for the same object with that member's value
// (members are encoded one by one, so one's bytes do not depend on the
// others'). A new member goes where the encoder writes it, which ref (the
// encoding of another object of the type, holding key) shows: after the
// members that precede key in ref, before those that follow it. placed is
// false when b has a member ref lacks next to that place, so that ref
// cannot tell on which side of it key goes; the member is then appended
// last, and the result is the object's JSON only in content.
func setMember(b []byte, key string, val, ref []byte) (out []byte, placed bool) {
	type member struct {
		k string
		// b[start:end] is the member, from its key's quote; b[value:end]
		// its value.
		start, value, end int
	}
	var ms []member
	members(b, func(k, v []byte) {
		value := cap(b) - cap(v)
		ms = append(ms, member{string(k), cap(b) - cap(k) - 1, value, value + len(v)})
	})
	i := slices.IndexFunc(ms, func(m member) bool { return m.k == key })
	out = make([]byte, 0, len(b)+len(key)+len(val)+4)
	switch {
	case i >= 0 && val != nil: // replaced
		return append(append(append(out, b[:ms[i].value]...), val...), b[ms[i].end:]...), true
	case i >= 0: // removed, with the comma before it, or after it if it is first
		from, to := ms[i].start-1, ms[i].end
		if i == 0 {
			from++
			if len(ms) > 1 {
				to++
			}
		}
		return append(append(out, b[:from]...), b[to:]...), true
	case val == nil:
		return append(out, b...), true
	}
	// Inserted: after the last member that precedes key in ref, before
	// the first that follows it, with nothing unknown in between.
	var refKeys []string
	members(ref, func(k, _ []byte) { refKeys = append(refKeys, string(k)) })
	at := slices.Index(refKeys, key)
	before, after := -1, len(ms)
	for j, m := range ms {
		switch r := slices.Index(refKeys, m.k); {
		case r < 0:
		case r < at:
			before = j
		case after == len(ms):
			after = j
		}
	}
	placed = at >= 0 && after == before+1
	if !placed {
		after = len(ms)
	}
	// key needs no escaping: it is a member name of Kubernetes'.
	m := append(append(append(append([]byte{'"'}, key...), '"'), ':'), val...)
	switch {
	case len(ms) == 0:
		out = append(append(append(out, '{'), m...), '}')
	case after == len(ms):
		end := ms[after-1].end
		out = append(append(append(append(out, b[:end]...), ','), m...), b[end:]...)
	default:
		start := ms[after].start
		out = append(append(append(append(out, b[:start]...), m...), ','), b[start:]...)
	}
	return out, placed
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
type inflight struct {
	mu sync.RWMutex
	m  map[Object]pending // lazily initialized
}

type pending struct {
	enc  encoded
	same bool
}

func (f *inflight) put(o Object, p pending) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[Object]pending{}
	}
	f.m[o] = p
}

func (f *inflight) get(o Object) (pending, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	p, ok := f.m[o]
	return p, ok
}

func (f *inflight) remove(o Object) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.m, o)
}

// final is what the pipeline's last step needs of e, the encoding of o
// with o's metadata at the time, now that o's metadata is final: the
// length of o's encoding, and whether it is old, the current object's
// JSON. It splices nothing: the stored version's JSON is spliced once,
// with the resourceVersion the store gives.
func (c *codec) final(e encoded, o Object, old []byte) (n int, same bool, err error) {
	if e.end == 0 {
		b, err := c.appendJSON(nil, o, c.res.TypedListItems)
		return len(b), old != nil && bytes.Equal(b, old), err
	}
	mj, err := c.metadataJSON(o.Meta())
	if err != nil {
		return 0, false, err
	}
	head, tail := e.b[:e.meta], e.b[e.end:]
	n = len(head) + len(mj) + len(tail)
	same = len(old) == n && bytes.Equal(old[:len(head)], head) &&
		bytes.Equal(old[len(head):len(head)+len(mj)], mj) && bytes.Equal(old[len(head)+len(mj):], tail)
	return n, same, nil
}
