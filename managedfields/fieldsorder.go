package managedfields

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apisem/apisem/meta"
)

// The fieldsV1 a client sends need not list the keys of an object in the
// order structured-merge-diff keeps them; its decoder appends the keys
// that come in order and inserts the others with a copy, so 60,000 keys
// in reverse order cost seconds of CPU (order.go has the same problem for
// objects). Entries this server wrote are in order; those a write
// carries are put in order first, by moving the members of each object,
// bytes unchanged, so that the decoder reads what it would have read.

// decodeSent is decode for the entries a write carries: their fieldsV1
// are put in order first. An entry whose fieldsV1 does not decode fails
// them all, as in decode.
func decodeSent(entries []meta.ManagedFieldsEntry) (managed, error) {
	var ordered []meta.ManagedFieldsEntry
	for i, e := range entries {
		if e.FieldsV1 == nil || len(e.FieldsV1.Raw) < orderFromBytes {
			// Below that size the inserts cost less than the
			// reordering.
			continue
		}
		raw, err := orderFieldsV1(e.FieldsV1.Raw)
		if err != nil {
			return managed{}, fmt.Errorf("%w: error decoding set of entry %d: %v", errInvalidEntries, i, err)
		}
		if ordered == nil {
			ordered = slices.Clone(entries)
		}
		ordered[i].FieldsV1 = &meta.FieldsV1{Raw: raw}
	}
	if ordered == nil {
		ordered = entries
	}
	return decode(ordered)
}

// orderFromBytes is the size of a fieldsV1 from which decodeSent puts it
// in order.
const orderFromBytes = 4 << 10

// maxFieldsDepth bounds the nesting of a fieldsV1 put in order, as
// encoding/json bounds what it decodes.
const maxFieldsDepth = 10000

// errFieldsV1 is a fieldsV1 that does not decode.
var errFieldsV1 = errors.New("managedfields: invalid fieldsV1")

// orderFieldsV1 returns raw, a fieldsV1 object, with the members of each
// object in structured-merge-diff's order. It fails on what the decoder
// of structured-merge-diff would fail on: a value that is neither an
// object nor null (except under "." or a key of an unknown kind, which
// it skips), a key that is not a path element, or bytes that are not
// JSON.
func orderFieldsV1(raw []byte) ([]byte, error) {
	o := fieldsOrderer{raw: raw, dec: json.NewDecoder(bytes.NewReader(raw))}
	out, err := o.value(nil, 0)
	if err != nil {
		return nil, err
	}
	if _, err := o.dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the object", errFieldsV1)
	}
	return out, nil
}

type fieldsOrderer struct {
	raw []byte
	dec *json.Decoder
}

// member is one member of an object: its key as written, its path
// element, and its value put in order.
type member struct {
	key   []byte
	pe    fieldpath.PathElement
	rank  int // 0: a path element; 1: "." or an unknown kind, skipped by the decoder
	value []byte
}

// value appends the next value, an object or null, put in order.
func (o *fieldsOrderer) value(dst []byte, depth int) ([]byte, error) {
	t, err := o.dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errFieldsV1, err)
	}
	if t == nil {
		return append(dst, "null"...), nil
	}
	if t != json.Delim('{') {
		return nil, fmt.Errorf("%w: %v where an object belongs", errFieldsV1, t)
	}
	if depth >= maxFieldsDepth {
		return nil, fmt.Errorf("%w: nested too deep", errFieldsV1)
	}
	var members []member
	for o.dec.More() {
		keyStart := o.dec.InputOffset()
		t, err := o.dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errFieldsV1, err)
		}
		key := t.(string) // an object's member starts with its key
		m := member{key: bytes.TrimLeft(o.raw[keyStart:o.dec.InputOffset()], " \t\r\n,")}
		if q := m.key[1 : len(m.key)-1]; bytes.IndexByte(q, '\\') < 0 {
			// Without escapes, the key's bytes as written, as the
			// decoder reads them: encoding/json would replace
			// invalid UTF-8.
			key = string(q)
		}
		m.pe, err = fieldpath.DeserializePathElement(key)
		switch {
		case key == "." || errors.Is(err, fieldpath.ErrUnknownPathElementType):
			// The decoder skips the value, whatever it is.
			m.rank = 1
			var skipped json.RawMessage
			if err := o.dec.Decode(&skipped); err != nil {
				return nil, fmt.Errorf("%w: %v", errFieldsV1, err)
			}
			m.value = skipped
		case err != nil:
			return nil, fmt.Errorf("%w: %q: %v", errFieldsV1, key, err)
		default:
			if m.value, err = o.value(nil, depth+1); err != nil {
				return nil, err
			}
		}
		members = append(members, m)
	}
	if _, err := o.dec.Token(); err != nil { // the closing brace
		return nil, fmt.Errorf("%w: %v", errFieldsV1, err)
	}
	// Stable: duplicate keys keep their order, which decides what the
	// decoder keeps of them.
	slices.SortStableFunc(members, func(a, b member) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if a.rank == 1 {
			return 0
		}
		return a.pe.Compare(b.pe)
	})
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, m.key...)
		dst = append(dst, ':')
		dst = append(dst, m.value...)
	}
	return append(dst, '}'), nil
}
