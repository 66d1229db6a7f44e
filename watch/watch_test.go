package watch_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch"
	"github.com/apisem/apisem/watch/watchtest"
)

type obj = watchtest.Object

var (
	added    = watchtest.Added
	modified = watchtest.Modified
	deleted  = watchtest.Deleted
)

// fixture is a Source with a broadcaster, made inside a synctest bubble.
type fixture struct {
	t   *testing.T
	src *watchtest.Source[*obj]
	b   *watch.Broadcaster[*obj]
}

func newFixture(t *testing.T, opts watch.Options) *fixture {
	src := watchtest.NewObjectSource()
	return &fixture{t: t, src: src, b: watchtest.NewBroadcaster(t, src, watchtest.Funcs(), opts)}
}

func (f *fixture) watch(d rv.Watch, filter watch.Filter[*obj]) *watch.Watcher[*obj] {
	return watchtest.Watch(f.t, f.b, d, filter)
}

func (f *fixture) put(name, value string, labels ...string) rv.Version {
	return f.src.Put(name, watchtest.NewObject(name, value, labels...))
}

func (f *fixture) del(name string) rv.Version {
	rev, ok := f.src.Delete(name)
	if !ok {
		f.t.Fatalf("delete %q: no such object", name)
	}
	return rev
}

func exact(n rv.Version) rv.Watch { return rv.Watch{Start: rv.StartExact, Version: n} }

// Start at Exact: every event after N from history, then live events, with
// no gap and no duplicate at the seam, whether history is in the window or
// only in the Source.
func TestStartExactReplaysThenGoesLive(t *testing.T) {
	for _, tc := range []struct {
		name string
		// early: the broadcaster exists during the first writes, so they
		// are in its window; otherwise they are only in the Source.
		early  bool
		window int
	}{
		{"history in window", true, 0},
		{"history in source only", false, 0},
		{"history partly in window", true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := watchtest.NewObjectSource()
				opts := watch.Options{RecentEvents: tc.window, Buffer: 4}
				var b *watch.Broadcaster[*obj]
				if tc.early {
					b = watchtest.NewBroadcaster(t, src, watchtest.Funcs(), opts)
				}
				for i := range 8 {
					src.Put(fmt.Sprint("o", i%3), watchtest.NewObject(fmt.Sprint("o", i%3), fmt.Sprint(i)))
				}
				if !tc.early {
					b = watchtest.NewBroadcaster(t, src, watchtest.Funcs(), opts)
				}
				synctest.Wait()
				w := watchtest.Watch(t, b, exact(2), nil)
				watchtest.Expect(t, w, added("o2", 3), modified("o0", 4))
				// Writes during the replay land after it, once each.
				src.Put("o9", watchtest.NewObject("o9", "x"))
				watchtest.Expect(t, w, modified("o1", 5), modified("o2", 6), modified("o0", 7), modified("o1", 8), added("o9", 9))
				src.Delete("o0")
				watchtest.Expect(t, w, deleted("o0", 10))
				synctest.Wait()
				watchtest.ExpectIdle(t, w)
			})
		})
	}
}

// A client that resumes with the last revision it saw continues exactly
// where it stopped.
func TestResumeFromLastRevision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		w := f.watch(exact(0), nil)
		f.put("a", "1")
		f.put("b", "1")
		ms := watchtest.Expect(t, w, added("a", 1))
		w.Stop()
		f.put("c", "1")
		w2 := f.watch(exact(ms[len(ms)-1].Revision()), nil)
		watchtest.Expect(t, w2, added("b", 2), added("c", 3))
	})
}

// A start revision older than history: exactly one ERROR event with the
// 410 Expired `too old resource version: N (M)`, then the end.
func TestStartExactCompacted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := watchtest.NewObjectSource()
		for i := range 6 {
			src.Put("a", watchtest.NewObject("a", fmt.Sprint(i)))
		}
		src.Compact(4)
		b := watchtest.NewBroadcaster(t, src, watchtest.Funcs(), watch.Options{})
		w := watchtest.Watch(t, b, exact(2), nil)
		err := watchtest.ExpectError(t, w, status.ReasonExpired)
		if got, want := err.Error(), "too old resource version: 2 (4)"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
		if err.Code() != 410 || !status.IsExpired(err) || !errors.Is(err, rv.ErrCompacted) {
			t.Errorf("error %v: code %d, IsExpired %v, Is(ErrCompacted) %v", err, err.Code(), status.IsExpired(err), errors.Is(err, rv.ErrCompacted))
		}
		var ce *rv.CompactedError
		if !errors.As(err, &ce) || ce.Compacted != 4 {
			t.Errorf("errors.As(CompactedError) = %v, want Compacted 4", ce)
		}
		// The compaction revision itself is still a valid start.
		w = watchtest.Watch(t, b, exact(4), nil)
		watchtest.Expect(t, w, modified("a", 5), modified("a", 6))
		if s := b.Stats(); s.Expired != 1 {
			t.Errorf("Stats().Expired = %d, want 1", s.Expired)
		}
	})
}

// Compaction of the Source decides, even while the broadcaster's window
// still holds the events: a new exact start below the compaction revision
// is the 410, as every other reader of the Source would see.
func TestStartExactCompactedBehindWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		live := f.watch(exact(0), nil)
		for i := range 6 {
			f.put("a", fmt.Sprint(i))
		}
		// The live watcher pulls all six events through the dispatcher,
		// so they sit in the window.
		watchtest.Expect(t, live, added("a", 1), modified("a", 2), modified("a", 3),
			modified("a", 4), modified("a", 5), modified("a", 6))
		f.src.Compact(4)
		w := f.watch(exact(2), nil)
		err := watchtest.ExpectError(t, w, status.ReasonExpired)
		if got, want := err.Error(), "too old resource version: 2 (4)"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
		// At the compaction revision the watch is still served (from the
		// window).
		w = f.watch(exact(4), nil)
		watchtest.Expect(t, w, modified("a", 5), modified("a", 6))
	})
}

// countingSource counts the reads of history a broadcaster makes.
type countingSource struct {
	*watchtest.Source[*obj]
	events atomic.Int64
}

func (s *countingSource) Events(dst []watch.Event[*obj], after rv.Version, max int) ([]watch.Event[*obj], error) {
	s.events.Add(1)
	return s.Source.Events(dst, after, max)
}

// Only a start below the latest revision asks the Source whether it is
// compacted: the usual resume from the newest resourceVersion reads no
// history (for a store, that read is a scan of the revisions after it).
func TestStartExactAtLatestReadsNoHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &countingSource{Source: watchtest.NewObjectSource()}
		b := watchtest.NewBroadcaster[*obj](t, src, watchtest.Funcs(), watch.Options{})
		src.Put("a", watchtest.NewObject("a", "1"))
		src.Put("a", watchtest.NewObject("a", "2"))
		synctest.Wait()
		before := src.events.Load()
		w := watchtest.Watch(t, b, exact(2), nil)
		if n := src.events.Load() - before; n != 0 {
			t.Errorf("a watch at the latest revision read history %d times", n)
		}
		w1 := watchtest.Watch(t, b, exact(1), nil)
		if n := src.events.Load() - before; n != 1 {
			t.Errorf("a watch below the latest revision read history %d times, want 1", n)
		}
		rev := src.Put("b", watchtest.NewObject("b", "1"))
		watchtest.Expect(t, w, added("b", rev))
		watchtest.Expect(t, w1, modified("a", 2), added("b", rev))
	})
}

// A start revision in the future waits for it.
func TestStartExactFuture(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		f.put("a", "1")
		w := f.watch(exact(5), nil)
		for range 4 { // revisions 2..5
			f.put("a", "x")
		}
		synctest.Wait()
		watchtest.ExpectIdle(t, w)
		f.put("b", "1")
		watchtest.Expect(t, w, added("b", 6))
	})
}

// Get State and Start at Most Recent / Any: synthetic ADDED events for the
// state at the start revision, each object with its own resourceVersion,
// then live events.
func TestGetStateAndStart(t *testing.T) {
	for _, start := range []rv.WatchStart{rv.StartMostRecent, rv.StartAny} {
		for _, bookmarks := range []bool{false, true} {
			t.Run(fmt.Sprint(start, "/bookmarks=", bookmarks), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					f := newFixture(t, watch.Options{})
					f.put("b", "1")
					f.put("a", "1")
					f.put("c", "1")
					f.put("b", "2")
					f.del("c")
					// Without EndBookmark (sendInitialEvents unset) there is
					// no initial-events-end bookmark, even with bookmarks.
					w := f.watch(rv.Watch{Start: start, InitialEvents: true, Bookmarks: bookmarks}, nil)
					ms := watchtest.Expect(t, w, added("a", 5), added("b", 5))
					if got := ms[0].Object().Version(); got != 2 {
						t.Errorf("a carries resourceVersion %d, want its own 2", got)
					}
					if got := ms[1].Object().Version(); got != 4 {
						t.Errorf("b carries resourceVersion %d, want its own 4", got)
					}
					f.put("d", "1")
					watchtest.Expect(t, w, added("d", 6))
				})
			})
		}
	}
}

// sendInitialEvents=false with NotOlderThan and resourceVersion unset or
// "0": start at the latest revision, no synthetic events.
func TestStartWithoutInitialEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		f.put("a", "1")
		w := f.watch(rv.Watch{Start: rv.StartMostRecent}, nil)
		f.put("b", "1")
		watchtest.Expect(t, w, added("b", 2))
	})
}

// Streaming lists: the initial ADDED events are followed by the BOOKMARK
// with only the resourceVersion and the initial-events-end annotation.
func TestStreamingListEndBookmark(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		f.put("foo", "1")
		f.put("bar", "1")
		f.src.Bump() // a write elsewhere in the store
		d := rv.Watch{Start: rv.StartMostRecent, InitialEvents: true, EndBookmark: true, Bookmarks: true}
		w := f.watch(d, nil)
		watchtest.Expect(t, w, added("bar", 3), added("foo", 3))
		m := watchtest.ExpectInitialEventsEnd(t, w, 3)
		enc := &watchtest.JSONEncoder[*obj]{}
		got, err := m.Encoded(enc)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"3","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"
		if string(got) != want {
			t.Errorf("end bookmark = %s, want %s", got, want)
		}
		f.put("foo", "2")
		watchtest.Expect(t, w, modified("foo", 4))

		// An empty collection still gets the bookmark.
		f2 := newFixture(t, watch.Options{})
		w2 := f2.watch(d, nil)
		watchtest.ExpectInitialEventsEnd(t, w2, 0)
	})
}

// The first bookmark of a streaming list is the annotated one, even when a
// periodic bookmark is already due; periodic bookmarks carry no
// annotation.
func TestStreamingListEndBookmarkComesFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		f.put("a", "1")
		synctest.Wait() // dispatched, so the watcher joins the live set with nothing queued
		w := f.watch(rv.Watch{Start: rv.StartMostRecent, InitialEvents: true, EndBookmark: true, Bookmarks: true}, nil)
		f.src.Bump() // 2: progress for the live watcher, without events
		time.Sleep(time.Minute)
		synctest.Wait()
		watchtest.Expect(t, w, added("a", 1))
		watchtest.ExpectInitialEventsEnd(t, w, 1)
		m := watchtest.ExpectBookmark(t, w, 2)
		got, err := m.Encoded(&watchtest.JSONEncoder[*obj]{})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"2"}}}` + "\n"; string(got) != want {
			t.Errorf("periodic bookmark = %s, want %s", got, want)
		}
	})
}

// sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=N
// waits for the Source to reach N (up to FutureWait), then starts at the latest
// revision; if N does not come, one ERROR event with the 504.
func TestStartNotOlderThan(t *testing.T) {
	d := func(n rv.Version) rv.Watch {
		return rv.Watch{Start: rv.StartNotOlderThan, Version: n, InitialEvents: true, EndBookmark: true, Bookmarks: true}
	}
	t.Run("reached", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, watch.Options{})
			f.put("a", "1")
			f.put("a", "2")
			w := f.watch(d(1), nil)
			watchtest.Expect(t, w, added("a", 2))
			watchtest.ExpectInitialEventsEnd(t, w, 2)
		})
	})
	t.Run("waits", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, watch.Options{})
			f.put("a", "1")
			ch := make(chan *watch.Watcher[*obj])
			go func() { ch <- f.watch(d(3), nil) }()
			time.Sleep(time.Second)
			f.put("b", "1")
			time.Sleep(time.Second)
			f.put("c", "1")
			w := <-ch
			watchtest.Expect(t, w, added("a", 3), added("b", 3), added("c", 3))
			watchtest.ExpectInitialEventsEnd(t, w, 3)
		})
	})
	// FutureWait has store.Options.FutureWait's meaning: 0 is 3 s,
	// negative is no wait.
	for _, tc := range []struct {
		futureWait, want time.Duration
	}{
		{0, 3 * time.Second},
		{time.Second, time.Second},
		{-1, 0},
	} {
		t.Run(fmt.Sprintf("too large after FutureWait %v", tc.futureWait), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, watch.Options{FutureWait: tc.futureWait})
				f.put("a", "1")
				start := time.Now()
				w := f.watch(d(7), nil)
				if waited := time.Since(start); waited != tc.want {
					t.Errorf("waited %v, want %v", waited, tc.want)
				}
				err := watchtest.ExpectError(t, w, status.ReasonTimeout)
				if got, want := err.Error(), "Timeout: Too large resource version: 7, current: 1"; got != want {
					t.Errorf("message = %q, want %q", got, want)
				}
				if !status.IsTooLargeResourceVersion(err) || err.Code() != 504 || err.RetryAfterSeconds() != 1 {
					t.Errorf("error %#v is not the 504 Too large resource version with Retry-After 1", err.Status)
				}
			})
		})
	}
	t.Run("cancelled while waiting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, watch.Options{})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(time.Second, cancel)
			w := f.b.Watch(ctx, d(7), nil)
			watchtest.ExpectEnd(t, w)
		})
	})
}

// Selector transitions, as Kubernetes' watch cache makes them
// (k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go): starts matching
// → ADDED, keeps matching → MODIFIED, stops matching or deleted → DELETED
// carrying the previous state with the new resourceVersion; never matching
// → skipped.
func TestSelectorTransitions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		f.put("pre", "1", "app", "web") // 1: in the initial state
		f.put("out", "1", "app", "db")  // 2: never matches
		sel := watchtest.LabelFilter("app", "web")
		w := f.watch(rv.Watch{Start: rv.StartMostRecent, InitialEvents: true}, sel)
		all := f.watch(exact(2), nil)
		steps := []struct {
			write func() rv.Version
			want  watch.EventType // "" = skipped
			why   string
		}{
			{func() rv.Version { return f.put("a", "1", "app", "web") }, watch.Added, "created matching"},
			{func() rv.Version { return f.put("a", "2", "app", "web") }, watch.Modified, "keeps matching"},
			{func() rv.Version { return f.put("a", "3", "app", "db") }, watch.Deleted, "stops matching"},
			{func() rv.Version { return f.put("a", "4", "app", "db") }, "", "keeps not matching"},
			{func() rv.Version { return f.put("a", "5", "app", "web") }, watch.Added, "starts matching"},
			{func() rv.Version { return f.del("a") }, watch.Deleted, "deleted while matching"},
			{func() rv.Version { return f.put("out", "2", "app", "db") }, "", "never matches"},
			{func() rv.Version { return f.del("out") }, "", "deleted, never matched"},
		}
		watchtest.Expect(t, w, added("pre", 2))
		var prev string
		for _, s := range steps {
			rev := s.write()
			watchtest.Expect(t, all, watchtest.Want{Type: allType(s.why), Key: keyOf(s.why), Revision: rev})
			if s.want == "" {
				continue
			}
			m := watchtest.Expect(t, w, watchtest.Want{Type: s.want, Key: "a", Revision: rev})[0]
			o := m.Object()
			if o.Version() != rev {
				t.Errorf("%s: object resourceVersion %d, want %d", s.why, o.Version(), rev)
			}
			if s.want == watch.Deleted && o.Value != prev {
				t.Errorf("%s: DELETED carries value %q, want the previous state %q", s.why, o.Value, prev)
			}
			prev = o.Value
		}
		synctest.Wait()
		watchtest.ExpectIdle(t, w)
	})
}

// allType and keyOf give what an unfiltered watcher sees in
// TestSelectorTransitions.
func allType(why string) watch.EventType {
	switch why {
	case "created matching":
		return watch.Added
	case "deleted while matching", "deleted, never matched":
		return watch.Deleted
	}
	return watch.Modified
}

func keyOf(why string) string {
	if why == "never matches" || why == "deleted, never matched" {
		return "out"
	}
	return "a"
}

// Periodic bookmarks at the latest revision the watcher has been brought up
// to, even when every event was filtered out or the revision moved without
// events; none without progress past the start or without
// allowWatchBookmarks.
func TestPeriodicBookmarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		f.put("a", "1")
		d := rv.Watch{Start: rv.StartExact, Version: 1, Bookmarks: true}
		w := f.watch(d, nil)
		none := f.watch(rv.Watch{Start: rv.StartExact, Version: 1}, nil)
		sel := f.watch(d, watchtest.LabelFilter("app", "web"))

		// No progress: no bookmark.
		time.Sleep(61 * time.Second)
		synctest.Wait()
		watchtest.ExpectIdle(t, w)
		watchtest.ExpectIdle(t, sel)

		f.put("b", "1") // 2: filtered out for sel
		watchtest.Expect(t, w, added("b", 2))
		time.Sleep(time.Minute)
		watchtest.ExpectBookmark(t, w, 2)
		watchtest.ExpectBookmark(t, sel, 2)

		f.src.Bump() // 3: no event at all
		time.Sleep(time.Minute)
		watchtest.ExpectBookmark(t, w, 3)
		watchtest.ExpectBookmark(t, sel, 3)

		// Each minute, not more often.
		time.Sleep(30 * time.Second)
		synctest.Wait()
		watchtest.ExpectIdle(t, w)
		watchtest.Expect(t, none, added("b", 2))
		synctest.Wait()
		watchtest.ExpectIdle(t, none)
	})
}

// A configurable interval, a bookmark 2 s before the timeout, and then the
// clean end of the stream at the timeout.
func TestBookmarkBeforeTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{BookmarkInterval: 20 * time.Second})
		f.put("a", "1")
		start := time.Now()
		w := f.watch(rv.Watch{Start: rv.StartMostRecent, InitialEvents: true, Bookmarks: true, Timeout: 50 * time.Second}, nil)
		watchtest.Expect(t, w, added("a", 1))
		f.put("a", "2")
		watchtest.Expect(t, w, modified("a", 2))
		// Bookmarks at 20 s and 40 s, then 2 s before the timeout.
		for _, at := range []time.Duration{20 * time.Second, 40 * time.Second, 48 * time.Second} {
			time.Sleep(at - time.Since(start) - time.Millisecond)
			synctest.Wait()
			watchtest.ExpectIdle(t, w)
			time.Sleep(time.Millisecond)
			watchtest.ExpectBookmark(t, w, 2)
		}
		watchtest.ExpectEnd(t, w)
		if got := time.Since(start); got != 50*time.Second {
			t.Errorf("stream ended after %v, want 50s", got)
		}
	})
}

// A bookmark is never older than an event already delivered, and is sent
// only after every event up to its revision, whether it comes due while
// the watcher is parked or while it is live with events queued.
func TestBookmarkNeverBehind(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts watch.Options
	}{
		{"parked", watch.Options{Buffer: 2, RecentEvents: 2}},
		{"live with events queued", watch.Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, tc.opts)
				w := f.watch(rv.Watch{Start: rv.StartMostRecent, Bookmarks: true}, nil)
				var last rv.Version
				for i := range 10 {
					last = f.put(fmt.Sprint("o", i), "1")
				}
				time.Sleep(time.Minute) // due before the consumer reads
				var seen rv.Version
				bookmarks := 0
				for seen < last || bookmarks == 0 {
					m := watchtest.Next(t, w)
					switch {
					case m.Type() == watch.Bookmark:
						// Neither older than what the watcher has seen nor
						// ahead of it.
						if m.Revision() != seen {
							t.Fatalf("bookmark @%d after the events up to %d", m.Revision(), seen)
						}
						bookmarks++
					case m.Revision() == seen+1 && m.Key() == fmt.Sprint("o", int(seen)):
						seen++
					default:
						t.Fatalf("after revision %d got %s", seen, watchtest.Describe(m))
					}
				}
				synctest.Wait()
				watchtest.ExpectIdle(t, w)
				if bookmarks != 1 {
					t.Errorf("%d bookmarks in a minute, want 1", bookmarks)
				}
			})
		})
	}
}

// timeoutSeconds ends the stream cleanly; without it a random window in
// [MinTimeout, 2×MinTimeout).
func TestTimeouts(t *testing.T) {
	t.Run("timeoutSeconds", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, watch.Options{})
			start := time.Now()
			w := f.watch(rv.Watch{Start: rv.StartMostRecent, Timeout: 5 * time.Second}, nil)
			watchtest.ExpectEnd(t, w)
			if got := time.Since(start); got != 5*time.Second {
				t.Errorf("ended after %v, want 5s", got)
			}
		})
	})
	// A negative timeoutSeconds is a window already over: Kubernetes ends
	// such a watch at once (package rv keeps the sign), and so does Watch;
	// it is not the default window.
	t.Run("negative timeoutSeconds", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, watch.Options{})
			f.src.Put("a", watchtest.NewObject("a", "1"))
			start := time.Now()
			w := f.watch(rv.Watch{Start: rv.StartMostRecent, InitialEvents: true, Bookmarks: true, Timeout: -time.Second}, nil)
			watchtest.ExpectEnd(t, w)
			if got := time.Since(start); got != 0 {
				t.Errorf("ended after %v, want at once", got)
			}
			if d := w.Deadline(); !d.Equal(start) {
				t.Errorf("Deadline() = %v, want the start %v", d, start)
			}
			if n := f.b.Stats().Watchers; n != 0 {
				t.Errorf("Stats().Watchers = %d, want 0", n)
			}
		})
	})
	for _, tc := range []struct {
		name string
		min  time.Duration
	}{{"default window", 0}, {"configured window", time.Minute}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, watch.Options{MinTimeout: tc.min})
				lo := tc.min
				if lo == 0 {
					lo = 30 * time.Minute
				}
				for range 20 {
					start := time.Now()
					w := f.watch(rv.Watch{Start: rv.StartMostRecent}, nil)
					if _, ok := w.Next(); ok {
						t.Fatal("unexpected message")
					}
					if got := time.Since(start); got < lo || got >= 2*lo {
						t.Errorf("ended after %v, want within [%v, %v)", got, lo, 2*lo)
					}
				}
				if n := f.b.Stats().Watchers; n != 0 {
					t.Errorf("Stats().Watchers = %d after every watch timed out, want 0", n)
				}
			})
		})
	}
}

// Cancelling the context, Stop and Close end the stream and release the
// watcher; Watch after Close gives an ended stream.
func TestStopCancelClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := watchtest.NewObjectSource()
		b := watch.NewBroadcaster(src, watchtest.Funcs(), watch.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		byCtx := b.Watch(ctx, exact(0), nil)
		byStop := b.Watch(context.Background(), exact(0), nil)
		byClose := b.Watch(context.Background(), exact(0), nil)
		src.Put("a", watchtest.NewObject("a", "1"))
		for _, w := range []*watch.Watcher[*obj]{byCtx, byStop, byClose} {
			watchtest.Expect(t, w, added("a", 1))
		}
		if s := b.Stats(); s.Watchers != 3 || s.Live != 3 {
			t.Errorf("Stats() = %+v, want 3 watchers, 3 live", s)
		}
		cancel()
		watchtest.ExpectEnd(t, byCtx)
		byStop.Stop()
		byStop.Stop() // idempotent
		watchtest.ExpectEnd(t, byStop)
		if s := b.Stats(); s.Watchers != 1 || s.Live != 1 {
			t.Errorf("Stats() = %+v, want 1 watcher, 1 live", s)
		}
		src.Put("a", watchtest.NewObject("a", "2"))
		b.Close()
		b.Close() // idempotent
		if m, ok := byClose.Next(); ok && m.Revision() == 2 {
			// The event may have been dispatched before Close; the stream
			// still ends right after.
			watchtest.ExpectEnd(t, byClose)
		} else if ok {
			t.Errorf("after Close got %s", watchtest.Describe(m))
		}
		watchtest.ExpectEnd(t, b.Watch(context.Background(), exact(0), nil))
		if s := b.Stats(); s.Watchers != 0 || s.Live != 0 {
			t.Errorf("Stats() after Close = %+v, want no watchers", s)
		}
	})
}

// A watcher whose buffer fills is parked, not closed, and resumes from
// history with no loss, duplicate or reordering — from the window and from
// the Source.
func TestSlowWatcherIsParkedAndResumes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window int
		writes int
	}{
		{"resumes from window", 64, 40},
		{"resumes from source", 8, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, watch.Options{Buffer: 4, RecentEvents: tc.window})
				slow := f.watch(exact(0), nil)
				fast := f.watch(exact(0), nil)
				var want []watchtest.Want
				var fastGot []rv.Version
				drain := func() {
					synctest.Wait()
					for fast.More() {
						m, _ := fast.Next()
						fastGot = append(fastGot, m.Revision())
					}
				}
				for i := range tc.writes {
					k := fmt.Sprint("o", i%7)
					typ := watch.Modified
					if i < 7 {
						typ = watch.Added
					}
					want = append(want, watchtest.Want{Type: typ, Key: k, Revision: f.put(k, fmt.Sprint(i))})
					if i%3 == 0 {
						drain() // the fast watcher keeps up
					}
				}
				drain()
				if len(fastGot) != len(want) || fastGot[0] != 1 || fastGot[len(fastGot)-1] != want[len(want)-1].Revision {
					t.Errorf("fast watcher got revisions %v, want 1..%d", fastGot, len(want))
				}
				synctest.Wait()
				if s := f.b.Stats(); s.Parks == 0 || s.Live != 1 {
					t.Errorf("Stats() = %+v, want the slow watcher parked", s)
				}
				watchtest.Expect(t, slow, want...)
				synctest.Wait()
				watchtest.ExpectIdle(t, slow)
				// Back in the live set.
				if s := f.b.Stats(); s.Live != 2 {
					t.Errorf("Stats().Live = %d after catching up, want 2", s.Live)
				}
				rev := f.put("z", "1")
				watchtest.Expect(t, slow, added("z", rev))
			})
		})
	}
}

// Only when compaction has passed a parked watcher's position does it get
// the 410, after the events it was already given.
func TestParkedWatcherOvertakenByCompaction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{Buffer: 4, RecentEvents: 8})
		f.src.SetRetention(10)
		w := f.watch(exact(0), nil)
		for i := range 30 {
			f.put("a", fmt.Sprint(i))
			synctest.Wait() // the dispatcher keeps up; the watcher does not
		}
		watchtest.Expect(t, w, added("a", 1), modified("a", 2), modified("a", 3), modified("a", 4))
		err := watchtest.ExpectError(t, w, status.ReasonExpired)
		if got, want := err.Error(), "too old resource version: 4 (20)"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
	})
}

// When compaction passes the dispatcher itself (here: the Source failed
// while it was compacted), every live watcher gets its buffered events and
// then the 410; new watches work.
func TestDispatcherOvertaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		w := f.watch(exact(0), nil)
		f.put("a", "1")
		watchtest.Expect(t, w, added("a", 1))
		f.src.FailEvents(errors.New("connection reset"))
		f.src.SetRetention(5)
		for i := range 20 {
			f.put("a", fmt.Sprint(i))
		}
		synctest.Wait()
		watchtest.ExpectIdle(t, w)
		f.src.FailEvents(nil)
		time.Sleep(time.Second) // the dispatcher retries
		err := watchtest.ExpectError(t, w, status.ReasonExpired)
		if got, want := err.Error(), "too old resource version: 1 (16)"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
		w2 := f.watch(exact(f.src.Revision()), nil)
		rev := f.put("b", "1")
		watchtest.Expect(t, w2, added("b", rev))
	})
}

// A Source failure other than compaction while a watcher reads history is
// a 500 ERROR event.
func TestSourceFailureDuringCatchUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{RecentEvents: 1})
		f.put("a", "1")
		f.put("a", "2")
		synctest.Wait()
		f.src.FailEvents(errors.New("disk on fire"))
		w := f.watch(exact(0), nil)
		err := watchtest.ExpectError(t, w, status.ReasonInternalError)
		if got, want := err.Error(), "Internal error occurred: disk on fire"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
	})
}

// Encode once: N watchers cause one encode per (event, delivered type,
// encoder), whatever N, including the selector variants of one event.
func TestEncodeOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		f.put("a", "0", "app", "db") // 1
		const n = 50
		jsonA := &watchtest.JSONEncoder[*obj]{}
		jsonB := &watchtest.JSONEncoder[*obj]{}
		var wg sync.WaitGroup
		frames := make([][]string, n)
		for i := range n {
			var sel watch.Filter[*obj]
			if i%2 == 1 {
				sel = watchtest.LabelFilter("app", "web")
			}
			w := f.watch(exact(1), sel)
			wg.Go(func() {
				for {
					m, ok := w.Next()
					if !ok {
						return
					}
					for _, enc := range []*watchtest.JSONEncoder[*obj]{jsonA, jsonB} {
						b, err := m.Encoded(enc)
						if err != nil {
							t.Error(err)
						}
						frames[i] = append(frames[i], string(b))
					}
				}
			})
		}
		f.put("a", "1", "app", "web") // 2: MODIFIED for all, ADDED for web
		f.put("a", "2", "app", "web") // 3: MODIFIED for both
		f.put("a", "3", "app", "db")  // 4: MODIFIED for all, DELETED for web
		f.del("a")                    // 5: DELETED for all
		synctest.Wait()
		f.b.Close()
		wg.Wait()
		// Distinct (event, type): 2 ADDED, 2 MODIFIED, 3 MODIFIED, 4
		// MODIFIED, 4 DELETED, 5 DELETED.
		for _, enc := range []*watchtest.JSONEncoder[*obj]{jsonA, jsonB} {
			if got := enc.Calls(); got != 6 {
				t.Errorf("encoder called %d times for %d watchers, want 6", got, n)
			}
		}
		wantAll := []string{
			`{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"2","labels":{"app":"web"}},"value":"1"}}`,
			`{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"3","labels":{"app":"web"}},"value":"2"}}`,
			`{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"4","labels":{"app":"db"}},"value":"3"}}`,
			`{"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"5","labels":{"app":"db"}},"value":"3"}}`,
		}
		wantWeb := []string{
			`{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"2","labels":{"app":"web"}},"value":"1"}}`,
			`{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"3","labels":{"app":"web"}},"value":"2"}}`,
			// The previous state, at the revision that moved it out.
			`{"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"4","labels":{"app":"web"}},"value":"2"}}`,
		}
		for i, fs := range frames {
			want := wantAll
			if i%2 == 1 {
				want = wantWeb
			}
			var got []string
			for j := 0; j < len(fs); j += 2 {
				if fs[j] != fs[j+1] {
					t.Fatalf("watcher %d: encoders disagree: %s / %s", i, fs[j], fs[j+1])
				}
				got = append(got, fs[j][:len(fs[j])-1])
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("watcher %d got\n%s\nwant\n%s", i, got, want)
			}
		}
	})
}

// An ERROR event encodes as a Status with an ErrorEncoder and fails
// cleanly without one.
func TestErrorEncoding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := watchtest.NewObjectSource()
		src.Put("a", watchtest.NewObject("a", "1"))
		src.Put("a", watchtest.NewObject("a", "2"))
		src.Compact(2)
		b := watchtest.NewBroadcaster(t, src, watchtest.Funcs(), watch.Options{})
		w := watchtest.Watch(t, b, exact(1), nil)
		m := watchtest.Next(t, w)
		got, err := m.Encoded(&watchtest.JSONEncoder[*obj]{})
		if err != nil {
			t.Fatal(err)
		}
		want := `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}}` + "\n"
		if string(got) != want {
			t.Errorf("got %s want %s", got, want)
		}
		if _, err := m.Encoded(plainEncoder{}); !errors.Is(err, watch.ErrNoErrorEncoder) {
			t.Errorf("Encoded without ErrorEncoder: err = %v, want ErrNoErrorEncoder", err)
		}
	})
}

type plainEncoder struct{}

func (plainEncoder) AppendEvent(dst []byte, typ watch.EventType, o *obj) ([]byte, error) {
	return append(dst, typ...), nil
}

// More reports exactly whether Next would return at once, also when the
// pending events are all filtered out.
func TestMore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		w := f.watch(exact(0), watchtest.LabelFilter("app", "web"))
		if w.More() {
			t.Fatal("More on an idle stream")
		}
		f.put("a", "1", "app", "db")
		synctest.Wait()
		if w.More() {
			t.Fatal("More with only filtered-out events")
		}
		f.put("b", "1", "app", "web")
		synctest.Wait()
		if !w.More() || !w.More() {
			t.Fatal("no More with an event ready")
		}
		watchtest.Expect(t, w, added("b", 2))
		if w.More() {
			t.Fatal("More after taking the only event")
		}

		// A message seen by More is not delivered after Stop...
		f.put("c", "1", "app", "web")
		synctest.Wait()
		if !w.More() {
			t.Fatal("no More with an event ready")
		}
		w.Stop()
		watchtest.ExpectEnd(t, w)

		// ...but an ERROR event seen by More is.
		f2 := newFixture(t, watch.Options{RecentEvents: 1})
		f2.put("a", "1")
		f2.put("a", "2")
		f2.src.Compact(2)
		synctest.Wait()
		e := f2.watch(exact(0), nil)
		if !e.More() {
			t.Fatal("no More with the 410 ready")
		}
		watchtest.ExpectError(t, e, status.ReasonExpired)
	})
}

// A decision with no start is a 500 ERROR event, not a panic.
func TestUnknownStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, watch.Options{})
		w := f.watch(rv.Watch{}, nil)
		watchtest.ExpectError(t, w, status.ReasonInternalError)
	})
}

func TestNewBroadcasterNeedsFuncs(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewBroadcaster without ObjectFuncs did not panic")
		}
	}()
	watch.NewBroadcaster[*obj](watchtest.NewObjectSource(), watch.ObjectFuncs[*obj]{}, watch.Options{})
}

// CloseAfter lets every watcher take the events up to its revision —
// buffered, parked behind a full buffer, or still to be read from the
// Source — and then ends the stream, without the events written after it;
// the dispatcher stops by itself (synctest.Test fails on a goroutine
// left), and a watch started later is over at once.
func TestCloseAfter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   watch.Options
		writes int
	}{
		{"buffered", watch.Options{}, 5},
		{"parked, from the window", watch.Options{Buffer: 2, RecentEvents: 64}, 20},
		{"parked, from the source", watch.Options{Buffer: 2, RecentEvents: 4}, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := watchtest.NewObjectSource()
				b := watch.NewBroadcaster(src, watchtest.Funcs(), tc.opts) // not closed: CloseAfter stops it
				ctx := context.Background()
				live := b.Watch(ctx, rv.Watch{Start: rv.StartMostRecent}, nil)
				var want []watchtest.Want
				for i := range tc.writes {
					k := fmt.Sprint("o", i)
					want = append(want, added(k, src.Put(k, watchtest.NewObject(k, "1"))))
				}
				for i := range tc.writes {
					k := fmt.Sprint("o", i)
					rev, _ := src.Delete(k)
					want = append(want, deleted(k, rev))
				}
				// A watch that starts after the last deletion, as a
				// client's resumption does, ends without an event.
				late := b.Watch(ctx, rv.Watch{Start: rv.StartMostRecent}, nil)
				b.CloseAfter(src.Revision())
				src.Put("after", watchtest.NewObject("after", "1"))
				watchtest.Expect(t, live, want...)
				watchtest.ExpectEnd(t, live)
				watchtest.ExpectEnd(t, late)
				synctest.Wait()
				watchtest.ExpectEnd(t, b.Watch(ctx, rv.Watch{Start: rv.StartExact, Version: 0}, nil))
				if s := b.Stats(); s.Watchers != 0 {
					t.Errorf("Stats() = %+v, want no watchers", s)
				}
				b.CloseAfter(1) // idempotent
				b.Close()       // and Close still works
			})
		})
	}
}

// CloseAfter a revision the dispatcher has not reached yet waits for it:
// the watchers get the events up to it, then their streams end.
func TestCloseAfterFutureRevision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := watchtest.NewObjectSource()
		b := watch.NewBroadcaster(src, watchtest.Funcs(), watch.Options{})
		w := b.Watch(context.Background(), rv.Watch{Start: rv.StartMostRecent}, nil)
		b.CloseAfter(2)
		synctest.Wait()
		watchtest.ExpectIdle(t, w)
		r1 := src.Put("a", watchtest.NewObject("a", "1"))
		r2 := src.Put("a", watchtest.NewObject("a", "2"))
		src.Put("a", watchtest.NewObject("a", "3"))
		watchtest.Expect(t, w, added("a", r1), modified("a", r2))
		watchtest.ExpectEnd(t, w)
	})
}
