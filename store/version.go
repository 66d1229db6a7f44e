package store

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/watch"
)

// entry is one key of the keyspace: its version chain, newest first. The
// key never changes; head is replaced by the writer (one new version per
// write) and read lock-free by everyone else.
type entry[T meta.Object] struct {
	key  string
	head atomic.Pointer[version[T]]
	// flips is the flip log of the innermost collection holding key: its
	// namespace's, or its resource's for a cluster-scoped key. Set before
	// the entry is published, never changed.
	flips *flipLog[T]
}

// at returns the version of e visible at revision rev: the newest one
// written at or before rev, or nil if there is none or it is a deletion.
func (e *entry[T]) at(rev uint64) *version[T] {
	if v := e.upTo(rev); v != nil && !v.dead {
		return v
	}
	return nil
}

// upTo returns the newest version of e written at or before rev, deletions
// included, or nil. It takes a version's skip pointer whenever the version
// it leads to is still newer than rev, so a read k versions back costs
// O(log k) steps.
func (e *entry[T]) upTo(rev uint64) *version[T] {
	v := e.head.Load()
	for v != nil && v.rev > rev {
		if s := v.skip.Load(); s != nil && s.rev > rev {
			v = s
		} else {
			v = v.next.Load()
		}
	}
	return v
}

// link chains v after prev, its predecessor in the key's chain, and sets
// its skip pointer: to the version whose sequence number is v.seq with its
// lowest set bit cleared (a Fenwick-style jump), found in O(log) steps.
func (v *version[T]) link(prev *version[T]) {
	v.next.Store(prev)
	if prev == nil {
		v.seq = 1
		return
	}
	v.seq = prev.seq + 1
	t := v.seq & (v.seq - 1)
	w := prev
	for w != nil && w.seq > t {
		if s := w.skip.Load(); s != nil && s.seq >= t {
			w = s
		} else {
			w = w.next.Load()
		}
	}
	if w != nil && w.seq == t {
		v.skip.Store(w)
	}
}

// version is one immutable state of a key. obj is never modified once the
// version is published. For a deletion (dead), obj is the last state with
// its resourceVersion set to rev, as watchers receive it.
//
// next points to the previous version and skip to an older one (see
// link). They are the only mutable fields: compaction cuts them (stores
// nil) once what they point to is older than every readable revision.
// Readers therefore check the compaction revision after walking a chain
// (see Store.validate).
type version[T meta.Object] struct {
	rev   uint64
	seq   uint64 // position in the key's chain, 1 for its first version
	obj   T
	entry *entry[T]
	next  atomic.Pointer[version[T]]
	skip  atomic.Pointer[version[T]]
	// forms caches serialized forms of obj, one per Encoding and one per
	// watch encoder and event type; lazily initialized.
	forms atomic.Pointer[form[T]]
	// bytes is what the version is charged in Store.histBytes: its
	// object's estimated size plus its cached forms, or -1 once
	// compaction has taken it out of the history (forms cached later are
	// not history's).
	bytes atomic.Int64
	dead  bool
	flip  bool // created or deleted the key: it is in the key's flip logs
}

// An Encoding is one serialized form of stored objects, e.g. JSON for
// application/json. Create one per form with NewEncoding and keep it: the
// pointer is the cache key, so each stored version is encoded at most once
// per Encoding however many list pages serve it.
type Encoding[T any] struct {
	appendFn func(dst []byte, obj T) ([]byte, error)
}

// NewEncoding returns an Encoding that serializes with appendFn, which
// appends the form of obj to dst. appendFn must not modify obj and must be
// deterministic: its result is cached and shared. An error is not cached:
// the next caller tries again (a custom resource's conversion webhook may
// be back by then).
func NewEncoding[T any](appendFn func(dst []byte, obj T) ([]byte, error)) *Encoding[T] {
	return &Encoding[T]{appendFn: appendFn}
}

// Append appends the form of obj to dst without caching.
func (e *Encoding[T]) Append(dst []byte, obj T) ([]byte, error) { return e.appendFn(dst, obj) }

// form is one cached serialization, in a lock-free list per version.
type form[T meta.Object] struct {
	key  formKey
	done atomic.Bool // b is the form
	mu   sync.Mutex  // held while computing b
	b    []byte
	next *form[T]
}

// get returns f's form, computing it with appendFn unless a caller did:
// concurrent first callers compute it once; an error is returned to the
// callers that computed it, and not kept.
func (f *form[T]) get(s *Store[T], v *version[T], appendFn func() ([]byte, error)) ([]byte, error) {
	if f.done.Load() {
		return f.b, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done.Load() {
		return f.b, nil
	}
	b, err := appendFn()
	if err != nil {
		return nil, err
	}
	f.b = b
	f.done.Store(true)
	s.charge(v, formOverhead+cap(b))
	return b, nil
}

// formKey names a serialized form: an *Encoding (typ ""), or a watch
// encoder and event type. Watch encoders are comparable, as package watch
// requires.
type formKey struct {
	enc any
	typ watch.EventType
}

// form returns v's cache cell for k. Concurrent first callers agree on one
// cell (CompareAndSwap); the caller computes its form once (form.get).
func (v *version[T]) form(k formKey) *form[T] {
	for {
		head := v.forms.Load()
		for c := head; c != nil; c = c.next {
			if c.key == k {
				return c
			}
		}
		c := &form[T]{key: k, next: head}
		if v.forms.CompareAndSwap(head, c) {
			return c
		}
	}
}

// encoded returns v's form for enc, computing it at most once.
func (s *Store[T]) encoded(v *version[T], enc *Encoding[T]) ([]byte, error) {
	return v.form(formKey{enc: enc}).get(s, v, func() ([]byte, error) { return enc.appendFn(nil, v.obj) })
}

// encodedEvent returns v's watch event of type typ serialized by enc,
// computing it at most once.
func (s *Store[T]) encodedEvent(v *version[T], enc watch.Encoder[T], typ watch.EventType) ([]byte, error) {
	return v.form(formKey{enc, typ}).get(s, v, func() ([]byte, error) { return enc.AppendEvent(nil, typ, v.obj) })
}

// charge adds n bytes to v's charge and to the history's, unless
// compaction has taken v out of the history.
func (s *Store[T]) charge(v *version[T], n int) {
	for {
		b := v.bytes.Load()
		if b < 0 {
			return
		}
		if v.bytes.CompareAndSwap(b, b+int64(n)) {
			s.histBytes.Add(int64(n))
			return
		}
	}
}

// Encoded returns obj serialized by enc, from the cache of its stored
// version when obj is a stored object written after the compaction
// revision (an object of a watch event or snapshot, a Page.View, a
// ReadOnlyResult), so that list pages and watchers share one encoding per
// version. Any other object, such as a copy returned by Get, is encoded
// without caching: a copy may have been changed. The result must not be
// modified.
func (s *Store[T]) Encoded(obj T, enc *Encoding[T]) ([]byte, error) {
	if v := s.storedVersion("", obj); v != nil {
		return s.encoded(v, enc)
	}
	return enc.appendFn(nil, obj)
}

// EncodedEvent implements watch.EventCache: the event of type typ with
// object obj, serialized by enc once per stored version, encoder and type,
// and shared by every watcher, be it the live stream, a watcher's initial
// events or its catch-up. obj must be an object the Store returned, stored
// under key; any other object is encoded without caching. enc must be
// comparable (package watch requires it): it keys the cache. The
// encodings live as long as their versions.
func (s *Store[T]) EncodedEvent(enc watch.Encoder[T], typ watch.EventType, key string, obj T) ([]byte, error) {
	if v := s.storedVersion(key, obj); v != nil {
		return s.encodedEvent(v, enc, typ)
	}
	return enc.AppendEvent(nil, typ, obj)
}

// storedVersion returns the version whose object is obj itself, found
// through obj's resourceVersion in the history or, if key is not "", in
// key's version chain (which reaches versions older than the compaction
// revision that are still current); nil if there is none.
func (s *Store[T]) storedVersion(key string, obj T) *version[T] {
	m := obj.Meta()
	r, err := strconv.ParseUint(m.ResourceVersion, 10, 64)
	if err != nil {
		return nil
	}
	var v *version[T]
	cur := s.rev.Load() // before the history, which then has every slot up to cur
	if h := s.hist.Load(); r >= h.base && r <= cur {
		for _, w := range h.after(r - 1) {
			if w.rev != r {
				break
			}
			if w.obj.Meta() == m {
				return w
			}
		}
		return nil
	} else if key != "" {
		if e := s.idx.Load().get(key); e != nil {
			if v = e.upTo(r); v != nil && v.rev != r {
				v = nil
			}
		}
	}
	if v != nil && v.obj.Meta() == m {
		return v
	}
	return nil
}
