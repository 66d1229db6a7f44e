package schema

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
