package watch_test

import (
	"context"
	"fmt"
	"strconv"
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

// TestLoad: 1,000 watchers, a tenth of them slow, 10,000 writes, and a
// history shorter than the run. Every watcher must receive every event
// exactly once and in order, or — only if compaction overtook it — its
// events up to some revision followed by the 410. The stalled watchers do
// not read at all until every write has returned, so a write that waited
// for a watcher would deadlock the test.
//
// It runs in a synctest bubble, with real parallelism but a fake clock: the
// writer pauses for a millisecond every 20 writes, and the paced slow
// watchers sleep to stay lag events behind it, so who is behind by how much
// is deterministic while the broadcaster runs at full speed. It makes no
// timing assertions, and runs at full size with and without -race (about
// 0.6 s of CPU without, 5.5 s with).
func TestLoad(t *testing.T) { synctest.Test(t, testLoad) }

func testLoad(t *testing.T) {
	const (
		watchers  = 1000
		writes    = 10000
		keys      = 100
		retention = 2000 // events the Source keeps
		window    = 256  // events the broadcaster keeps
		lag       = 1500 // how far behind the paced slow watchers stay
	)
	slow := watchers / 10
	stalled := slow / 10

	src := watchtest.NewObjectSource()
	src.SetRetention(retention)
	b := watch.NewBroadcaster(src, watchtest.Funcs(), watch.Options{RecentEvents: window})
	defer b.Close()

	keyOf := make([]string, keys)
	for i := range keyOf {
		keyOf[i] = "o" + strconv.Itoa(i)
	}
	var written atomic.Int64
	writerDone := make(chan struct{})

	type result struct {
		last    rv.Version
		err     *status.Error
		maxLag  int64
		problem string
	}
	results := make([]result, watchers)
	var wg sync.WaitGroup
	for i := range watchers {
		w := b.Watch(context.Background(), rv.Watch{Start: rv.StartExact, Version: src.Revision()}, nil)
		kind := "fast"
		switch {
		case i < stalled:
			kind = "stalled"
		case i < slow:
			kind = "slow"
		}
		wg.Go(func() {
			defer w.Stop()
			r := &results[i]
			if kind == "stalled" {
				<-writerDone
			}
			for r.last < writes {
				m, ok := w.Next()
				if !ok {
					r.problem = "stream ended"
					return
				}
				if m.Type() == watch.Error {
					r.err = m.Err()
					return
				}
				want := r.last + 1
				typ := watch.Modified
				if want <= keys {
					typ = watch.Added
				}
				if m.Revision() != want || m.Type() != typ || m.Key() != keyOf[(want-1)%keys] {
					r.problem = fmt.Sprintf("after %d got %s, want %s", r.last, watchtest.Describe(m), watchtest.Want{Type: typ, Key: keyOf[(want-1)%keys], Revision: want})
					return
				}
				r.last = want
				if kind == "slow" && r.last%100 == 0 {
					// Stay about lag events behind the writer: far past the
					// buffer and the window, within the Source's history.
					for {
						l := written.Load() - int64(r.last)
						r.maxLag = max(r.maxLag, l)
						if l >= lag || written.Load() == writes {
							break
						}
						time.Sleep(time.Millisecond)
					}
				}
			}
		})
	}

	for i := range writes {
		src.Put(keyOf[i%keys], watchtest.NewObject(keyOf[i%keys], strconv.Itoa(i)))
		written.Add(1)
		if i%20 == 19 {
			time.Sleep(time.Millisecond)
		}
	}
	close(writerDone)
	wg.Wait()

	var complete, expired, resumed int
	for i, r := range results {
		switch {
		case r.problem != "":
			t.Errorf("watcher %d: %s", i, r.problem)
		case r.err != nil:
			// The 410 is only acceptable if compaction really passed the
			// watcher's position, and it names that position.
			msg := r.err.Error()
			var pos, compacted uint64
			if _, err := fmt.Sscanf(msg, "too old resource version: %d (%d)", &pos, &compacted); err != nil ||
				!status.IsExpired(r.err) || pos != uint64(r.last) || compacted <= pos {
				t.Errorf("watcher %d: after %d got %q", i, r.last, msg)
			}
			expired++
		default:
			complete++
			if r.maxLag > window+128 {
				resumed++ // it was too far behind for its buffer: parked and resumed
			}
		}
		if i >= slow && r.err != nil {
			t.Errorf("fast watcher %d was overtaken by compaction at %d", i, r.last)
		}
		if i < stalled && r.err == nil {
			t.Errorf("stalled watcher %d was not overtaken by compaction (last %d)", i, r.last)
		}
	}
	s := b.Stats()
	t.Logf("%d watchers (%d slow, %d stalled), %d writes: %d complete (%d of them resumed from history after lagging past buffer and window), %d ended with 410; stats %+v",
		watchers, slow, stalled, writes, complete, resumed, expired, s)
	if s.Parks == 0 || resumed == 0 {
		t.Errorf("no watcher was parked and resumed (parks %d, resumed %d)", s.Parks, resumed)
	}
	if want := slow - stalled; resumed < want {
		t.Errorf("%d watchers resumed from history after lagging, want all %d paced slow ones", resumed, want)
	}
}
