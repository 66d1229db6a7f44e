package schema

import (
	"slices"
	"strconv"
)

// A scratch holds the copies of properties that a walk of an object
// passes down, one per level of the walk. A schema keeps its properties
// as map values, which have no address: a walk that took the address
// of a copy in each of its recursive calls moved every copy to the heap
// (488 bytes a property visited, on every write: BenchmarkRealCustomWrite
// in crd). With a scratch, a walk copies each property into the slot of
// its depth, and allocates nothing unless it goes deeper than slots.
//
// Walks must release a slot they took before their caller takes the
// next, and must not keep a property's address past its release.
type scratch struct {
	n     int
	slots [16]JSONSchemaProps
	more  []*JSONSchemaProps // past slots, rarely
	// segs are the paths of the values being walked (see seg), taken
	// and given back as slots are.
	ns       int
	segs     [32]seg
	moreSegs []seg
	// keyArr holds the sorted keys of the objects being walked, each
	// object's after its parent's (see keys), up to nk.
	nk     int
	keyArr [128]string
}

// prop copies property k of m into the next slot and returns it, or
// returns nil, taking no slot, when m has no k.
func (sc *scratch) prop(m map[string]JSONSchemaProps, k string) *JSONSchemaProps {
	p := sc.next()
	var ok bool
	if *p, ok = m[k]; !ok {
		return nil
	}
	sc.n++
	return p
}

func (sc *scratch) next() *JSONSchemaProps {
	if sc.n < len(sc.slots) {
		return &sc.slots[sc.n]
	}
	i := sc.n - len(sc.slots)
	if i == len(sc.more) {
		sc.more = append(sc.more, new(JSONSchemaProps))
	}
	return sc.more[i]
}

// release gives back the last slot prop took.
func (sc *scratch) release() { sc.n-- }

// A path is the path of a value in a walk: a link to its last segment
// in the walk's scratch, which links to its parent's. A walk builds a
// path's text only for the errors it reports, where one string for each
// value visited was most of the garbage of a valid object's validation.
// The zero path is the root. Segments link by index, not by address: a
// scratch holding its own addresses would move to the heap.
type path struct {
	sc *scratch
	i  int // the segment's index + 1; 0 at the root
}

type seg struct {
	parent int // as path.i
	key    string
	i      int
	kind   segKind
}

type segKind uint8

const (
	member  segKind = iota // parent.key, or key at the root
	dotted                 // parent.key, also at the root
	keyed                  // parent[key]
	indexed                // parent[i]
)

// String is the path's text, "" at the root.
func (p path) String() string {
	if p.i == 0 {
		return ""
	}
	return string(p.sc.append(nil, p.i))
}

// append appends the text of the path whose segment is i (as path.i).
func (sc *scratch) append(b []byte, i int) []byte {
	if i == 0 {
		return b
	}
	p := sc.seg(i - 1)
	b = sc.append(b, p.parent)
	switch p.kind {
	case member:
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, p.key...)
	case dotted:
		b = append(append(b, '.'), p.key...)
	case keyed:
		b = append(append(append(b, '['), p.key...), ']')
	case indexed:
		b = append(strconv.AppendInt(append(b, '['), int64(p.i), 10), ']')
	}
	return b
}

func (sc *scratch) seg(i int) *seg {
	if i < len(sc.segs) {
		return &sc.segs[i]
	}
	return &sc.moreSegs[i-len(sc.segs)]
}

// push takes the next segment, making the path of a member (key) or
// element (i) of the value at parent; pop gives it back.
func (sc *scratch) push(parent path, kind segKind, key string, i int) path {
	if sc.ns >= len(sc.segs) && sc.ns-len(sc.segs) == len(sc.moreSegs) {
		sc.moreSegs = append(sc.moreSegs, seg{})
	}
	*sc.seg(sc.ns) = seg{parent: parent.i, key: key, i: i, kind: kind}
	sc.ns++
	return path{sc: sc, i: sc.ns}
}

func (sc *scratch) pop() { sc.ns-- }

// keys returns m's keys in order, and how many of the scratch's keys
// they take until dropKeys: the walks of an object visit its members in
// order, for errors in a stable order, and a slice of keys for each
// object was a tenth of a write's garbage. Past the scratch's keys, a
// slice is made.
func (sc *scratch) keys(m map[string]any) ([]string, int) {
	var keys []string
	n := 0
	if sc.nk+len(m) <= len(sc.keyArr) {
		n = len(m)
		keys = sc.keyArr[sc.nk : sc.nk : sc.nk+n]
		sc.nk += n
	} else {
		keys = make([]string, 0, len(m))
	}
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, n
}

// dropKeys gives back n keys, as keys took them.
func (sc *scratch) dropKeys(n int) {
	clear(sc.keyArr[sc.nk-n : sc.nk])
	sc.nk -= n
}
