package store

import (
	"strings"
	"sync/atomic"

	"github.com/apisem/apisem/meta"
)

// A list page at an older revision counts the keys live at that revision
// after the page (remainingItemCount) as the index's live count, which
// holds at the index's revision, corrected by every creation and deletion
// of a key (a liveness flip) in the range since the page's revision. The
// flips are kept per collection, so that the correction costs the flips of
// the listed collection only, not those of the whole store: one log per
// namespace of a namespaced resource, one per resource (holding the flips
// of all its namespaces), each the flips after the compaction revision,
// oldest first.
//
// Readers reach a log through an entry of its collection (entry.flips and
// its parent), so they need no shared map. The writer finds a key's log
// by collection prefix in Store.flipLogs and drops a log from it once no
// entry of its collection is left in the index: all its flips are then
// compacted, and an entry created later starts a new log.

// flipLog is the flip log of one collection. vs is replaced, never
// modified in place below its length: the writer appends past it or
// copies.
type flipLog[T meta.Object] struct {
	vs     atomic.Pointer[[]*version[T]]
	parent *flipLog[T] // the resource's log, for a namespace's; else nil
	prefix string      // the collection prefix, e.g. "widgets/ns/"

	// Writer state, guarded by Store.mu.
	refs int // index entries of the collection, plus child logs
	drop int // flips to cut at the end of the running compaction
	cut  int // flips cut from the front of vs's array
}

// versions returns the log's flips.
func (l *flipLog[T]) versions() []*version[T] {
	if p := l.vs.Load(); p != nil {
		return *p
	}
	return nil
}

// collectionPrefixes returns the prefixes of the collections that hold a
// key: the resource's ("widgets/") and, for a namespaced key, the
// namespace's ("widgets/ns/", else ""). Names, namespaces and resource
// prefixes never contain "/".
func collectionPrefixes(key string) (resource, namespace string) {
	i := strings.IndexByte(key, '/')
	resource = key[:i+1]
	if j := strings.LastIndexByte(key, '/'); j > i {
		namespace = key[:j+1]
	}
	return resource, namespace
}

// flipLogLocked returns the innermost flip log for a new entry of key and
// counts the entry in it. s.mu must be held.
func (s *Store[T]) flipLogLocked(key string) *flipLog[T] {
	res, ns := collectionPrefixes(key)
	if ns == "" {
		return s.acquireLogLocked(res, "")
	}
	return s.acquireLogLocked(ns, res)
}

// acquireLogLocked returns the log of the collection prefix and takes a
// reference to it. It creates a missing log, as a child of the log of the
// collection parent unless parent is "". s.mu must be held.
func (s *Store[T]) acquireLogLocked(prefix, parent string) *flipLog[T] {
	l := s.flipLogs[prefix]
	if l == nil {
		l = &flipLog[T]{prefix: prefix}
		if parent != "" {
			l.parent = s.acquireLogLocked(parent, "")
		}
		s.flipLogs[prefix] = l
	}
	l.refs++
	return l
}

// releaseLogLocked gives back a reference to l, forgetting l (and then its
// parent's reference) when it was the last. s.mu must be held.
func (s *Store[T]) releaseLogLocked(l *flipLog[T]) {
	if l.refs--; l.refs == 0 {
		delete(s.flipLogs, l.prefix)
		if l.parent != nil {
			s.releaseLogLocked(l.parent)
		}
	}
}

// appendFlipLocked appends v to the logs of its key. It runs before v's
// revision is published, so a reader that sees the revision sees v in the
// logs. s.mu must be held.
func (s *Store[T]) appendFlipLocked(v *version[T]) {
	for l := v.entry.flips; l != nil; l = l.parent {
		vs := append(l.versions(), v)
		l.vs.Store(&vs)
	}
}

// dropFlipLocked marks v, the oldest flip of its logs not yet cut, to be
// cut by cutFlipsLocked. Compaction calls it in revision order. s.mu must
// be held.
func (s *Store[T]) dropFlipLocked(v *version[T]) {
	for l := v.entry.flips; l != nil; l = l.parent {
		if l.drop == 0 {
			s.cutting = append(s.cutting, l)
		}
		l.drop++
	}
}

// cutFlipsLocked cuts the flips marked by dropFlipLocked. s.mu must be
// held.
func (s *Store[T]) cutFlipsLocked() {
	for _, l := range s.cutting {
		var rest []*version[T] // nil frees the array at once
		if vs := l.versions(); l.drop < len(vs) {
			rest = afterCut(vs[l.drop:], &l.cut, l.drop, 16)
		} else {
			l.cut = 0
		}
		l.vs.Store(&rest)
		l.drop = 0
	}
	clear(s.cutting)
	s.cutting = s.cutting[:0]
}

// flipLogOf returns the log of the collection with prefix that e is in,
// or nil if e is not in that collection.
func flipLogOf[T meta.Object](e *entry[T], prefix string) *flipLog[T] {
	for l := e.flips; l != nil; l = l.parent {
		if l.prefix == prefix {
			return l
		}
	}
	return nil
}

// liveAt counts the keys in [lo, hi) live at revision rev, all of them in
// the collection of log (nil: a collection without flips): the index
// counts at its own revision, minus the creations and plus the deletions
// after rev that it includes. It costs O(log n) plus the flips of the
// collection since rev.
func liveAt[T meta.Object](x *index[T], log *flipLog[T], rev uint64, lo, hi string) int {
	n := x.liveIn(lo, hi)
	if log == nil {
		return n
	}
	vs := log.versions()
	// The flips in (rev, x.rev]: later ones are not in x's counts.
	i := searchRev(vs, rev)
	j := i + searchRev(vs[i:], x.rev)
	for _, v := range vs[i:j] {
		if k := v.entry.key; k >= lo && (hi == "" || k < hi) {
			if v.dead {
				n++ // deleted after rev: was live at rev
			} else {
				n-- // created after rev: was not
			}
		}
	}
	return n
}

// searchRev returns the index of the first version in vs (in revision
// order) written after rev.
func searchRev[T meta.Object](vs []*version[T], rev uint64) int {
	i, j := 0, len(vs)
	for i < j {
		m := int(uint(i+j) >> 1)
		if vs[m].rev <= rev {
			i = m + 1
		} else {
			j = m
		}
	}
	return i
}
