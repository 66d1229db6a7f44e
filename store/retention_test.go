package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// retained counts what compaction must have released: history slots and
// the versions reachable from index entries.
func retained(s *Store[*widget]) (history, versions, keys int) {
	h := s.hist.Load()
	history = int(s.rev.Load() + 1 - h.base)
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
	f := newFixture(t, Options[*widget]{Window: -1})
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
	f := newFixture(t, Options[*widget]{Window: -1, MaxRevisions: 100})
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
	f := newFixture(t, Options[*widget]{Window: time.Minute})
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
