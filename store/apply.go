package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
)

// A Change is one committed write that Apply or Reset takes from another
// store, such as etcd: the state of the object at Key, or its deletion.
type Change[T meta.Object] struct {
	// Key is the storage key, prefix/namespace/name or prefix/name (see
	// Key).
	Key string
	// Object is the new state. The Store takes it over: the caller must
	// not use or modify it afterwards. Ignored for a deletion.
	Object T
	// Deleted reports a deletion of the key.
	Deleted bool
	// Revision is the key's modification revision; only Reset reads it
	// (Apply writes every change at its own revision). 0 means Reset's.
	Revision rv.Version
}

// ErrApply is wrapped by the errors of Apply and Reset: the changes do not
// fit the Store's state, so it no longer follows the store it replicates
// (a replica should then Reset from a fresh list).
var ErrApply = errors.New("store: changes do not apply")

// Apply commits changes that another store ordered and committed at
// revision rev, as a replica of etcd does with the events of a watch:
// each change becomes a version at rev (its resourceVersion is set to
// rev), a history entry and a watch event, exactly as if the Store had
// written it. Revisions need not be consecutive (etcd counts the writes of
// every key, not only the replicated ones), but they must increase: rev
// must be greater than the Store's revision, or equal to it when changes
// is empty. Apply without changes only advances the revision (etcd's
// progress notification), which wakes Changed and lets reads and watches
// at rev proceed. A deletion of a key that is not live is an error, as is
// a key twice in one call; an error changes nothing.
//
// A Store fed by Apply must not be written through its Resources (their
// revisions would collide); it is read through them as usual.
func (s *Store[T]) Apply(rev rv.Version, changes ...Change[T]) error {
	r := uint64(rev)
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.rev.Load()
	switch {
	case r < cur || r == cur && len(changes) > 0:
		return fmt.Errorf("%w: revision %d is not after %d", ErrApply, r, cur)
	case r == cur:
		return nil
	}
	if len(changes) > 1 {
		seen := make(map[string]bool, len(changes))
		for _, c := range changes {
			if seen[c.Key] {
				return fmt.Errorf("%w: key %q twice at revision %d", ErrApply, c.Key, r)
			}
			seen[c.Key] = true
		}
	}
	x := s.idx.Load()
	for _, c := range changes {
		if err := checkKey(c.Key); err != nil {
			return err
		}
		if !c.Deleted {
			continue
		}
		if e := x.get(c.Key); e == nil || e.head.Load().dead {
			return fmt.Errorf("%w: deletion of %q at revision %d, which does not exist", ErrApply, c.Key, r)
		}
	}
	for _, c := range changes {
		e := s.idx.Load().get(c.Key)
		isNew := e == nil
		if isNew {
			e = &entry[T]{key: c.Key}
		}
		if c.Deleted {
			s.writeLocked(e, false, s.copyFn(e.head.Load().obj), true, r)
		} else {
			s.writeLocked(e, isNew, c.Object, false, r)
		}
	}
	s.publishLocked(r)
	return nil
}

// checkKey rejects a key the index cannot hold: it needs a resource
// prefix and a name.
func checkKey(key string) error {
	i := strings.IndexByte(key, '/')
	if i <= 0 || i == len(key)-1 || strings.HasSuffix(key, "/") {
		return fmt.Errorf("%w: key %q is not prefix/[namespace/]name", ErrApply, key)
	}
	return nil
}

// Reset replaces the whole state of the Store with objects, the complete
// state at revision rev of the store it replicates (a fresh list from
// etcd), and compacts to rev: a replica starts, or starts over after it
// lost track (its etcd watch was compacted), with Reset. Each object keeps
// its own resourceVersion, its Change.Revision (its etcd modification
// revision, at most rev; 0 means rev). Readers and watchers at an older
// revision get 410 Gone and start over, as clients of a Kubernetes watch
// cache do when it relists. rev must be greater than the Store's revision
// unless the Store is empty; objects must not contain deletions or a key
// twice. An error changes nothing.
func (s *Store[T]) Reset(rev rv.Version, objects []Change[T]) error {
	r := uint64(rev)
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.rev.Load(); r <= cur && cur != 0 {
		return fmt.Errorf("%w: reset at revision %d, not after %d", ErrApply, r, cur)
	}
	seen := make(map[string]bool, len(objects))
	for _, c := range objects {
		switch {
		case c.Deleted:
			return fmt.Errorf("%w: reset with a deletion of %q", ErrApply, c.Key)
		case uint64(c.Revision) > r:
			return fmt.Errorf("%w: reset at revision %d with %q at %d", ErrApply, r, c.Key, c.Revision)
		case seen[c.Key]:
			return fmt.Errorf("%w: reset with %q twice", ErrApply, c.Key)
		}
		if err := checkKey(c.Key); err != nil {
			return err
		}
		seen[c.Key] = true
	}
	// A new state from scratch: readers that hold the old index or
	// history see the new compaction revision and retry or fail with 410.
	s.compacted.Store(r)
	s.flipLogs = map[string]*flipLog[T]{}
	s.txID++
	tx := indexTx[T]{x: index[T]{}, id: s.txID}
	for _, c := range objects {
		vr := uint64(c.Revision)
		if vr == 0 {
			vr = r
		}
		c.Object.Meta().ResourceVersion = strconv.FormatUint(vr, 10)
		e := &entry[T]{key: c.Key}
		// Created at or before the compaction revision: not a flip any
		// read counts.
		v := &version[T]{rev: vr, obj: c.Object, entry: e}
		v.link(nil)
		e.head.Store(v)
		e.flips = s.flipLogLocked(c.Key)
		tx.insert(e, true)
	}
	tx.x.rev = r
	s.histN, s.histCut, s.marks = 0, 0, nil
	s.hist.Store(newHistory(r+1, make([]*version[T], 0, 64)))
	s.idx.Store(&tx.x)
	s.publishLocked(r)
	return nil
}
