package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch"
)

// The store and its prefix sources feed package watch, and share event
// encodings with it.
var (
	_ watch.Source[*widget]     = (*Store[*widget])(nil)
	_ watch.Source[*widget]     = (*Source[*widget])(nil)
	_ watch.EventCache[*widget] = (*Store[*widget])(nil)
	_ watch.EventCache[*widget] = (*Source[*widget])(nil)
)

func describe(evs []watch.Event[*widget]) string {
	var parts []string
	for _, ev := range evs {
		s := fmt.Sprintf("%d %s %s@%s", ev.Revision, ev.Type, ev.Key, ev.Object.ResourceVersion)
		if ev.Prev != nil {
			s += " prev@" + ev.Prev.ResourceVersion
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func TestEvents(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	gadgets := f.s.Resource(ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "gadgets"}})
	f.create(t, newWidget("ns", "a"))                                        // 1
	gadgets.Create(ctx, newWidget("", "g"), CreateOptions{})                 // 2
	f.r.Update(ctx, newWidget("ns", "a"), UpdateOptions{})                   // 3
	f.r.Delete(ctx, "ns", "a", DeleteOptions{})                              // 4
	f.create(t, newWidget("ns", "a"))                                        // 5
	gadgets.Delete(ctx, "", "g", DeleteOptions{})                            // 6
	f.r.Create(ctx, newWidget("ns", "a"), CreateOptions{DryRun: true})       // nothing
	f.r.Update(ctx, newWidget("ns", "missing"), UpdateOptions{DryRun: true}) // nothing

	all := "1 ADDED widgets.example.com/ns/a@1; 2 ADDED gadgets/g@2; 3 MODIFIED widgets.example.com/ns/a@3 prev@1; " +
		"4 DELETED widgets.example.com/ns/a@4 prev@3; 5 ADDED widgets.example.com/ns/a@5; 6 DELETED gadgets/g@6 prev@2"
	if got := describe(f.events(t, 0)); got != all {
		t.Errorf("Events(0) =\n%s\nwant\n%s", got, all)
	}
	src := f.r.Source()
	evs, err := src.Events(nil, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "1 ADDED widgets.example.com/ns/a@1; 3 MODIFIED widgets.example.com/ns/a@3 prev@1; " +
		"4 DELETED widgets.example.com/ns/a@4 prev@3; 5 ADDED widgets.example.com/ns/a@5"
	if got := describe(evs); got != want {
		t.Errorf("resource Events(0) =\n%s\nwant\n%s", got, want)
	}
	evs, _ = src.Events(evs[:0], 1, 2)
	if got := describe(evs); got != "3 MODIFIED widgets.example.com/ns/a@3 prev@1; 4 DELETED widgets.example.com/ns/a@4 prev@3" {
		t.Errorf("Events(1, max 2) = %s", got)
	}
	if evs, _ := src.Events(nil, 6, 10); len(evs) != 0 {
		t.Errorf("Events(latest) = %s", describe(evs))
	}
	if src.Revision() != 6 {
		t.Errorf("Revision = %d", src.Revision())
	}

	f.s.Compact(3)
	if _, err := src.Events(nil, 3, 0); err != nil {
		t.Errorf("Events at the compaction revision: %v", err)
	}
	_, err = src.Events(nil, 2, 0)
	var ce *rv.CompactedError
	if !errors.As(err, &ce) || ce.Requested != 2 || ce.Compacted != 3 || !errors.Is(err, rv.ErrCompacted) {
		t.Errorf("Events(2) after Compact(3) = %v", err)
	}
}

func TestChanged(t *testing.T) {
	f := newFixture(t, Options[*widget]{})
	closed := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	next := f.s.Changed(0)
	future := f.s.Changed(2)
	if closed(next) || closed(future) {
		t.Fatal("closed before any write")
	}
	f.create(t, newWidget("ns", "a"))
	if !closed(next) || closed(future) || !closed(f.s.Changed(0)) {
		t.Fatalf("after revision 1: next %v, future %v", closed(next), closed(future))
	}
	f.create(t, newWidget("ns", "b"))
	if closed(future) {
		t.Fatal("Changed(2) closed at revision 2")
	}
	f.create(t, newWidget("ns", "c"))
	if !closed(future) {
		t.Fatal("Changed(2) still open at revision 3")
	}
}

func TestSnapshot(t *testing.T) {
	f := history6(t)
	src := f.r.Source()
	var got []string
	err := src.Snapshot(3, func(key string, w *widget) bool {
		got = append(got, key+"@"+w.ResourceVersion)
		return true
	})
	want := "widgets.example.com/ns/a@1 widgets.example.com/ns/b@2 widgets.example.com/ns/c@3"
	if err != nil || strings.Join(got, " ") != want {
		t.Errorf("Snapshot(3) = %v, %v", got, err)
	}
	n := 0
	src.Snapshot(6, func(string, *widget) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("Snapshot did not stop when yield returned false: %d calls", n)
	}
	if err := src.Snapshot(7, func(string, *widget) bool { return true }); !errors.Is(err, rv.ErrFutureRevision) {
		t.Errorf("Snapshot(7) = %v", err)
	}
	f.s.Compact(4)
	var ce *rv.CompactedError
	if err := src.Snapshot(3, func(string, *widget) bool { return true }); !errors.As(err, &ce) || ce.Compacted != 4 {
		t.Errorf("Snapshot(3) after Compact(4) = %v", err)
	}
}

func TestChangedFutureWaitersBounded(t *testing.T) {
	f := newFixture(t, Options[*widget]{})
	for i := range maxFutureWaiters + 100 {
		f.s.Changed(rv.Version(1000 + i))
	}
	if n := len(f.s.future); n != maxFutureWaiters {
		t.Fatalf("%d future waiters kept", n)
	}
	c := f.s.Changed(1 << 60) // over the bound: the next commit's channel
	f.create(t, newWidget("ns", "a"))
	select {
	case <-c:
	default:
		t.Fatal("fallback channel not closed by the next commit")
	}
	for range 1000 + maxFutureWaiters {
		f.r.Update(context.Background(), newWidget("ns", "a"), UpdateOptions{})
	}
	if n := len(f.s.future); n != 0 {
		t.Errorf("%d future waiters left after their revisions passed", n)
	}
}

// TestChangedNoLostWakeup races waiters against commits: every waiter
// that asked for a revision the writer reaches must wake up.
func TestChangedNoLostWakeup(t *testing.T) {
	f := newFixture(t, Options[*widget]{})
	const writes = 2000
	done := make(chan struct{})
	errs := make(chan error, 8)
	for w := range 8 {
		go func() {
			for after := rv.Version(0); after < writes; {
				target := after + rv.Version(w%3) // the next commit, or a future one
				select {
				case <-f.s.Changed(target):
				case <-time.After(10 * time.Second):
					errs <- fmt.Errorf("waiter %d: no wake-up past %d (revision %d)", w, target, f.s.Revision())
					return
				}
				if got := f.s.Revision(); got <= target {
					errs <- fmt.Errorf("waiter %d: woken at %d for > %d", w, got, target)
					return
				}
				after = f.s.Revision()
			}
			errs <- nil
		}()
	}
	go func() {
		defer close(done)
		f.create(t, newWidget("ns", "a"))
		for range writes + 2 {
			f.r.Update(context.Background(), newWidget("ns", "a"), UpdateOptions{})
		}
	}()
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	<-done
}

// countingEncoder encodes an event as its type and the object's name and
// resourceVersion, and counts its calls.
type countingEncoder struct{ calls int }

func (e *countingEncoder) AppendEvent(dst []byte, typ watch.EventType, w *widget) ([]byte, error) {
	e.calls++
	return fmt.Appendf(dst, "%s %s@%s", typ, w.Name, w.ResourceVersion), nil
}

// TestEncodedEvent checks the store's watch.EventCache: one encoding per
// stored version, encoder and event type, for the objects of events
// (deletions included) and of snapshots, also for a current object whose
// revision is compacted (the initial events of a watch are mostly such
// objects); anything else is encoded each time.
func TestEncodedEvent(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	f.create(t, newWidget("ns", "a"))                      // 1
	f.r.Update(ctx, newWidget("ns", "a"), UpdateOptions{}) // 2
	f.create(t, newWidget("ns", "b"))                      // 3
	f.r.Delete(ctx, "ns", "b", DeleteOptions{})            // 4
	f.s.Compact(3)
	src := f.r.Source()
	evs, err := src.Events(nil, 3, 0)
	if err != nil || len(evs) != 1 {
		t.Fatalf("Events(3) = %s, %v", describe(evs), err)
	}
	var a *widget // a@2: current, older than the compaction revision
	src.Snapshot(4, func(_ string, w *widget) bool { a = w; return false })
	keyA, keyB := f.r.Key("ns", "a"), f.r.Key("ns", "b")
	enc, other := &countingEncoder{}, &countingEncoder{}
	for i, tc := range []struct {
		enc   *countingEncoder
		typ   watch.EventType
		key   string
		obj   *widget
		want  string
		calls int // enc's calls after this step
	}{
		{enc, watch.Added, keyA, a, "ADDED a@2", 1},
		{enc, watch.Added, keyA, a, "ADDED a@2", 1},
		{enc, watch.Modified, keyA, a, "MODIFIED a@2", 2},
		{other, watch.Added, keyA, a, "ADDED a@2", 2},
		{enc, watch.Deleted, keyB, evs[0].Object, "DELETED b@4", 3},
		{enc, watch.Deleted, keyB, evs[0].Object, "DELETED b@4", 3},
		// Not a stored object, or not under that key: encoded each time.
		{enc, watch.Added, keyA, f.get(t, "ns", "a"), "ADDED a@2", 4},
		{enc, watch.Added, keyA, f.get(t, "ns", "a"), "ADDED a@2", 5},
		{enc, watch.Modified, keyB, a, "MODIFIED a@2", 6},
		{enc, watch.Modified, keyB, a, "MODIFIED a@2", 7},
	} {
		b, err := src.EncodedEvent(tc.enc, tc.typ, tc.key, tc.obj)
		if err != nil || string(b) != tc.want || enc.calls != tc.calls {
			t.Errorf("step %d: EncodedEvent(%s, %s) = %q, %v, %d encodes; want %q, %d encodes", i, tc.typ, tc.obj.Name, b, err, enc.calls, tc.want, tc.calls)
		}
	}
	if other.calls != 1 {
		t.Errorf("the second encoder ran %d times; want 1", other.calls)
	}
}
