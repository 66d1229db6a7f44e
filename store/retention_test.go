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
	"strings"
	"sync"
	"testing"
	"testing/synctest"
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

// TestRetentionMaxHistoryBytes writes a fixed number of updates of 4 KiB
// objects, 80 MiB in all, under a 4 MiB budget: history stays under it
// (by the store's estimate and by the heap), and what fell out of it
// answers 410 as compaction by time does.
func TestRetentionMaxHistoryBytes(t *testing.T) {
	const budget = 4 << 20
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{MaxHistoryBytes: budget}) // the 5-minute window never passes
	payload := strings.Repeat("x", 4<<10)
	f.create(t, newWidget("ns", "a"))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	for i := range 20_000 {
		w := newWidget("ns", "a")
		w.Spec = map[string]string{"payload": payload, "i": strconv.Itoa(i)}
		if _, err := f.r.Update(ctx, w, UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if b := f.s.HistoryBytes(); b > budget {
			t.Fatalf("after %d writes history holds %d bytes, over its %d", i+1, b, budget)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if grown := int64(ms.HeapAlloc) - int64(before); grown > 3*budget {
		t.Errorf("the heap grew by %d bytes for a history budget of %d", grown, budget)
	}
	rev, c := f.s.Revision(), f.s.CompactedRevision()
	// Each version is charged its object (4 KiB and change) and overhead:
	// the budget holds about 900 of them, less the sixteenth of slack.
	if kept := rev - c; kept < 700 || kept > 1000 {
		t.Errorf("%d revisions kept (revision %d, compacted %d)", kept, rev, c)
	}
	if _, err := f.r.Get(ctx, "ns", "a", rv.Read{Semantics: rv.Exact, Version: c - 1}); !status.IsExpired(err) {
		t.Errorf("a read before the byte limit's compaction revision: %v; want 410 Expired", err)
	}
	if _, err := f.s.Events(nil, c-1, 0); !errors.Is(err, rv.ErrCompacted) {
		t.Errorf("events before the compaction revision: %v", err)
	}
	if _, err := f.r.Get(ctx, "ns", "a", rv.Read{Semantics: rv.Exact, Version: c}); err != nil {
		t.Errorf("a read at the compaction revision: %v", err)
	}
}

// Encodings cached for versions in the history count against its budget
// and are taken back with them.
func TestHistoryBytesCountEncodings(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{HistoryWindow: -1})
	w := f.create(t, newWidget("ns", "a"))
	b0 := f.s.HistoryBytes()
	if b0 <= int64(versionOverhead) {
		t.Fatalf("history of one version: %d bytes", b0)
	}
	enc := NewEncoding(func(dst []byte, w *widget) ([]byte, error) { return append(dst, make([]byte, 1000)...), nil })
	p, err := f.r.List(ctx, "ns", ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // cached once
		if _, err := p.Encoded(0, enc); err != nil {
			t.Fatal(err)
		}
	}
	if b := f.s.HistoryBytes(); b < b0+1000 || b > b0+1000+int64(formOverhead)+64 {
		t.Errorf("after caching a 1000-byte form: %d bytes, was %d", b, b0)
	}
	f.s.Compact(f.s.Revision())
	if b := f.s.HistoryBytes(); b != 0 {
		t.Errorf("after compacting everything: %d bytes", b)
	}
	// A form cached for a compacted version (the live object) is not
	// history's.
	other := NewEncoding(func(dst []byte, w *widget) ([]byte, error) { return append(dst, 'x'), nil })
	if _, err := p.Encoded(0, other); err != nil {
		t.Fatal(err)
	}
	_ = w
	if b := f.s.HistoryBytes(); b != 0 {
		t.Errorf("after caching a form of a compacted version: %d bytes", b)
	}
}

// An idle store frees expired history on its own, with a timer that Close
// stops.
func TestIdleStoreExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := New(Options[*widget]{HistoryWindow: time.Minute, Rand: rand.NewChaCha8([32]byte{1})})
		r := s.Resource(ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "widgets"}, Kind: "Widget", Namespaced: true})
		if _, err := r.Create(ctx, newWidget("ns", "a"), CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for range 10 {
			time.Sleep(time.Second)
			if _, err := r.Update(ctx, newWidget("ns", "a"), UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		rev := s.Revision()
		time.Sleep(30 * time.Second)
		synctest.Wait()
		if c := s.CompactedRevision(); c != 0 {
			t.Errorf("compacted to %d within the window", c)
		}
		// No write: the timer expires the history as its time passes.
		time.Sleep(time.Minute)
		synctest.Wait()
		if c := s.CompactedRevision(); c != rev {
			t.Errorf("idle for a window: compacted to %d; want %d", c, rev)
		}
		if b := s.HistoryBytes(); b != 0 {
			t.Errorf("idle for a window: history holds %d bytes", b)
		}
		// A write arms the timer again; Close stops it for good.
		if _, err := r.Update(ctx, newWidget("ns", "a"), UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		s.Close()
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if c := s.CompactedRevision(); c != rev {
			t.Errorf("after Close the timer compacted to %d", c)
		}
		s.Close()
	})
}

func TestEstimateSize(t *testing.T) {
	w := newWidget("ns", "name")
	w.Spec = map[string]string{"k": strings.Repeat("v", 1000)}
	w.Items = []string{strings.Repeat("i", 500)}
	n := estimateSize(w)
	// The strings alone are 1,507 bytes; the struct and headers add a
	// few hundred.
	if n < 1507 || n > 1507+1024 {
		t.Errorf("estimateSize = %d", n)
	}
	if n := estimateSize(nil); n != 0 {
		t.Errorf("estimateSize(nil) = %d", n)
	}
	type node struct {
		Next *node
		V    any
	}
	loop := &node{V: map[string]any{"a": []any{"bc", 1.5}}}
	loop.Next = loop
	if n := estimateSize(loop); n <= 0 {
		t.Errorf("estimateSize of a cycle = %d", n)
	}
}
