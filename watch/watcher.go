package watch

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// Filter reports whether a watcher wants obj (a label or field selector).
// A nil Filter matches every object. It must be safe to call from any
// goroutine and must not modify obj.
type Filter[T any] func(obj T) bool

// errStopped ends a start that was interrupted by Stop, Close or ctx.
var errStopped = errors.New("watch: stopped")

// Watcher is one watch stream. One goroutine consumes it with Next and
// More; Stop may be called from any goroutine.
type Watcher[T any] struct {
	b      *Broadcaster[T]
	filter Filter[T]
	d      rv.Watch
	keys   KeyRange // where the objects filter wants are (WatchKeys)

	// done is closed by Stop (with b.mu held).
	done chan struct{}
	// wake has room for one signal: the dispatcher sends one when it hands
	// events to an empty buffer or parks the watcher, Stop and the bookmark
	// timer send one too.
	wake chan struct{}

	// expire is set by Broadcaster.Expire: the stream ends with 410 Gone.
	expire atomic.Bool

	// Guarded by b.mu.
	stopped bool
	liveIdx int // index in b.live, -1 when not live
	unhook  func() bool
	timer   *time.Timer

	// mu guards pending and live; live is written with both b.mu and mu
	// held, so it may be read with either.
	mu      sync.Mutex
	pending []*entry[T]
	live    bool

	// The fields below belong to the consuming goroutine (and to Watch
	// before it returns).

	// pos is the revision up to which the watcher has been given every
	// event: the last event taken, or more when the broadcaster reported
	// progress without events.
	pos rv.Version
	// floor is a revision the Source reported no further events up to, to
	// apply once the events read with it have been taken.
	floor rv.Version
	// startRev is the revision the watch started at; periodic bookmarks
	// are sent only once pos is past it.
	startRev rv.Version
	// local holds the events taken from pending or read from history;
	// li is the next one to look at.
	local []*entry[T]
	li    int
	// initial holds the initial events; ii is the next one.
	initial    []keyed[T]
	ii         int
	chunk      []Message[T]
	endPending bool
	// errMsg is the ERROR message to send before the stream ends.
	errMsg   *Message[T]
	finished bool
	peeked   *Message[T]

	deadline     time.Time
	nextBookmark time.Time   // zero: no more bookmarks
	bmTimer      *time.Timer // signals wake when a bookmark is due
	bmArmed      time.Time   // what bmTimer is set for
}

type keyed[T any] struct {
	key string
	obj T
}

// Next returns the next message of the stream, waiting for one if needed.
// It returns false when the stream is over: after an ERROR message, on
// timeout, Stop, Close or the end of the watch's context. Events are
// delivered in revision order, each once.
func (w *Watcher[T]) Next() (*Message[T], bool) {
	if m := w.peeked; m != nil {
		w.peeked = nil
		select {
		case <-w.done:
			// Stopped since More: the stream is over, except for an
			// ERROR event, which stopped the watcher itself.
			if m.typ == Error {
				return m, true
			}
		default:
			return m, true
		}
	}
	return w.step(true)
}

// More reports whether Next would return a message without waiting. A
// server writing a stream flushes when More reports false.
func (w *Watcher[T]) More() bool {
	if w.peeked != nil {
		return true
	}
	m, ok := w.step(false)
	w.peeked = m
	return ok
}

// Deadline returns when the watch times out: its start plus d.Timeout, or
// plus the random default window. A server writing the stream bounds its
// writes by it, so that a client that stops reading cannot hold the watch
// past its end.
func (w *Watcher[T]) Deadline() time.Time { return w.deadline }

// Stop ends the watch and releases what it holds in the broadcaster. It is
// safe to call more than once and from any goroutine.
func (w *Watcher[T]) Stop() {
	b := w.b
	b.mu.Lock()
	if w.stopped {
		b.mu.Unlock()
		return
	}
	w.stopped = true
	if w.liveIdx >= 0 {
		b.removeLiveLocked(w.liveIdx)
	}
	delete(b.watchers, w)
	close(w.done)
	unhook, timer := w.unhook, w.timer
	w.unhook, w.timer = nil, nil
	b.mu.Unlock()
	w.signal()
	if unhook != nil {
		unhook()
	}
	if timer != nil {
		timer.Stop()
	}
}

// step produces the next message; if block is false it returns (nil,
// false) rather than wait.
func (w *Watcher[T]) step(block bool) (*Message[T], bool) {
	for {
		if w.finished {
			return nil, false
		}
		select {
		case <-w.done:
			w.finished = true
			w.release()
			return nil, false
		default:
		}
		if w.expire.Load() && w.errMsg == nil {
			w.expire.Store(false)
			w.fail(&rv.CompactedError{Requested: w.pos, Compacted: w.b.src.Revision()})
		}
		if m := w.errMsg; m != nil {
			w.errMsg = nil
			w.finished = true
			w.Stop()
			w.release()
			return m, true
		}
		if w.ii < len(w.initial) {
			return w.initialMsg(), true
		}
		if w.endPending {
			w.endPending = false
			w.initial = nil
			return &Message[T]{typ: Bookmark, obj: w.b.objs.Bookmark(w.startRev, true), rev: w.startRev, end: true}, true
		}
		for w.li < len(w.local) {
			e := w.local[w.li]
			w.local[w.li] = nil
			w.li++
			if e.msg.rev <= w.pos {
				continue // already given (read from history past a join)
			}
			if end := w.b.end.Load(); end != nil && e.msg.rev > *end {
				return w.finish()
			}
			w.pos = e.msg.rev
			if m := w.convert(e); m != nil {
				return m, true
			}
		}
		if m := w.dueBookmark(); m != nil {
			return m, true
		}
		more, live := w.refill()
		if more {
			continue
		}
		if !live {
			w.catchUp()
			continue
		}
		if w.drained() {
			return w.finish()
		}
		if !block {
			return nil, false
		}
		w.wait()
	}
}

// drained reports whether the watcher, live with nothing pending, has been
// given everything up to the revision of CloseAfter.
func (w *Watcher[T]) drained() bool {
	b := w.b
	if b.end.Load() == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	return b.endedLocked() && w.live && len(w.pending) == 0
}

// finish ends the stream after CloseAfter.
func (w *Watcher[T]) finish() (*Message[T], bool) {
	w.finished = true
	w.Stop()
	w.release()
	return nil, false
}

// initialMsg returns the next synthetic ADDED event of the initial state.
// The messages are allocated in chunks.
func (w *Watcher[T]) initialMsg() *Message[T] {
	if len(w.chunk) == 0 {
		w.chunk = make([]Message[T], min(64, len(w.initial)-w.ii))
	}
	m := &w.chunk[0]
	w.chunk = w.chunk[1:]
	it := &w.initial[w.ii]
	m.typ, m.key, m.obj, m.rev, m.cache = Added, it.key, it.obj, w.startRev, w.b.cache
	*it = keyed[T]{}
	w.ii++
	return m
}

// refill moves pending events to local. It reports whether there were any
// and whether the watcher is live.
func (w *Watcher[T]) refill() (more, live bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return false, w.live
	}
	w.local, w.pending = w.pending, w.local[:0]
	w.li = 0
	return true, w.live
}

// wait blocks until the dispatcher, Stop or the bookmark timer signals.
// It is a single channel receive, the cheapest way for thousands of idle
// watchers to wait; spurious signals are harmless because step rechecks.
func (w *Watcher[T]) wait() {
	if !w.nextBookmark.IsZero() && !w.bmArmed.Equal(w.nextBookmark) {
		d := time.Until(w.nextBookmark)
		if w.bmTimer == nil {
			w.bmTimer = time.AfterFunc(d, w.signal)
		} else {
			w.bmTimer.Reset(d)
		}
		w.bmArmed = w.nextBookmark
	}
	<-w.wake
}

// release drops what a finished watcher holds.
func (w *Watcher[T]) release() {
	clear(w.local)
	w.local, w.initial, w.chunk = nil, nil, nil
	if w.bmTimer != nil {
		w.bmTimer.Stop()
	}
}

// convert applies the watcher's filter to e with Kubernetes' transition
// rules: ADDED when the object starts matching, MODIFIED while it keeps
// matching, DELETED (the previous state at the new revision) when it stops
// matching or is deleted; nil when it matches neither before nor after.
func (w *Watcher[T]) convert(e *entry[T]) *Message[T] {
	f := w.filter
	if f == nil {
		return &e.msg
	}
	switch e.msg.typ {
	case Added, Deleted:
		// A DELETED event's object is the last state, so "matched
		// before" is a test of it.
		if f(e.msg.obj) {
			return &e.msg
		}
	case Modified:
		now, before := f(e.msg.obj), f(e.prev)
		switch {
		case now && before:
			return &e.msg
		case now:
			if m := e.added.Load(); m != nil {
				return m
			}
			m := &Message[T]{typ: Added, key: e.msg.key, obj: e.msg.obj, rev: e.msg.rev, cache: e.msg.cache}
			if !e.added.CompareAndSwap(nil, m) {
				m = e.added.Load()
			}
			return m
		case before:
			if m := e.deleted.Load(); m != nil {
				return m
			}
			m := &Message[T]{typ: Deleted, key: e.msg.key, obj: w.b.objs.WithVersion(e.prev, e.msg.rev), rev: e.msg.rev}
			if !e.deleted.CompareAndSwap(nil, m) {
				m = e.deleted.Load()
			}
			return m
		}
	}
	return nil
}

// scheduleBookmark sets the time of the next bookmark: an interval from
// now, but no later than bookmarkBeforeTimeout before the deadline, and
// none once that point has passed.
func (w *Watcher[T]) scheduleBookmark(now time.Time) {
	next := now.Add(w.b.opts.BookmarkInterval)
	if pre := w.deadline.Add(-bookmarkBeforeTimeout); pre.Before(next) {
		next = pre
	}
	if !next.After(now) {
		next = time.Time{}
	}
	w.nextBookmark = next
}

// dueBookmark returns the bookmark to send now, if one is due. It is called
// only when every event taken so far has been looked at, so the bookmark
// never claims a revision whose events the watcher has not received.
func (w *Watcher[T]) dueBookmark() *Message[T] {
	if w.nextBookmark.IsZero() {
		return nil
	}
	now := time.Now()
	if now.Before(w.nextBookmark) {
		return nil
	}
	// A live watcher with nothing pending has been given everything up to
	// dispatched, even if the last events were filtered out or were
	// progress without events: report that.
	b := w.b
	b.mu.Lock()
	w.mu.Lock()
	drained := len(w.pending) == 0
	if w.live && drained && b.dispatched > w.pos {
		w.pos = b.dispatched
	}
	w.mu.Unlock()
	b.mu.Unlock()
	if w.pos <= w.startRev {
		if drained {
			w.scheduleBookmark(now)
		}
		// Otherwise stay due: the pending events may carry progress.
		return nil
	}
	w.scheduleBookmark(now)
	return b.bookmarkMsg(w.pos)
}

// catchUp moves a watcher that is not live forward: it joins the live set
// if it is level with the dispatcher, takes the next events from the window
// if its position is inside it, or else reads them from the Source.
func (w *Watcher[T]) catchUp() {
	b := w.b
	if w.floor > w.pos {
		w.pos = w.floor
	}
	b.mu.Lock()
	if w.stopped {
		b.mu.Unlock()
		return
	}
	if w.pos >= b.dispatched {
		b.addLiveLocked(w)
		b.mu.Unlock()
		return
	}
	if w.pos >= b.winBase {
		i := b.winSearchLocked(w.pos)
		n := min(b.winLen-i, b.opts.Buffer)
		w.local = w.local[:0]
		for j := range n {
			w.local = append(w.local, b.winAtLocked(i+j))
		}
		w.li = 0
		if i+n == b.winLen {
			// Everything up to dispatched is now in local; later batches
			// go to pending.
			b.addLiveLocked(w)
		}
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	w.readSource()
}

// readSource reads the events after pos from the Source into local.
func (w *Watcher[T]) readSource() {
	b := w.b
	limit := b.opts.Buffer
	bufp, _ := b.evPool.Get().(*[]Event[T])
	if bufp == nil {
		bufp = new([]Event[T])
	}
	r := b.src.Revision()
	evs, err := b.src.Events((*bufp)[:0], w.pos, limit)
	if err != nil {
		b.evPool.Put(bufp)
		w.fail(err)
		return
	}
	w.local, _ = newEntries(w.local[:0], evs, w.pos, b.cache)
	w.li = 0
	clear(evs)
	*bufp = evs[:0]
	b.evPool.Put(bufp)
	if len(evs) < limit && r > w.floor {
		w.floor = r
	}
	if len(w.local) == 0 && w.floor <= w.pos {
		// A Source that keeps its contract always has the events up to
		// what the dispatcher has seen, or a revision past them.
		w.fail(errors.New("watch: source has no events after revision " +
			strconv.FormatUint(uint64(w.pos), 10) + " although the broadcaster has dispatched past it"))
	}
}

// fail queues the ERROR message for err; the stream ends after it.
func (w *Watcher[T]) fail(err error) {
	if errors.Is(err, errStopped) {
		return
	}
	var se *status.Error
	var ce *rv.CompactedError
	switch {
	case errors.As(err, &ce):
		se = status.NewExpired("too old resource version: " + strconv.FormatUint(uint64(w.pos), 10) +
			" (" + strconv.FormatUint(uint64(ce.Compacted), 10) + ")").Wrap(err)
		w.b.expired.Add(1)
	case errors.As(err, &se):
	case errors.Is(err, rv.ErrFutureRevision):
		se = status.NewTooLargeResourceVersion(uint64(w.pos), uint64(w.b.src.Revision()), tooLargeRetrySeconds).Wrap(err)
	default:
		se = status.NewInternalError(err)
	}
	w.errMsg = &Message[T]{typ: Error, err: se}
	w.initial, w.endPending = nil, false
	clear(w.local)
	w.local, w.li = w.local[:0], 0
}

// start resolves where the watch begins and reads its initial events.
func (w *Watcher[T]) start(ctx context.Context) error {
	b, d := w.b, w.d
	var at rv.Version
	switch d.Start {
	case rv.StartExact:
		at = d.Version
		// The Source decides what is too old, not the window: the window
		// may still hold events the Source has compacted (a Compact forced
		// by a test, say), and the client must then get its 410 and relist
		// rather than a replay no other reader could reproduce. A start at
		// or past the latest revision cannot be compacted, so the common
		// resume from the newest resourceVersion skips the read, which for
		// a store scans the revisions after at.
		if at < b.src.Revision() {
			if _, err := b.src.Events(nil, at, 1); errors.Is(err, rv.ErrCompacted) {
				w.pos = at
				return err
			}
		}
	case rv.StartMostRecent, rv.StartAny:
		// The Source is authoritative: its latest revision is both the
		// most recent and an acceptable "any".
		at = b.src.Revision()
	case rv.StartNotOlderThan:
		var err error
		if at, err = w.waitFor(ctx, d.Version); err != nil {
			return err
		}
	default:
		return errors.New("watch: unknown watch start " + d.Start.String())
	}
	w.pos, w.startRev = at, at
	if !d.InitialEvents {
		return nil
	}
	snapshot := b.src.Snapshot
	if rs, ok := b.src.(RangeSource[T]); ok && w.keys != (KeyRange{}) {
		snapshot = func(at rv.Version, yield func(string, T) bool) error {
			return rs.SnapshotRange(at, w.keys.Start, w.keys.End, yield)
		}
	}
	for tries := 0; ; tries++ {
		w.initial = w.initial[:0]
		err := snapshot(at, func(key string, obj T) bool {
			if w.filter == nil || w.filter(obj) {
				w.initial = append(w.initial, keyed[T]{key, obj})
			}
			return true
		})
		if err == nil {
			break
		}
		// A snapshot at the latest revision can lose a race with
		// compaction; take a newer one. An exact start cannot move.
		if errors.Is(err, rv.ErrCompacted) && d.Start != rv.StartExact && tries < 3 {
			at = b.src.Revision()
			continue
		}
		w.initial = nil
		return err
	}
	w.pos, w.startRev = at, at
	w.endPending = d.EndBookmark
	return nil
}

// waitFor waits until the Source has reached n, up to FutureWait, and
// returns its revision then.
func (w *Watcher[T]) waitFor(ctx context.Context, n rv.Version) (rv.Version, error) {
	src := w.b.src
	if r := src.Revision(); r >= n {
		return r, nil
	}
	if w.b.opts.FutureWait < 0 {
		w.pos = n
		return 0, status.NewTooLargeResourceVersion(uint64(n), uint64(src.Revision()), tooLargeRetrySeconds)
	}
	t := time.NewTimer(w.b.opts.FutureWait)
	defer t.Stop()
	for {
		if r := src.Revision(); r >= n {
			return r, nil
		}
		select {
		case <-src.Changed(n - 1):
		case <-t.C:
			w.pos = n
			return 0, status.NewTooLargeResourceVersion(uint64(n), uint64(src.Revision()), tooLargeRetrySeconds)
		case <-ctx.Done():
			w.Stop()
			return 0, errStopped
		case <-w.done:
			return 0, errStopped
		}
	}
}

// signal wakes the consumer if it waits.
func (w *Watcher[T]) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// push hands es to the watcher. If its buffer cannot take them all it takes
// what fits, is marked parked and push returns false; the caller removes it
// from the live set. b.mu is held.
func (w *Watcher[T]) push(es []*entry[T]) bool {
	w.mu.Lock()
	n := len(w.pending)
	ok := true
	if free := w.b.opts.Buffer - n; free < len(es) {
		es, ok = es[:max(free, 0)], false
		w.live = false
	}
	w.pending = append(w.pending, es...)
	w.mu.Unlock()
	if n == 0 || !ok {
		w.signal()
	}
	return ok
}
