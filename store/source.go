package store

import (
	"fmt"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch"
)

// Source is the watch.Source of the objects under one key prefix (a
// resource, or the whole Store for the prefix ""). Revision and Changed
// follow the Store's global revision, so a source also makes progress
// through writes to other prefixes: a consumer that read Revision before
// calling Events and got fewer than max events back has seen every event
// of its prefix up to that revision.
//
// Events and Snapshot return the stored objects themselves, not copies:
// a consumer must not modify them (package watch only encodes them).
type Source[T meta.Object] struct {
	s      *Store[T]
	prefix string
	end    string // "" means no upper bound
}

var _ watch.RangeSource[meta.Object] = (*Source[meta.Object])(nil)

// Source returns the watch source of the keys that start with prefix.
func (s *Store[T]) Source(prefix string) *Source[T] {
	return &Source[T]{s: s, prefix: prefix, end: prefixEnd(prefix)}
}

func (src *Source[T]) in(key string) bool {
	return key >= src.prefix && (src.end == "" || key < src.end)
}

// Revision returns the latest committed revision of the Store.
func (src *Source[T]) Revision() rv.Version { return src.s.Revision() }

// Changed returns a channel closed once the Store's revision is greater
// than after.
func (src *Source[T]) Changed(after rv.Version) <-chan struct{} { return src.s.Changed(after) }

// Events appends to dst the events under the prefix with a revision
// greater than after, oldest first, at most max of them (max <= 0 means
// no limit), and returns the extended slice. If after is older than the
// compaction revision it returns a *rv.CompactedError.
func (src *Source[T]) Events(dst []watch.Event[T], after rv.Version, max int) ([]watch.Event[T], error) {
	s := src.s
	cur := s.rev.Load()
	h := s.hist.Load()
	a := uint64(after)
	if a < s.compacted.Load() || a+1 < h.base {
		return dst, s.compactedError(a)
	}
	n0 := len(dst)
	for _, v := range h.after(a) {
		if v.rev > cur {
			break
		}
		if !src.in(v.entry.key) {
			continue
		}
		dst = append(dst, eventOf(v))
		if max > 0 && len(dst)-n0 >= max {
			break
		}
	}
	if !s.validate(a) {
		return dst[:n0], s.compactedError(a)
	}
	return dst, nil
}

// eventOf turns the version written at a revision into its watch event.
func eventOf[T meta.Object](v *version[T]) watch.Event[T] {
	ev := watch.Event[T]{Revision: rv.Version(v.rev), Key: v.entry.key, Object: v.obj}
	prev := v.next.Load()
	switch {
	case v.dead:
		ev.Type = watch.Deleted
		if prev != nil {
			ev.Prev = prev.obj
		}
	case prev == nil || prev.dead:
		ev.Type = watch.Added
	default:
		ev.Type = watch.Modified
		ev.Prev = prev.obj
	}
	return ev
}

// Snapshot calls yield for every object under the prefix in the state at
// revision at, in key order, until yield returns false. It returns a
// *rv.CompactedError if at is older than the compaction revision (also if
// compaction overtook it during the walk, in which case the objects
// yielded so far are incomplete) and an error wrapping
// rv.ErrFutureRevision if at is newer than the Store.
func (src *Source[T]) Snapshot(at rv.Version, yield func(key string, obj T) bool) error {
	return src.snapshot(at, src.prefix, src.end, yield)
}

// SnapshotRange is Snapshot of the keys in [start, end) under the prefix
// (end "" for no upper bound): it seeks to start and stops at end, so
// it reads those keys alone (watch.RangeSource).
func (src *Source[T]) SnapshotRange(at rv.Version, start, end string, yield func(key string, obj T) bool) error {
	lo, hi := src.prefix, src.end
	if start > lo {
		lo = start
	}
	if end != "" && (hi == "" || end < hi) {
		hi = end
	}
	return src.snapshot(at, lo, hi, yield)
}

// snapshot walks the keys in [lo, hi) (hi "" for no upper bound).
func (src *Source[T]) snapshot(at rv.Version, lo, hi string, yield func(key string, obj T) bool) error {
	s := src.s
	r := uint64(at)
	if cur := s.rev.Load(); r > cur {
		return fmt.Errorf("store: snapshot at %d, latest revision is %d: %w", r, cur, rv.ErrFutureRevision)
	}
	x := s.idx.Load()
	if !s.validate(r) {
		return s.compactedError(r)
	}
	var c cursor[T]
	x.seek(&c, lo)
	for e := c.next(); e != nil && (hi == "" || e.key < hi); e = c.next() {
		if v := e.at(r); v != nil && !yield(e.key, v.obj) {
			break
		}
	}
	if !s.validate(r) {
		return s.compactedError(r)
	}
	return nil
}

// EncodedEvent implements watch.EventCache; see Store.EncodedEvent.
func (src *Source[T]) EncodedEvent(enc watch.Encoder[T], typ watch.EventType, key string, obj T) ([]byte, error) {
	return src.s.EncodedEvent(enc, typ, key, obj)
}

// Events is Source("").Events: the events of the whole Store.
func (s *Store[T]) Events(dst []watch.Event[T], after rv.Version, max int) ([]watch.Event[T], error) {
	return (&Source[T]{s: s}).Events(dst, after, max)
}

// Snapshot is Source("").Snapshot: the whole Store at a revision.
func (s *Store[T]) Snapshot(at rv.Version, yield func(key string, obj T) bool) error {
	return (&Source[T]{s: s}).Snapshot(at, yield)
}
