package watchtest

import (
	"sync"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch"
)

// Ring is a watch.Source that allocates nothing per write: a fixed ring of
// MODIFIED events about one object, under the key "a". It exists for
// benchmarks, so that they measure the Broadcaster and the encoders rather
// than a Source; use Source for tests of semantics. The zero value is not
// usable: create a Ring with NewRing.
type Ring[T any] struct {
	mu      sync.Mutex
	rev     rv.Version
	ring    []watch.Event[T]
	obj     T
	changed chan struct{} // closed by the next Put; lazily created
	closed  chan struct{} // always closed: returned when a change is already there
}

// NewRing returns a Ring about obj that keeps the last size-1 events.
func NewRing[T any](obj T, size int) *Ring[T] {
	closed := make(chan struct{})
	close(closed)
	return &Ring[T]{ring: make([]watch.Event[T], max(size, 2)), obj: obj, closed: closed}
}

// Put writes the next revision: one MODIFIED event of the object.
func (s *Ring[T]) Put() rv.Version {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	s.ring[int(s.rev%rv.Version(len(s.ring)))] = watch.Event[T]{Type: watch.Modified, Revision: s.rev, Key: "a", Object: s.obj, Prev: s.obj}
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.rev
}

// Revision implements watch.Source.
func (s *Ring[T]) Revision() rv.Version {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rev
}

// oldestLocked is the compaction revision: the ring holds the events after
// it. s.mu must be held.
func (s *Ring[T]) oldestLocked() rv.Version {
	return s.rev - min(s.rev, rv.Version(len(s.ring)-1))
}

// Events implements watch.Source.
func (s *Ring[T]) Events(dst []watch.Event[T], after rv.Version, max int) ([]watch.Event[T], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if oldest := s.oldestLocked(); after < oldest {
		return dst, &rv.CompactedError{Requested: after, Compacted: oldest}
	}
	for r := after + 1; r <= s.rev && max > 0; r, max = r+1, max-1 {
		dst = append(dst, s.ring[int(r%rv.Version(len(s.ring)))])
	}
	return dst, nil
}

// Changed implements watch.Source.
func (s *Ring[T]) Changed(after rv.Version) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rev > after {
		return s.closed
	}
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

// Snapshot implements watch.Source: the state is the one object, once
// anything has been written.
func (s *Ring[T]) Snapshot(at rv.Version, yield func(string, T) bool) error {
	s.mu.Lock()
	rev, oldest := s.rev, s.oldestLocked()
	s.mu.Unlock()
	switch {
	case at < oldest:
		return &rv.CompactedError{Requested: at, Compacted: oldest}
	case at > rev:
		return rv.ErrFutureRevision
	case at > 0:
		yield("a", s.obj)
	}
	return nil
}
