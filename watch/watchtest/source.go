package watchtest

import (
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch"
)

// Source is an in-memory watch.Source with the knobs a test needs:
// writes, revisions without events, compaction (by hand or by a retention
// count) and injected failures. Revisions start at 1 with the first write.
// All methods are safe for concurrent use and never block on readers.
type Source[T any] struct {
	withVersion func(T, rv.Version) T

	mu        sync.Mutex
	rev       rv.Version
	compacted rv.Version
	// base is the state at compacted; history[head:] are the events
	// after it.
	base    map[string]T
	history []watch.Event[T]
	head    int
	state   map[string]T
	retain  int
	failErr error
	// changed is closed and cleared by the next write; made on demand so
	// that writes nobody waits for cost no allocation.
	changed chan struct{}
	closed  chan struct{}
}

// NewSource returns an empty Source. withVersion must return a copy of obj
// with its resourceVersion set to rev; the Source stamps every written
// object with it.
func NewSource[T any](withVersion func(obj T, rev rv.Version) T) *Source[T] {
	closed := make(chan struct{})
	close(closed)
	return &Source[T]{
		withVersion: withVersion,
		base:        map[string]T{},
		state:       map[string]T{},
		closed:      closed,
	}
}

// Put creates or replaces the object at key (ADDED or MODIFIED) and returns
// the write's revision.
func (s *Source[T]) Put(key string, obj T) rv.Version {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	obj = s.withVersion(obj, s.rev)
	prev, ok := s.state[key]
	typ := watch.Modified
	if !ok {
		typ = watch.Added
	}
	s.state[key] = obj
	s.commitLocked(watch.Event[T]{Type: typ, Revision: s.rev, Key: key, Object: obj, Prev: prev})
	return s.rev
}

// Delete removes the object at key and returns the write's revision; it
// reports false, writing nothing, if there is none.
func (s *Source[T]) Delete(key string) (rv.Version, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, ok := s.state[key]
	if !ok {
		return 0, false
	}
	s.rev++
	delete(s.state, key)
	s.commitLocked(watch.Event[T]{Type: watch.Deleted, Revision: s.rev, Key: key, Object: s.withVersion(prev, s.rev), Prev: prev})
	return s.rev, true
}

// Bump advances the revision without an event of this Source, as a write
// to another resource of the same store does, and returns the new revision.
func (s *Source[T]) Bump() rv.Version {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	s.notifyLocked()
	return s.rev
}

// Compact forgets the history up to rev (at most the current revision):
// Events after an older revision and Snapshot at one then fail with a
// *rv.CompactedError.
func (s *Source[T]) Compact(rev rv.Version) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactLocked(min(rev, s.rev))
}

// SetRetention makes every later write compact the history down to the
// last n events (n <= 0: keep everything).
func (s *Source[T]) SetRetention(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retain = n
	s.retainLocked()
}

// FailEvents makes Events fail with err until it is called with nil.
func (s *Source[T]) FailEvents(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failErr = err
}

// Compacted returns the compaction revision.
func (s *Source[T]) Compacted() rv.Version {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compacted
}

func (s *Source[T]) commitLocked(ev watch.Event[T]) {
	s.history = append(s.history, ev)
	s.retainLocked()
	s.notifyLocked()
}

func (s *Source[T]) notifyLocked() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

func (s *Source[T]) retainLocked() {
	if s.retain > 0 && len(s.history)-s.head > s.retain {
		s.compactLocked(s.history[len(s.history)-s.retain-1].Revision)
	}
}

func (s *Source[T]) compactLocked(rev rv.Version) {
	if rev <= s.compacted {
		return
	}
	for s.head < len(s.history) && s.history[s.head].Revision <= rev {
		apply(s.base, &s.history[s.head])
		s.history[s.head] = watch.Event[T]{}
		s.head++
	}
	s.compacted = rev
	// Move the live part down once the dead prefix is as long, so that
	// memory stays proportional to the retained history.
	if s.head > 0 && s.head >= len(s.history)-s.head {
		n := copy(s.history, s.history[s.head:])
		clear(s.history[n:])
		s.history = s.history[:n]
		s.head = 0
	}
}

func apply[T any](m map[string]T, ev *watch.Event[T]) {
	if ev.Type == watch.Deleted {
		delete(m, ev.Key)
	} else {
		m[ev.Key] = ev.Object
	}
}

// Revision implements watch.Source.
func (s *Source[T]) Revision() rv.Version {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rev
}

// Events implements watch.Source.
func (s *Source[T]) Events(dst []watch.Event[T], after rv.Version, max int) ([]watch.Event[T], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failErr != nil {
		return dst, s.failErr
	}
	if after < s.compacted {
		return dst, &rv.CompactedError{Requested: after, Compacted: s.compacted}
	}
	h := s.history[s.head:]
	i := sort.Search(len(h), func(i int) bool { return h[i].Revision > after })
	return append(dst, h[i:min(len(h), i+max)]...), nil
}

// Changed implements watch.Source.
func (s *Source[T]) Changed(after rv.Version) <-chan struct{} {
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

// Snapshot implements watch.Source.
func (s *Source[T]) Snapshot(at rv.Version, yield func(key string, obj T) bool) error {
	s.mu.Lock()
	if at < s.compacted {
		s.mu.Unlock()
		return &rv.CompactedError{Requested: at, Compacted: s.compacted}
	}
	if at > s.rev {
		rev := s.rev
		s.mu.Unlock()
		return fmt.Errorf("watchtest: snapshot at %d, latest is %d: %w", at, rev, rv.ErrFutureRevision)
	}
	var m map[string]T
	if at == s.rev {
		m = clone(s.state)
	} else {
		m = clone(s.base)
		for i := s.head; i < len(s.history) && s.history[i].Revision <= at; i++ {
			apply(m, &s.history[i])
		}
	}
	s.mu.Unlock()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !yield(k, m[k]) {
			break
		}
	}
	return nil
}

func clone[T any](m map[string]T) map[string]T {
	c := make(map[string]T, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
