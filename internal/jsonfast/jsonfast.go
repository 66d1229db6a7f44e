package jsonfast

import (
	"unicode/utf8"

	"github.com/apisem/apisem/meta"
)

// maxDepth bounds the nesting of objects the Decoder follows.
const maxDepth = 32

// Decoder reads one JSON value from b. Its methods report false on
// anything they do not take; the Decoder is then of no further use.
type Decoder struct {
	b     []byte
	i     int
	depth int
}

// New returns a Decoder of b.
func New(b []byte) Decoder { return Decoder{b: b} }

func (d *Decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// End reports whether nothing but whitespace is left.
func (d *Decoder) End() bool {
	d.space()
	return d.i == len(d.b)
}

// Object reads an object, calling member with each member's name; member
// reads the value (with String, Bool, StringMap or Object) and reports
// whether it did.
func (d *Decoder) Object(member func(name []byte) bool) bool {
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != '{' || d.depth >= maxDepth {
		return false
	}
	d.i++
	d.depth++
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		return true
	}
	for {
		name, ok := d.raw()
		if !ok {
			return false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return false
		}
		d.i++
		if !member(name) {
			return false
		}
		d.space()
		if d.i >= len(d.b) {
			return false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			d.depth--
			return true
		default:
			return false
		}
	}
}

// raw reads a string without escapes and returns its bytes.
func (d *Decoder) raw() ([]byte, bool) {
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return nil, false
	}
	start := d.i + 1
	ascii := true
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			s := d.b[start:j]
			// Invalid UTF-8 is replaced by the reflective decoder.
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			d.i = j + 1
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// String reads a string.
func (d *Decoder) String() (string, bool) {
	s, ok := d.raw()
	return string(s), ok
}

// Bool reads true or false.
func (d *Decoder) Bool() (v, ok bool) {
	d.space()
	rest := d.b[d.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		d.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.i += 5
		return false, true
	}
	return false, false
}

// StringMap reads an object of strings into *m, which must be nil (a
// second member of the same name is a duplicate).
func (d *Decoder) StringMap(m *map[string]string) bool {
	if *m != nil {
		return false
	}
	out := map[string]string{}
	ok := d.Object(func(name []byte) bool {
		if _, dup := out[string(name)]; dup {
			return false
		}
		v, ok := d.String()
		out[string(name)] = v
		return ok
	})
	*m = out
	return ok
}

// Members of ObjectMeta and TypeMeta the Decoder takes, as bits of a set
// of those seen.
const (
	seenName = 1 << iota
	seenGenerateName
	seenNamespace
	seenUID
	seenResourceVersion
	seenLabels
	seenAnnotations
	seenKind
	seenAPIVersion
)

// field reads the string member of bit, which must not be seen yet.
func (d *Decoder) field(seen *uint32, bit uint32, dst *string) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	var ok bool
	*dst, ok = d.String()
	return ok
}

// ObjectMeta reads metadata of the common members: name, generateName,
// namespace, uid, resourceVersion, labels and annotations.
func (d *Decoder) ObjectMeta(m *meta.ObjectMeta) bool {
	var seen uint32
	return d.Object(func(name []byte) bool {
		switch string(name) {
		case "name":
			return d.field(&seen, seenName, &m.Name)
		case "generateName":
			return d.field(&seen, seenGenerateName, &m.GenerateName)
		case "namespace":
			return d.field(&seen, seenNamespace, &m.Namespace)
		case "uid":
			return d.field(&seen, seenUID, &m.UID)
		case "resourceVersion":
			return d.field(&seen, seenResourceVersion, &m.ResourceVersion)
		case "labels":
			return d.StringMap(&m.Labels)
		case "annotations":
			return d.StringMap(&m.Annotations)
		}
		return false
	})
}

// TypeMember reads the member name of TypeMeta, kind or apiVersion, into
// t; seen is the caller's set of the two seen so far. It reports false
// for any other name.
func (d *Decoder) TypeMember(name []byte, t *meta.TypeMeta, seen *uint32) bool {
	switch string(name) {
	case "kind":
		return d.field(seen, seenKind, &t.Kind)
	case "apiVersion":
		return d.field(seen, seenAPIVersion, &t.APIVersion)
	}
	return false
}
