package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch"
)

// retained counts what compaction must have released: history slots and
// the versions reachable from index entries.
func retained(s *Store[*widget]) (history, versions, keys int) {
	h := s.hist.Load()
	history = int(h.n.Load())
	x := s.idx.Load()
	var c cursor[*widget]
	x.seek(&c, "")
	for e := c.next(); e != nil; e = c.next() {
		keys++
		for v := e.head.Load(); v != nil; v = v.next.Load() {
			versions++
		}
	}
	return
}

func TestCompact(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{HistoryWindow: -1})
	for i := range 10 {
		f.create(t, newWidget("ns", fmt.Sprint(i)))
	}
	for range 5 {
		for i := range 10 {
			f.r.Update(ctx, newWidget("ns", fmt.Sprint(i)), UpdateOptions{})
		}
	}
	for i := range 5 {
		f.r.Delete(ctx, "ns", fmt.Sprint(i), DeleteOptions{})
	}
	// 65 revisions: 10 keys with 6 versions each, 5 of them also deleted.
	if h, v, k := retained(f.s); h != 65 || v != 65 || k != 10 {
		t.Fatalf("before compaction: history %d, versions %d, keys %d", h, v, k)
	}
	if c := f.s.Compact(1000); c != 65 {
		t.Errorf("Compact(1000) = %d; want it clamped to 65", c)
	}
	// Only the state at 65 is left: 5 live objects, one version each;
	// the deleted keys are gone from the index.
	if h, v, k := retained(f.s); h != 0 || v != 5 || k != 5 {
		t.Errorf("after compaction: history %d, versions %d, keys %d", h, v, k)
	}
	if c := f.s.Compact(10); c != 65 {
		t.Errorf("Compact backwards = %d", c)
	}
	p, err := f.r.List(ctx, "ns", ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: 65}})
	if err != nil || p.Len() != 5 {
		t.Errorf("list at the compaction revision: %v, %v", p, err)
	}
	// Keys deleted before compaction can be created again.
	if _, err := f.r.Create(ctx, newWidget("ns", "0"), CreateOptions{}); err != nil {
		t.Error(err)
	}
}

func TestRetentionMaxRevisions(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{HistoryWindow: -1, MaxRevisions: 100})
	f.create(t, newWidget("ns", "a"))
	for range 1000 {
		f.r.Update(ctx, newWidget("ns", "a"), UpdateOptions{})
	}
	rev, c := f.s.Revision(), f.s.CompactedRevision()
	if rev-c < 100 || rev-c > 100+autoCompactBatch {
		t.Errorf("revision %d, compacted %d; want 100 to %d revisions kept", rev, c, 100+autoCompactBatch)
	}
	if h, v, _ := retained(f.s); h > 100+autoCompactBatch || v > 101+autoCompactBatch {
		t.Errorf("history %d, versions %d", h, v)
	}
	_, err := f.r.Get(ctx, "ns", "a", rv.Read{Semantics: rv.Exact, Version: 5})
	if !status.IsExpired(err) {
		t.Errorf("read of revision 5: %v", err)
	}
	if c2 := f.s.CompactExpired(); c2 != rev-100 {
		t.Errorf("CompactExpired = %d; want %d", c2, rev-100)
	}
}

func TestRetentionWindow(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{HistoryWindow: time.Minute})
	f.create(t, newWidget("ns", "a"))
	for range 60 { // one write a second
		f.clock.Advance(time.Second)
		f.r.Update(ctx, newWidget("ns", "a"), UpdateOptions{})
	}
	if c := f.s.CompactedRevision(); c != 0 {
		t.Errorf("compacted %d within the window", c)
	}
	for range 60 {
		f.clock.Advance(time.Second)
		f.r.Update(ctx, newWidget("ns", "a"), UpdateOptions{})
	}
	// 121 revisions, one a second: those older than a minute go, in
	// batches of autoCompactBatch.
	rev, c := f.s.Revision(), f.s.CompactedRevision()
	if c < rev-60-autoCompactBatch || c > rev-60 {
		t.Errorf("revision %d, compacted %d; want about %d", rev, c, rev-60)
	}
	// An idle store keeps its history until asked.
	f.clock.Advance(2 * time.Minute)
	if c := f.s.CompactExpired(); c != rev {
		t.Errorf("CompactExpired after idling = %d; want %d", c, rev)
	}
	if _, err := f.s.Events(nil, rev-1, 0); !errors.Is(err, rv.ErrCompacted) {
		t.Errorf("events before the window: %v", err)
	}
}

// TestReadsRacingCompaction reads close to the compaction revision while
// writes compact history (MaxRevisions) underneath: every list, paged list,
// event replay and snapshot either answers 410 or answers exactly the
// state at its revision, never a state with pieces cut away (DESIGN
// invariant 4: what has been compacted answers 410).
func TestReadsRacingCompaction(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{HistoryWindow: -1, MaxRevisions: 40})
	c := &churn{f: f, rng: rand.New(rand.NewPCG(13, 14)), live: map[string]string{}}
	for range 200 {
		c.step(t)
	}
	type read struct {
		what  string
		rev   rv.Version
		state map[string]string
		rems  map[string]int64 // last key of a page -> remainingItemCount
		evs   []watch.Event[*widget]
	}
	gone := func(err error) bool { return status.IsExpired(err) || errors.Is(err, rv.ErrCompacted) }
	readers := []func() (read, error){
		func() (read, error) { // an exact list at the compaction revision
			at := f.s.CompactedRevision()
			p, err := f.r.List(ctx, "", ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: at}})
			if err != nil {
				return read{}, err
			}
			got := read{what: "exact list", rev: p.ResourceVersion(), state: map[string]string{}}
			for i := range p.Len() {
				got.state[p.Key(i)] = p.View(i).ResourceVersion
			}
			return got, nil
		},
		func() (read, error) { // a paged list at the latest revision
			got := read{what: "paged list", state: map[string]string{}, rems: map[string]int64{}}
			read := rv.Read{Semantics: rv.MostRecent, Limit: 4}
			for {
				p, err := f.r.List(ctx, "", ListOptions{Read: read})
				if err != nil {
					return got, err
				}
				got.rev = p.ResourceVersion()
				for i := range p.Len() {
					got.state[p.Key(i)] = p.View(i).ResourceVersion
				}
				if p.Continue() == "" {
					return got, nil
				}
				got.rems[p.Key(p.Len()-1)], _ = p.RemainingItemCount()
				read = rv.Read{Semantics: rv.ContinueExact, Continue: p.Continue(), Limit: read.Limit}
			}
		},
		func() (read, error) { // the snapshot at the compaction revision
			at := f.s.CompactedRevision()
			got := read{what: "snapshot", rev: at, state: map[string]string{}}
			err := f.s.Snapshot(at, func(k string, w *widget) bool { got.state[k] = w.ResourceVersion; return true })
			return got, err
		},
		func() (read, error) { // the events after the compaction revision
			at := f.s.CompactedRevision()
			evs, err := f.s.Events(nil, at, 0)
			return read{what: "events", rev: at, evs: evs}, err
		},
	}
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				c.step(t)
			}
		}
	})
	results := make([][]read, len(readers))
	expired := make([]int, len(readers))
	var wg sync.WaitGroup
	for i, fn := range readers {
		wg.Go(func() {
			for range 150 {
				got, err := fn()
				switch {
				case gone(err):
					expired[i]++
				case err != nil:
					t.Error(err)
					return
				default:
					results[i] = append(results[i], got)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	writer.Wait()
	for i, rs := range results {
		if len(rs) == 0 {
			t.Errorf("reader %d: every read expired (%d)", i, expired[i])
		}
		for _, got := range rs {
			want := c.stateAt(got.rev)
			if got.what == "events" {
				// Replay the events on the state they start from: each
				// must be the write made at its revision, with the right
				// type and previous version.
				for i, ev := range got.evs {
					w := c.writes[ev.Revision-c.writes[0].rev]
					typ, prev := watch.Modified, want[w.key]
					switch {
					case w.rv == "":
						typ = watch.Deleted
						delete(want, w.key)
					case prev == "":
						typ = watch.Added
						want[w.key] = w.rv
					default:
						want[w.key] = w.rv
					}
					gotPrev := ""
					if ev.Prev != nil {
						gotPrev = ev.Prev.ResourceVersion
					}
					if ev.Revision != got.rev+rv.Version(i)+1 || ev.Type != typ || ev.Key != w.key || gotPrev != prev ||
						(typ != watch.Deleted && ev.Object.ResourceVersion != w.rv) {
						t.Errorf("events after %d: event %d is %s %s at %d (prev %q); want %s %s@%s (prev %q)",
							got.rev, i, ev.Type, ev.Key, ev.Revision, gotPrev, typ, w.key, w.rv, prev)
						break
					}
				}
				continue
			}
			if !maps.Equal(got.state, want) {
				t.Errorf("%s at %d: %d objects, %d existed", got.what, got.rev, len(got.state), len(want))
			}
			keys := slices.Sorted(maps.Keys(want))
			for last, rem := range got.rems {
				if n := len(keys) - sort.SearchStrings(keys, last) - 1; rem != int64(n) {
					t.Errorf("%s at %d: remainingItemCount after %s = %d; want %d", got.what, got.rev, last, rem, n)
				}
			}
		}
	}
	t.Logf("reads per reader: %d, %d, %d, %d; expired: %v", len(results[0]), len(results[1]), len(results[2]), len(results[3]), expired)
}

// TestCompactionFreesVersions checks that compacted versions become
// garbage, so that memory stays bounded by the retention settings: the
// arrays of the history and of the flip logs may keep some reachable in
// their unused front (readers may still be using them), but only a
// fraction of what they retain.
func TestCompactionFreesVersions(t *testing.T) {
	ctx := context.Background()
	const keep, writes = 400, 5000
	f := newFixture(t, Options[*widget]{HistoryWindow: -1, MaxRevisions: keep})
	var objs []weak.Pointer[widget]
	for i := range writes {
		name := fmt.Sprint(i % 50)
		var w *widget
		var err error
		if i%3 == 2 { // deletions and re-creations fill the flip logs
			w, _, err = f.r.Delete(ctx, "ns", name, DeleteOptions{ReadOnlyResult: true})
		} else {
			w, err = f.r.Update(ctx, newWidget("ns", name), UpdateOptions{AllowCreate: true, ReadOnlyResult: true})
		}
		if err != nil && !status.IsNotFound(err) {
			t.Fatal(err)
		}
		if w != nil {
			objs = append(objs, weak.Make(w))
		}
	}
	// The current objects are reachable, whatever their revision.
	current := map[*widget]bool{}
	f.s.Snapshot(f.s.Revision(), func(_ string, w *widget) bool { current[w] = true; return true })
	runtime.GC()
	c := uint64(f.s.CompactedRevision())
	alive := 0
	for _, p := range objs {
		if w := p.Value(); w != nil && !current[w] {
			if r, _ := strconv.ParseUint(w.ResourceVersion, 10, 64); r < c {
				alive++
			}
		}
	}
	// The history's array keeps at most a quarter of what it retains, the
	// flip logs' arrays a quarter of theirs (here about two thirds of the
	// revisions are flips, some compacted ones in both).
	if alive > keep/2 {
		t.Errorf("%d compacted versions still reachable; want at most %d", alive, keep/2)
	}
}
