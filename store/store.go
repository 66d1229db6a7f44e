package store

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/paging"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// Options configure a Store. The zero value of every field means the
// default written next to it.
type Options[T meta.Object] struct {
	// DeepCopy returns a copy of an object that shares no memory with it.
	// nil means T's own DeepCopy() T method, which T must then have (New
	// panics otherwise; set DeepCopy when T is an interface type).
	DeepCopy func(T) T

	// Equal reports whether two states of an object are the same. When
	// set, an update that changes nothing is not written (no new
	// resourceVersion, no event), as Kubernetes skips identical writes.
	// Both arguments carry the same resourceVersion. nil means every
	// update is written.
	Equal func(a, b T) bool

	// Now is the clock for creation and deletion timestamps and for the
	// retention window. nil means time.Now.
	Now func() time.Time

	// Rand is the source of uids and generated names. nil means
	// crypto/rand.
	Rand io.Reader

	// HistoryWindow is how long history is kept: revisions older than
	// this are compacted (as etcd's 5-minute compaction does). 0 means 5
	// minutes; negative means no time limit.
	HistoryWindow time.Duration

	// MaxRevisions caps the number of revisions kept in history. 0 means
	// no cap.
	MaxRevisions uint64

	// MaxHistoryBytes caps the memory history keeps: the estimated size
	// of every version written after the compaction revision (its object,
	// see Size, and the encodings cached for it). A write that takes
	// history past it compacts the oldest revisions, which then answer
	// 410 Gone as if their time had passed. 0 means
	// DefaultMaxHistoryBytes; negative means no byte limit.
	MaxHistoryBytes int64

	// Size estimates the bytes an object keeps in memory, for
	// MaxHistoryBytes. It is called once per write, with the writer lock
	// held. nil means an estimate that walks the object's strings, slices,
	// maps and pointers; set it when objects share memory (the walk would
	// count it each time) or when a cheaper estimate is at hand.
	Size func(T) int

	// FutureWait is how long a read of a revision the store has not
	// reached waits before failing with 504 "Too large resource version".
	// 0 means 3 seconds (Kubernetes' watch cache); negative means no wait.
	// It has the name and meaning of watch.Options.FutureWait.
	FutureWait time.Duration

	// Paging encodes and decodes continue tokens. nil means unsigned
	// tokens without an age limit (a zero paging.Codec).
	Paging *paging.Codec

	// StoragePrefix is the prefix of the keys of the storage the objects
	// live in, as kube-apiserver's --etcd-prefix: errors that name an
	// object's etcd key (the 409 of a failed storage precondition) begin
	// with it. "" means "/registry", kube-apiserver's default; a replica
	// of etcd (package etcdstore) sets its own etcd prefix.
	StoragePrefix string
}

// Store is an in-memory, versioned keyspace. See the package
// documentation. A Store must be created with New.
type Store[T meta.Object] struct {
	copyFn     func(T) T
	equal      func(a, b T) bool
	now        func() time.Time
	random     io.Reader
	window     time.Duration
	maxRevs    uint64
	maxBytes   int64 // 0: no byte limit
	size       func(T) int
	futureWait time.Duration
	codec      *paging.Codec
	prefix     string // Options.StoragePrefix, without a trailing "/"

	// Published state, read lock-free. The writer stores idx and hist
	// before rev, so a reader that loads rev first and then idx or hist
	// sees at least everything written up to that revision.
	rev       atomic.Uint64
	compacted atomic.Uint64
	idx       atomic.Pointer[index[T]]
	hist      atomic.Pointer[history[T]]
	notify    atomic.Pointer[notifier] // next commit; lazily initialized by Changed
	nFuture   atomic.Int64             // len(future)
	// histBytes is the sum of the charges of the versions in the history
	// (see version.bytes): the writer adds a version's object, readers
	// the encodings they cache, compaction takes the charges back.
	histBytes atomic.Int64

	futureMu sync.Mutex // guards future; taken after mu when both are held
	future   []futureWaiter

	// mu is the writer lock. Fields below are guarded by it.
	mu      sync.Mutex
	txID    uint64
	histN   int // versions in the published history
	histCut int // versions cut from the front of the history's array
	marks   []timeMark
	randMu  sync.Mutex // guards random and uidBuf (uids may be made outside mu)
	// uidBuf receives a uid's random bytes: a buffer passed to an
	// io.Reader escapes, and one per create was an allocation.
	uidBuf [16]byte
	// flipLogs are the flip logs of the collections with entries in the
	// index, by collection prefix (see flips.go); cutting is compaction's
	// scratch list of the logs it cuts.
	flipLogs map[string]*flipLog[T]
	cutting  []*flipLog[T]
	// expiry compacts expired history when no write does (see
	// armExpiryLocked); armed says it is pending, closed that Close
	// stopped it for good.
	expiry        *time.Timer
	armed, closed bool
}

// history holds the versions written after the compaction revision,
// oldest first: one per revision for the store's own writes; a Store fed
// by Apply may skip revisions (written elsewhere) and hold several
// versions of one revision. Readers see arr[:n]; the writer appends past
// n in place and publishes a new history only when it reallocates or
// compacts.
type history[T meta.Object] struct {
	base uint64 // every version with a revision >= base is in the history
	arr  []*version[T]
	n    atomic.Int64 // published length of arr
}

func newHistory[T meta.Object](base uint64, arr []*version[T]) *history[T] {
	h := &history[T]{base: base, arr: arr}
	h.n.Store(int64(len(arr)))
	return h
}

// after returns the published versions with a revision greater than a.
// The store's own writes leave no gaps, so the position is usually
// computed; otherwise it is searched.
func (h *history[T]) after(a uint64) []*version[T] {
	vs := h.arr[:cap(h.arr)][:h.n.Load()]
	if len(vs) == 0 || vs[0].rev > a {
		return vs
	}
	if i := a + 1 - vs[0].rev; i < uint64(len(vs)) && vs[i].rev == a+1 && vs[i-1].rev <= a {
		return vs[i:]
	}
	i := sort.Search(len(vs), func(i int) bool { return vs[i].rev > a })
	return vs[i:]
}

// timeMark records that every revision up to rev was written at or before t.
type timeMark struct {
	rev uint64
	t   time.Time
}

// DefaultMaxHistoryBytes is the default of Options.MaxHistoryBytes: 256
// MiB, room for the default 5-minute window at about 1,000 writes a second
// of objects of a few hundred bytes, or an hour of a quieter server. (etcd,
// which keeps the state and history of a whole cluster, has a 2 GiB
// default quota.)
const DefaultMaxHistoryBytes = 256 << 20

// DefaultStoragePrefix is kube-apiserver's default --etcd-prefix, the
// prefix of the keys a Store names when Options.StoragePrefix is "".
const DefaultStoragePrefix = "/registry"

const (
	defaultHistoryWindow = 5 * time.Minute
	defaultFutureWait    = 3 * time.Second
	// autoCompactBatch is how many expired revisions accumulate before a
	// write compacts them, so that compaction is amortized over writes.
	autoCompactBatch = 16
	// autoCompactMax bounds the compaction work one write does.
	autoCompactMax = 1024
)

// New returns an empty Store at revision 0.
func New[T meta.Object](opts Options[T]) *Store[T] {
	s := &Store[T]{
		copyFn:     opts.DeepCopy,
		equal:      opts.Equal,
		now:        opts.Now,
		random:     opts.Rand,
		window:     opts.HistoryWindow,
		maxRevs:    opts.MaxRevisions,
		maxBytes:   opts.MaxHistoryBytes,
		size:       opts.Size,
		futureWait: opts.FutureWait,
		codec:      opts.Paging,
		prefix:     strings.TrimSuffix(cmp.Or(opts.StoragePrefix, DefaultStoragePrefix), "/"),
		flipLogs:   map[string]*flipLog[T]{},
	}
	if s.copyFn == nil {
		var zero T
		if _, ok := any(zero).(interface{ DeepCopy() T }); !ok {
			panic(fmt.Sprintf("store: %T has no DeepCopy() %[1]T method and Options.DeepCopy is nil", zero))
		}
		s.copyFn = func(o T) T { return any(o).(interface{ DeepCopy() T }).DeepCopy() }
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.random == nil {
		s.random = rand.Reader
	}
	if s.window == 0 {
		s.window = defaultHistoryWindow
	}
	switch {
	case s.maxBytes == 0:
		s.maxBytes = DefaultMaxHistoryBytes
	case s.maxBytes < 0:
		s.maxBytes = 0
	}
	if s.size == nil {
		s.size = func(o T) int { return estimateSize(o) }
	}
	if s.futureWait == 0 {
		s.futureWait = defaultFutureWait
	}
	if s.codec == nil {
		s.codec = &paging.Codec{}
	}
	s.idx.Store(&index[T]{})
	s.hist.Store(newHistory(1, make([]*version[T], 0, 64)))
	return s
}

// StoragePrefix returns the prefix of the storage's keys
// (Options.StoragePrefix, "/registry" by default, without a trailing
// "/"), which errors naming an object's etcd key begin with.
func (s *Store[T]) StoragePrefix() string { return s.prefix }

// Revision returns the latest committed revision.
func (s *Store[T]) Revision() rv.Version { return rv.Version(s.rev.Load()) }

// CompactedRevision returns the compaction revision: the oldest revision
// still readable. Reads and watches at older revisions get 410 Gone.
func (s *Store[T]) CompactedRevision() rv.Version { return rv.Version(s.compacted.Load()) }

// closedCh is returned by Changed when there is nothing to wait for.
var closedCh = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Changed returns a channel that is closed as soon as the latest
// committed revision is greater than after (at once if it already is).
// Each commit publishes its state before it closes channels, so a woken
// reader sees the new revision.
func (s *Store[T]) Changed(after rv.Version) <-chan struct{} {
	a := uint64(after)
	for {
		cur := s.rev.Load()
		switch {
		case cur > a:
			return closedCh
		case cur < a:
			return s.futureChan(a)
		}
		p := s.notify.Load()
		switch {
		case p != nil && p.after == a:
		case p == nil:
			n := &notifier{after: a, ch: make(chan struct{})}
			if !s.notify.CompareAndSwap(nil, n) {
				continue
			}
			p = n
		default:
			// p waits past an older revision, which is reached: a commit
			// is about to close it. Take its place and close it here.
			n := &notifier{after: a, ch: make(chan struct{})}
			if !s.notify.CompareAndSwap(p, n) {
				continue
			}
			close(p.ch)
			p = n
		}
		// A commit publishes its revision before it looks at s.notify:
		// either it sees p or we see its revision here.
		if s.rev.Load() > a {
			return closedCh
		}
		return p.ch
	}
}

// notifier is the channel of the waiters for the first commit after
// revision after.
type notifier struct {
	after uint64
	ch    chan struct{}
}

// futureWaiter is a channel to close once the revision exceeds after.
type futureWaiter struct {
	after uint64
	ch    chan struct{}
}

// maxFutureWaiters bounds the distinct future revisions Changed keeps
// channels for, so that clients asking for ever larger revisions cannot
// grow the list without end. Past it, Changed falls back to the channel of
// the next commit: a wake-up before the revision is reached, which a
// waiting loop tolerates.
const maxFutureWaiters = 1024

// futureChan returns a channel closed once the revision exceeds a, which is
// beyond the next commit.
func (s *Store[T]) futureChan(a uint64) <-chan struct{} {
	s.futureMu.Lock()
	var ch chan struct{}
	for _, w := range s.future {
		if w.after == a {
			ch = w.ch
		}
	}
	if ch == nil && len(s.future) >= maxFutureWaiters {
		s.futureMu.Unlock()
		return s.Changed(rv.Version(s.rev.Load()))
	}
	if ch == nil {
		ch = make(chan struct{})
		s.future = append(s.future, futureWaiter{a, ch})
		s.nFuture.Store(int64(len(s.future)))
	}
	s.futureMu.Unlock()
	// Registered before this check: a commit past a either sees the
	// waiter or we see its revision.
	if s.rev.Load() > a {
		return closedCh
	}
	return ch
}

// wakeLocked closes the channels of everyone waiting for a revision below
// rev. s.mu must be held.
func (s *Store[T]) wakeLocked(rev uint64) {
	for {
		p := s.notify.Load()
		if p == nil || p.after >= rev {
			break
		}
		if s.notify.CompareAndSwap(p, nil) {
			close(p.ch)
			break
		}
	}
	if s.nFuture.Load() == 0 {
		return
	}
	s.futureMu.Lock()
	keep := s.future[:0]
	for _, w := range s.future {
		if w.after < rev {
			close(w.ch)
		} else {
			keep = append(keep, w)
		}
	}
	clear(s.future[len(keep):])
	s.future = keep
	s.nFuture.Store(int64(len(keep)))
	s.futureMu.Unlock()
}

// waitFor waits until the store reaches revision n, for at most
// FutureWait, and returns the current revision. It fails with the 504
// "Too large resource version" (retry after 1 s) if n is not reached.
func (s *Store[T]) waitFor(ctx context.Context, n uint64) (uint64, error) {
	cur := s.rev.Load()
	if cur >= n {
		return cur, nil
	}
	if s.futureWait > 0 {
		t := time.NewTimer(s.futureWait)
		defer t.Stop()
	wait:
		for {
			select {
			case <-s.Changed(rv.Version(cur)):
				if cur = s.rev.Load(); cur >= n {
					return cur, nil
				}
			case <-t.C:
				break wait
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		cur = s.rev.Load()
		if cur >= n {
			return cur, nil
		}
	}
	return 0, status.NewTooLargeResourceVersion(n, cur, 1).Wrap(rv.ErrFutureRevision)
}

// validate reports whether a read at revision r is still good after the
// reader walked version chains: compaction may have cut chains older than
// its revision while the reader was walking them.
func (s *Store[T]) validate(r uint64) bool { return s.compacted.Load() <= r }

// compactedError returns the *rv.CompactedError for a read at r.
func (s *Store[T]) compactedError(r uint64) *rv.CompactedError {
	return &rv.CompactedError{Requested: rv.Version(r), Compacted: rv.Version(s.compacted.Load())}
}

// commitLocked writes obj as the next version of e and publishes it: the
// version chain, the index if the key's liveness changed, the history,
// then the revision, then wakes waiters. isNew means e is not in the
// index yet. s.mu must be held.
func (s *Store[T]) commitLocked(e *entry[T], isNew bool, obj T, dead bool) *version[T] {
	rev := s.rev.Load() + 1
	v := s.writeLocked(e, isNew, obj, dead, rev)
	s.publishLocked(rev)
	return v
}

// writeLocked writes obj as the version of e at revision rev, which is
// not published yet: the version chain, the index if the key's liveness
// changed, and the history. s.mu must be held.
func (s *Store[T]) writeLocked(e *entry[T], isNew bool, obj T, dead bool, rev uint64) *version[T] {
	obj.Meta().ResourceVersion = strconv.FormatUint(rev, 10)
	v := &version[T]{rev: rev, obj: obj, entry: e, dead: dead}
	n := int64(versionOverhead + s.size(obj))
	v.bytes.Store(n)
	s.histBytes.Add(n)
	prev := e.head.Load()
	v.link(prev)
	var nx *index[T]
	if v.flip = (prev != nil && !prev.dead) == dead; v.flip {
		s.txID++
		tx := indexTx[T]{x: *s.idx.Load(), id: s.txID}
		if isNew {
			e.flips = s.flipLogLocked(e.key)
			tx.insert(e, !dead)
		} else {
			tx.setLive(e.key, !dead)
		}
		s.appendFlipLocked(v)
		tx.x.rev = rev
		nx = &tx.x
	}
	e.head.Store(v)
	s.appendHistoryLocked(v)
	if nx != nil {
		s.idx.Store(nx)
	}
	return v
}

// publishLocked makes rev the latest revision, wakes its waiters and
// applies the retention settings. s.mu must be held.
func (s *Store[T]) publishLocked(rev uint64) {
	s.rev.Store(rev)
	s.wakeLocked(rev)
	s.retainLocked(rev)
}

// appendHistoryLocked adds v (the newest version) to the history.
func (s *Store[T]) appendHistoryLocked(v *version[T]) {
	h := s.hist.Load()
	if s.histN < cap(h.arr) {
		h.arr[:s.histN+1][s.histN] = v
		s.histN++
		h.n.Store(int64(s.histN))
		return
	}
	arr := make([]*version[T], s.histN+1, 2*s.histN+64)
	copy(arr, h.arr[:s.histN])
	arr[s.histN] = v
	s.histN++
	s.hist.Store(newHistory(h.base, arr))
}

// retainLocked applies the retention settings after the write of rev.
func (s *Store[T]) retainLocked(rev uint64) {
	now := s.now()
	if s.window > 0 {
		if n := len(s.marks); n == 0 || now.Sub(s.marks[n-1].t) >= s.markEvery() {
			s.marks = append(s.marks, timeMark{rev: rev, t: now})
		}
	}
	c := s.compacted.Load()
	target, byBytes := s.expiredLocked(now)
	switch {
	case byBytes:
		// The byte limit is a limit: no batching, no cap on the work.
		s.compactLocked(target)
	case target >= c+autoCompactBatch:
		s.compactLocked(min(target, c+autoCompactMax))
	}
	s.armExpiryLocked(now)
}

// markEvery is the spacing of the time marks, the precision of the
// retention window.
func (s *Store[T]) markEvery() time.Duration { return min(time.Second, s.window/16) }

// expiredLocked returns the compaction revision the retention settings
// ask for now, and whether the byte limit is exceeded. Past the byte
// limit the target leaves history a sixteenth under it, so that the next
// writes do not each compact a revision. s.mu must be held.
func (s *Store[T]) expiredLocked(now time.Time) (target uint64, byBytes bool) {
	rev := s.rev.Load()
	if s.maxRevs > 0 && rev > s.maxRevs {
		target = rev - s.maxRevs
	}
	if s.window > 0 {
		cut := now.Add(-s.window)
		for _, m := range s.marks {
			if m.t.After(cut) {
				break
			}
			target = max(target, m.rev)
		}
		if n := len(s.marks); n > 0 && !s.marks[n-1].t.After(cut) {
			target = rev // nothing was written within the window
		}
	}
	if s.maxBytes > 0 && s.histBytes.Load() > s.maxBytes {
		byBytes = true
		excess := s.histBytes.Load() - (s.maxBytes - s.maxBytes/16)
		// Whole revisions go: compaction keeps none of a revision's
		// versions below the target, and a Store fed by Apply may have
		// several.
		h := s.hist.Load()
		for _, v := range h.arr[:s.histN] {
			if excess <= 0 {
				break
			}
			excess -= max(v.bytes.Load(), 0)
			target = max(target, v.rev)
		}
	}
	return target, byBytes
}

// armExpiryLocked arms the expiry timer, unless it is pending, for when
// the oldest time mark leaves the window: an idle store frees its expired
// history too, and a busy one, whose writes compact, pays one wake-up per
// mark interval at most. No goroutine waits meanwhile (time.AfterFunc).
// s.mu must be held.
func (s *Store[T]) armExpiryLocked(now time.Time) {
	if s.window <= 0 || s.armed || s.closed || len(s.marks) == 0 {
		return
	}
	d := max(s.marks[0].t.Add(s.window).Sub(now), s.markEvery())
	s.armed = true
	if s.expiry == nil {
		s.expiry = time.AfterFunc(d, s.expire)
	} else {
		s.expiry.Reset(d)
	}
}

// expire is the expiry timer's function.
func (s *Store[T]) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.armed = false
	if s.closed {
		return
	}
	now := s.now()
	target, _ := s.expiredLocked(now)
	s.compactLocked(target)
	s.armExpiryLocked(now)
}

// Close stops the timer that expires history while no write does; it does
// not wait for anything else and the store stays usable (writes and
// CompactExpired still compact). Call it when the store is no longer
// needed, so that the timer does not keep it reachable until the window
// passes. Close may be called more than once.
func (s *Store[T]) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.expiry != nil {
		s.expiry.Stop()
		s.armed = false
	}
}

// Compact discards history up to revision rev (clamped to the current
// revision): afterwards the oldest readable revision is rev, older reads
// answer 410 Gone and a watch must start at rev or later. It returns the
// compaction revision. Compacting an already compacted revision does
// nothing.
func (s *Store[T]) Compact(rev rv.Version) rv.Version {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactLocked(min(uint64(rev), s.rev.Load()))
	return rv.Version(s.compacted.Load())
}

// CompactExpired compacts what the retention settings (HistoryWindow,
// MaxRevisions, MaxHistoryBytes) allow now and returns the compaction
// revision. Writes do this on their own, and a timer for an idle store;
// call it to expire history at a moment of one's choosing.
func (s *Store[T]) CompactExpired() rv.Version {
	s.mu.Lock()
	defer s.mu.Unlock()
	target, _ := s.expiredLocked(s.now())
	s.compactLocked(target)
	return rv.Version(s.compacted.Load())
}

// HistoryBytes returns the estimated memory history keeps (see
// Options.MaxHistoryBytes).
func (s *Store[T]) HistoryBytes() int64 { return s.histBytes.Load() }

// compactLocked makes c the compaction revision. It publishes c first,
// then cuts every version chain below it, so a reader that sees a cut
// chain also sees c and fails its validation instead of returning a
// partial answer.
func (s *Store[T]) compactLocked(c uint64) {
	old := s.compacted.Load()
	if c <= old {
		return
	}
	s.compacted.Store(c)
	h := s.hist.Load()
	s.txID++
	tx := indexTx[T]{x: *s.idx.Load(), id: s.txID}
	changed := false
	drop := 0
	for _, v := range h.arr[:s.histN] {
		if v.rev > c {
			break
		}
		drop++
		s.histBytes.Add(-v.bytes.Swap(-1))
		// Every older version of v's key is superseded by v, which is
		// itself readable at c: nobody can reach them any more.
		v.next.Store(nil)
		v.skip.Store(nil)
		if v.flip {
			// No read counts at c or before any more.
			s.dropFlipLocked(v)
		}
		if v.dead && v.entry.head.Load() == v {
			tx.remove(v.entry.key) // deleted at or before c, never re-created
			s.releaseLogLocked(v.entry.flips)
			changed = true
		}
	}
	s.cutFlipsLocked()
	if changed {
		tx.x.rev = s.rev.Load()
		s.idx.Store(&tx.x)
	}
	// Drop the history up to c.
	arr := afterCut(h.arr[drop:s.histN], &s.histCut, drop, 64)
	s.histN = len(arr)
	s.hist.Store(newHistory(c+1, arr))
	i := 0
	for i < len(s.marks) && s.marks[i].rev <= c {
		i++
	}
	s.marks = s.marks[i:]
}

// afterCut returns rest, what is left of an array of versions after
// compaction cut n of them from its front, copied into a new array (with
// room to grow) when the old one would keep too many compacted versions
// reachable: once the versions cut from it (*cut, updated here) exceed a
// quarter of rest, or rest fills under a quarter of it. Readers may still
// hold the old array, so it is never cleared, only dropped. The copies cost
// O(1) per compacted version, amortized.
func afterCut[T meta.Object](rest []*version[T], cut *int, n, room int) []*version[T] {
	*cut += n
	if *cut <= len(rest)/4 && len(rest) >= cap(rest)/4 {
		return rest
	}
	*cut = 0
	return append(make([]*version[T], 0, 2*len(rest)+room), rest...)
}

// newUID returns a random (version 4) UUID.
func (s *Store[T]) newUID() (string, error) {
	s.randMu.Lock()
	_, err := io.ReadFull(s.random, s.uidBuf[:])
	b := s.uidBuf
	s.randMu.Unlock()
	if err != nil {
		return "", status.NewInternalError(fmt.Errorf("store: generating a uid: %w", err))
	}
	return meta.UUIDv4(b), nil
}

// nameAlphabet is Kubernetes' alphabet for generated names: no vowels,
// no look-alike characters.
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// generateName returns base (cut to 58 bytes) plus 5 random characters,
// as Kubernetes' SimpleNameGenerator.
func (s *Store[T]) generateName(base string) (string, error) {
	const maxBase = 63 - 5
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	out := make([]byte, len(base), len(base)+5)
	copy(out, base)
	var b [16]byte
	s.randMu.Lock()
	defer s.randMu.Unlock()
	for len(out) < len(base)+5 {
		if _, err := io.ReadFull(s.random, b[:]); err != nil {
			return "", status.NewInternalError(fmt.Errorf("store: generating a name: %w", err))
		}
		for _, x := range b {
			// 243 = 9*27: rejecting the rest keeps the choice uniform.
			if x < 243 && len(out) < len(base)+5 {
				out = append(out, nameAlphabet[int(x)%len(nameAlphabet)])
			}
		}
	}
	return string(out), nil
}
