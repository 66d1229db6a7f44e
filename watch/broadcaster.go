package watch

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apisem/apisem/rv"
)

// ObjectFuncs tells a Broadcaster how to make the two kinds of objects it
// creates itself. Both functions are required.
type ObjectFuncs[T any] struct {
	// Bookmark returns the object of a BOOKMARK event at rev: the zero
	// value of the resource type with only metadata.resourceVersion set
	// and, when initialEventsEnd is true, the annotation
	// "k8s.io/initial-events-end": "true".
	Bookmark func(rev rv.Version, initialEventsEnd bool) T
	// WithVersion returns a copy of obj whose metadata.resourceVersion is
	// rev, leaving obj unchanged. A watcher whose selector an object stops
	// matching receives DELETED with the object's previous state at the
	// revision of the update that moved it out.
	WithVersion func(obj T, rev rv.Version) T
}

// Options configures a Broadcaster. The zero value means the defaults
// listed with each field.
type Options struct {
	// BookmarkInterval is the period of BOOKMARK events for watchers that
	// allow them. Zero means one minute, as Kubernetes does.
	BookmarkInterval time.Duration
	// MinTimeout sets the window of a watch without timeoutSeconds: it ends
	// after a random duration in [MinTimeout, 2×MinTimeout). Zero means 30
	// minutes, Kubernetes' default (a random 30 to 60 minutes).
	MinTimeout time.Duration
	// FutureWait is how long a watch with resourceVersionMatch=NotOlderThan
	// waits for the Source to reach its resourceVersion before it fails
	// with the 504 "Too large resource version". Zero means 3 seconds
	// (Kubernetes' watch cache); negative means no wait. It has the name
	// and meaning of store.Options.FutureWait.
	FutureWait time.Duration
	// Buffer is how many events may be queued for a watcher that has not
	// taken them yet; when it is full the watcher is parked (see the
	// package documentation). Zero means 128.
	Buffer int
	// RecentEvents is how many recent events the broadcaster keeps in
	// memory. Parked watchers resume from them, sharing their encodings,
	// and read older events from the Source. Zero means 1024.
	RecentEvents int
}

const (
	defaultBookmarkInterval = time.Minute
	defaultMinTimeout       = 30 * time.Minute
	defaultFutureWait       = 3 * time.Second
	defaultBuffer           = 128
	defaultRecentEvents     = 1024

	// bookmarkBeforeTimeout: a watch that allows bookmarks gets one this
	// long before its timeout, so that the client resumes from a recent
	// revision (Kubernetes uses 2 s).
	bookmarkBeforeTimeout = 2 * time.Second
	// maxBatch bounds how many events the dispatcher reads and fans out at
	// once (also bounded by Buffer, so a batch never parks an idle watcher).
	maxBatch = 256
	// sourceRetry is how long the dispatcher waits after a Source error
	// other than compaction before it asks again.
	sourceRetry = time.Second
	// tooLargeRetrySeconds is the Retry-After of the 504 for a NotOlderThan
	// watch whose revision did not arrive in time (Kubernetes uses 1).
	tooLargeRetrySeconds = 1
)

func (o Options) withDefaults() Options {
	if o.BookmarkInterval <= 0 {
		o.BookmarkInterval = defaultBookmarkInterval
	}
	if o.MinTimeout <= 0 {
		o.MinTimeout = defaultMinTimeout
	}
	if o.FutureWait == 0 {
		o.FutureWait = defaultFutureWait
	}
	if o.Buffer <= 0 {
		o.Buffer = defaultBuffer
	}
	if o.RecentEvents <= 0 {
		o.RecentEvents = defaultRecentEvents
	}
	return o
}

// Stats is a snapshot of a Broadcaster's state, for metrics and tests.
type Stats struct {
	// Revision is the revision the broadcaster has dispatched up to.
	Revision rv.Version
	// Watchers is the number of watchers not yet stopped.
	Watchers int
	// Live is the number of watchers receiving events as they happen;
	// the others are starting, parked or catching up from history.
	Live int
	// Parks counts the times a watcher's buffer was full and it was parked.
	Parks uint64
	// Expired counts the watchers ended with the 410 because history had
	// been compacted past their position.
	Expired uint64
}

// Broadcaster serves watches of one Source: a single dispatcher goroutine
// reads the Source's events and hands each to every live watcher. Create it
// with NewBroadcaster and end it with Close.
type Broadcaster[T any] struct {
	src  Source[T]
	objs ObjectFuncs[T]
	// cache is src as an EventCache, nil if it is not one.
	cache EventCache[T]
	opts  Options
	// batch is the dispatcher's read size: min(maxBatch, Buffer).
	batch int

	closing   chan struct{} // closed by Close to stop the dispatcher
	done      chan struct{} // closed when the dispatcher has returned
	closeOnce sync.Once

	// end is the revision set by CloseAfter: watches end once they have
	// been given every event up to it. ending is closed when it is set.
	end     atomic.Pointer[rv.Version]
	ending  chan struct{}
	endOnce sync.Once

	// evPool recycles the event buffers parked watchers read history into.
	evPool sync.Pool

	parks   atomic.Uint64
	expired atomic.Uint64
	// bookmark is the last periodic bookmark made, shared by the watchers
	// that reach the same revision so that it is encoded once.
	bookmark atomic.Pointer[Message[T]]

	// mu guards the fields below. Lock order: Broadcaster.mu before
	// Watcher.mu. The dispatcher holds mu for a whole fan-out, so a
	// watcher joining the live set sees a batch either entirely or not
	// at all.
	mu     sync.Mutex
	closed bool
	// dispatched is the revision up to which every event has been put in
	// the window and handed to every live watcher.
	dispatched rv.Version
	// live are the watchers that receive each batch; Watcher.liveIdx is
	// each one's index.
	live []*Watcher[T]
	// watchers holds every watcher not yet stopped (for Close and Stats).
	watchers map[*Watcher[T]]struct{}
	// win is a ring of the most recent events: winLen entries from
	// winHead. It holds every event after winBase up to dispatched.
	win     []*entry[T]
	winHead int
	winLen  int
	winBase rv.Version
}

// entry is one Source event as the broadcaster shares it among watchers.
type entry[T any] struct {
	// msg is the event as the Source reported it, which is what most
	// watchers receive.
	msg  Message[T]
	prev T
	// added and deleted are the variants of a MODIFIED event for watchers
	// whose selector the object starts or stops matching, made the first
	// time a watcher needs them.
	added   atomic.Pointer[Message[T]]
	deleted atomic.Pointer[Message[T]]
}

// NewBroadcaster returns a Broadcaster for src and starts its dispatcher,
// which runs until Close. objs must have both functions set.
func NewBroadcaster[T any](src Source[T], objs ObjectFuncs[T], opts Options) *Broadcaster[T] {
	if objs.Bookmark == nil || objs.WithVersion == nil {
		panic("watch: NewBroadcaster needs ObjectFuncs.Bookmark and ObjectFuncs.WithVersion")
	}
	opts = opts.withDefaults()
	b := &Broadcaster[T]{
		src:      src,
		objs:     objs,
		opts:     opts,
		batch:    min(maxBatch, opts.Buffer),
		closing:  make(chan struct{}),
		done:     make(chan struct{}),
		ending:   make(chan struct{}),
		watchers: make(map[*Watcher[T]]struct{}),
		win:      make([]*entry[T], opts.RecentEvents),
	}
	b.cache, _ = src.(EventCache[T])
	b.dispatched = src.Revision()
	b.winBase = b.dispatched
	go b.run()
	return b
}

// Close ends every watch of b (their Next returns false) and stops the
// dispatcher. It returns when the dispatcher has stopped; it does not wait
// for consumers, which only need to notice the end of their stream. Watch
// after Close returns a watcher whose stream is already over.
func (b *Broadcaster[T]) Close() {
	b.closeOnce.Do(func() { close(b.closing) })
	<-b.done
	b.mu.Lock()
	b.closed = true
	ws := make([]*Watcher[T], 0, len(b.watchers))
	for w := range b.watchers {
		ws = append(ws, w)
	}
	b.mu.Unlock()
	for _, w := range ws {
		w.Stop()
	}
}

// CloseAfter ends every watch of b once it has been given the events up
// to rev, and stops the dispatcher once it has dispatched them; unlike
// Close, it lets watchers take what is still buffered for them or still
// to be read from the Source first. It returns at once, without waiting
// for watchers. Events after rev are not delivered, and Watch returns an
// ended stream from the moment the dispatcher has reached rev (or at once
// when it already has). A server stopping serving a resource whose
// objects it has just deleted calls it with the revision of the last
// deletion, so that its watchers see every DELETED event, as a
// Kubernetes server's watchers of a removed CustomResourceDefinition do.
// Close may still be called, before or after the watches end.
func (b *Broadcaster[T]) CloseAfter(rev rv.Version) {
	b.endOnce.Do(func() {
		b.end.Store(&rev)
		close(b.ending)
	})
}

// endedLocked reports whether the dispatcher has reached the revision of
// CloseAfter: then it stops, and watchers level with it end. b.mu must be
// held.
func (b *Broadcaster[T]) endedLocked() bool {
	end := b.end.Load()
	return end != nil && b.dispatched >= *end
}

// finishEnd is the dispatcher's last act after CloseAfter: no more
// watches start, and every watcher is woken to find that it is done or
// to catch up to the end.
func (b *Broadcaster[T]) finishEnd() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for w := range b.watchers {
		w.signal()
	}
}

// Expire ends every open watch of b with 410 Gone ("too old resource
// version"), as a watch ends whose resourceVersion the server's history no
// longer holds; the events queued for a watcher before are dropped. Tests
// use it to make clients relist (a reflector does) without waiting for a
// compaction to overtake a watch. Watches started after Expire are not
// affected.
func (b *Broadcaster[T]) Expire() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.watchers {
		w.expire.Store(true)
		w.signal()
	}
}

// Stats returns a snapshot of b's counters.
func (b *Broadcaster[T]) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Stats{
		Revision: b.dispatched,
		Watchers: len(b.watchers),
		Live:     len(b.live),
		Parks:    b.parks.Load(),
		Expired:  b.expired.Load(),
	}
}

// run is the dispatcher: it waits for the Source to change, reads the new
// events in batches and publishes them. It never waits for a watcher.
func (b *Broadcaster[T]) run() {
	defer close(b.done)
	var (
		evs []Event[T]
		es  []*entry[T]
	)
	b.mu.Lock()
	pos := b.dispatched // only the dispatcher writes dispatched
	b.mu.Unlock()
	ending := b.ending
	for {
		if end := b.end.Load(); end != nil && pos >= *end {
			b.finishEnd()
			return
		}
		select {
		case <-b.src.Changed(pos):
		case <-ending:
			ending = nil // looked at once; the loop checks the end
			continue
		case <-b.closing:
			return
		}
		for {
			// Read the revision first: every event up to r is visible to
			// Events, so if Events returns less than a full batch the
			// broadcaster has seen everything up to r.
			r := b.src.Revision()
			var err error
			evs, err = b.src.Events(evs[:0], pos, b.batch)
			if err != nil {
				var ce *rv.CompactedError
				if errors.As(err, &ce) && ce.Compacted > pos {
					pos = b.overtaken(ce.Compacted)
					continue
				}
				if !b.sleep(sourceRetry) {
					return
				}
				continue
			}
			full := len(evs) >= b.batch
			var next rv.Version
			es, next = newEntries(es[:0], evs, pos, b.cache)
			if !full && r > next {
				next = r
			}
			if next > pos {
				b.publish(es, next)
				pos = next
			}
			clear(evs)
			clear(es)
			if !full {
				break
			}
			select {
			case <-b.closing:
				return
			default:
			}
		}
	}
}

// sleep waits d or until Close; it reports false on Close.
func (b *Broadcaster[T]) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-b.closing:
		return false
	}
}

// newEntries appends to dst one entry per event of evs after pos (skipping
// anything a Source should not have reported: old revisions and types other
// than ADDED, MODIFIED and DELETED) and returns it with the last revision.
// The entries of one batch share one allocation; their messages encode
// through cache if it is not nil.
func newEntries[T any](dst []*entry[T], evs []Event[T], pos rv.Version, cache EventCache[T]) ([]*entry[T], rv.Version) {
	if len(evs) == 0 {
		return dst, pos
	}
	arr := make([]entry[T], len(evs))
	for i := range evs {
		ev := &evs[i]
		if ev.Revision <= pos {
			continue
		}
		switch ev.Type {
		case Added, Modified, Deleted:
		default:
			continue
		}
		pos = ev.Revision
		e := &arr[i]
		e.msg.typ, e.msg.key, e.msg.obj, e.msg.rev = ev.Type, ev.Key, ev.Object, ev.Revision
		e.msg.cache = cache
		e.prev = ev.Prev
		dst = append(dst, e)
	}
	return dst, pos
}

// publish appends es to the window, advances dispatched to pos and hands es
// to every live watcher, parking those whose buffer cannot take them.
func (b *Broadcaster[T]) publish(es []*entry[T], pos rv.Version) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range es {
		b.winPushLocked(e)
	}
	b.dispatched = pos
	if len(es) == 0 {
		return
	}
	for i := 0; i < len(b.live); {
		if b.live[i].push(es) {
			i++
			continue
		}
		// push parked it; the last live watcher moves into slot i.
		b.removeLiveLocked(i)
		b.parks.Add(1)
	}
}

// overtaken handles compaction passing the dispatcher itself (the Source
// compacted events it had not read yet): every live watcher is parked, so
// that it ends with the 410 once it has taken what it was given, and
// dispatching restarts at the compaction revision c. It returns c.
func (b *Broadcaster[T]) overtaken(c rv.Version) rv.Version {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.live) > 0 {
		w := b.live[len(b.live)-1]
		b.removeLiveLocked(len(b.live) - 1)
		b.parks.Add(1)
		w.signal()
	}
	clear(b.win)
	b.winHead, b.winLen = 0, 0
	b.winBase, b.dispatched = c, c
	return c
}

// addLiveLocked makes w live. b.mu must be held.
func (b *Broadcaster[T]) addLiveLocked(w *Watcher[T]) {
	w.mu.Lock()
	w.live = true
	w.mu.Unlock()
	w.liveIdx = len(b.live)
	b.live = append(b.live, w)
}

// removeLiveLocked takes the live watcher at index i out of the live set.
// b.mu must be held.
func (b *Broadcaster[T]) removeLiveLocked(i int) {
	w := b.live[i]
	w.mu.Lock()
	w.live = false
	w.mu.Unlock()
	w.liveIdx = -1
	last := len(b.live) - 1
	if i != last {
		b.live[i] = b.live[last]
		b.live[i].liveIdx = i
	}
	b.live[last] = nil
	b.live = b.live[:last]
}

// winPushLocked appends e to the window, evicting the oldest entry when
// the window is full. b.mu must be held.
func (b *Broadcaster[T]) winPushLocked(e *entry[T]) {
	if b.winLen == len(b.win) {
		b.winBase = b.win[b.winHead].msg.rev
		b.win[b.winHead] = e
		b.winHead = (b.winHead + 1) % len(b.win)
		return
	}
	b.win[(b.winHead+b.winLen)%len(b.win)] = e
	b.winLen++
}

// winAtLocked returns the i-th oldest entry of the window.
func (b *Broadcaster[T]) winAtLocked(i int) *entry[T] {
	return b.win[(b.winHead+i)%len(b.win)]
}

// winSearchLocked returns the index of the first window entry after pos.
func (b *Broadcaster[T]) winSearchLocked(pos rv.Version) int {
	lo, hi := 0, b.winLen
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if b.winAtLocked(mid).msg.rev > pos {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// bookmarkMsg returns a periodic bookmark at rev, shared with the other
// watchers that are at rev.
func (b *Broadcaster[T]) bookmarkMsg(rev rv.Version) *Message[T] {
	if m := b.bookmark.Load(); m != nil && m.rev == rev {
		return m
	}
	m := &Message[T]{typ: Bookmark, obj: b.objs.Bookmark(rev, false), rev: rev}
	b.bookmark.Store(m)
	return m
}

// timeout returns the length of a watch that asked for timeout: 0 is the
// default window; a negative one is over already, as package rv documents
// (Kubernetes ends such a watch at once), so it is 0.
func (b *Broadcaster[T]) timeout(timeout time.Duration) time.Duration {
	switch {
	case timeout > 0:
		return timeout
	case timeout < 0:
		return 0
	}
	return b.opts.MinTimeout + rand.N(b.opts.MinTimeout)
}

// Watch starts a watch of b as decided by d (package rv's reading of the
// request), delivering only objects for which filter returns true (nil:
// every object), with Kubernetes' selector transitions. It returns at once
// except for resourceVersionMatch=NotOlderThan, which waits up to FutureWait
// for the Source to reach d.Version, and for initial events, which are
// read from Source.Snapshot before it returns and held (one reference per
// object) until they are sent.
//
// Every error after this point — a compacted start revision, the 504 of
// an expired wait, a Source failure — is delivered as the stream's single
// ERROR message, as Kubernetes does. The watch ends when ctx is done, when
// its timeout passes (d.Timeout if positive; the default window if 0; at
// once if negative), on Stop, or on Close.
func (b *Broadcaster[T]) Watch(ctx context.Context, d rv.Watch, filter Filter[T]) *Watcher[T] {
	return b.WatchKeys(ctx, d, filter, KeyRange{})
}

// KeyRange is the keys [Start, End) of the objects a watch can want; an
// empty End has no upper bound, and the zero KeyRange is every key.
type KeyRange struct{ Start, End string }

// WatchKeys is Watch for a caller that knows where the objects its filter
// wants are: every one of them has its key in keys (the filter rejects
// the others). It changes nothing that the watch delivers; its initial
// events are read from keys alone when the Source is a RangeSource.
func (b *Broadcaster[T]) WatchKeys(ctx context.Context, d rv.Watch, filter Filter[T], keys KeyRange) *Watcher[T] {
	w := &Watcher[T]{
		b:       b,
		filter:  filter,
		keys:    keys,
		d:       d,
		done:    make(chan struct{}),
		wake:    make(chan struct{}, 1),
		liveIdx: -1,
	}
	timeout := b.timeout(d.Timeout)
	now := time.Now()
	w.deadline = now.Add(timeout)
	if d.Timeout < 0 {
		// Over before it starts: no snapshot, no events.
		w.stopped = true
		close(w.done)
		return w
	}
	b.mu.Lock()
	if b.closed {
		w.stopped = true
		close(w.done)
		b.mu.Unlock()
		return w
	}
	b.watchers[w] = struct{}{}
	// Set under b.mu: Stop, which may run at once on another goroutine if
	// ctx is already done, reads them under b.mu.
	w.unhook = context.AfterFunc(ctx, w.Stop)
	w.timer = time.AfterFunc(timeout, w.Stop)
	b.mu.Unlock()
	if d.Bookmarks {
		w.scheduleBookmark(now)
	}
	if err := w.start(ctx); err != nil {
		w.fail(err)
		return w
	}
	// Join the live stream now if the watch starts at or past the
	// dispatcher, so that events written after Watch returns are queued
	// for it; otherwise the first Next catches up from history.
	b.mu.Lock()
	if !w.stopped && w.pos >= b.dispatched {
		b.addLiveLocked(w)
	}
	b.mu.Unlock()
	return w
}
