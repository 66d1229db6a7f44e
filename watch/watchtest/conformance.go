package watchtest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch"
)

// SourceHarness adapts a watch.Source implementation to CheckSource.
type SourceHarness[T any] struct {
	// Source is the implementation under test. It holds no objects yet;
	// its revision may be anything.
	Source watch.Source[T]
	// Put creates or replaces the object at key and returns the write's
	// revision.
	Put func(key string) rv.Version
	// Delete deletes the existing object at key and returns the write's
	// revision.
	Delete func(key string) rv.Version
	// Compact compacts the history at rev.
	Compact func(rev rv.Version)
	// Version returns an object's resourceVersion.
	Version func(obj T) rv.Version
	// Name returns the test key ("a", "b", ...) of a key the Source
	// reports, for Sources whose keys carry more, such as a store's
	// "prefix/namespace/name". nil means the keys are the test keys.
	Name func(key string) string
}

func (h SourceHarness[T]) name(key string) string {
	if h.Name == nil {
		return key
	}
	return h.Name(key)
}

// CheckSource checks that a watch.Source keeps the contract a Broadcaster
// relies on: ordered events with their types, previous states and
// revisions; Changed; snapshots at past revisions; compaction errors; and,
// if the Source implements watch.EventCache, one encoding per stored
// version, encoder and event type.
// newHarness is called once per subtest and must return a fresh, empty
// Source.
func CheckSource[T any](t *testing.T, newHarness func(t *testing.T) SourceHarness[T]) {
	t.Run("events", func(t *testing.T) {
		h := newHarness(t)
		base := h.Source.Revision()
		r1 := h.Put("a")
		r2 := h.Put("b")
		r3 := h.Put("a")
		r4 := h.Delete("b")
		if !(base < r1 && r1 < r2 && r2 < r3 && r3 < r4) {
			t.Fatalf("revisions %d, %d, %d, %d after %d are not increasing", r1, r2, r3, r4, base)
		}
		if got := h.Source.Revision(); got != r4 {
			t.Errorf("Revision() = %d after the last write at %d", got, r4)
		}
		evs := events(t, h, base, 10)
		want := fmt.Sprintf("[ADDED a@%d ADDED b@%d MODIFIED a@%d DELETED b@%d]", r1, r2, r3, r4)
		if got := describeEvents(evs); got != want {
			t.Fatalf("Events(%d, 10) = %s, want %s", base, got, want)
		}
		for _, ev := range evs {
			if v := h.Version(ev.Object); v != ev.Revision {
				t.Errorf("%s %s@%d: object resourceVersion %d, want the event's", ev.Type, ev.Key, ev.Revision, v)
			}
		}
		if v := h.Version(evs[2].Prev); v != r1 {
			t.Errorf("MODIFIED a: Prev has resourceVersion %d, want %d", v, r1)
		}
		if v := h.Version(evs[3].Prev); v != r2 {
			t.Errorf("DELETED b: Prev has resourceVersion %d, want %d", v, r2)
		}
	})

	t.Run("max and dst", func(t *testing.T) {
		h := newHarness(t)
		base := h.Source.Revision()
		var revs []rv.Version
		for _, k := range []string{"a", "b", "c", "d"} {
			revs = append(revs, h.Put(k))
		}
		sentinel := watch.Event[T]{Key: "sentinel"}
		evs, err := h.Source.Events([]watch.Event[T]{sentinel}, base, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 3 || evs[0].Key != "sentinel" || evs[1].Revision != revs[0] || evs[2].Revision != revs[1] {
			t.Fatalf("Events(dst with one event, %d, max 2) = %s, want the sentinel and the two oldest", base, describeEvents(evs))
		}
		if got := describeEvents(events(t, h, revs[1], 10)); got != fmt.Sprintf("[ADDED c@%d ADDED d@%d]", revs[2], revs[3]) {
			t.Errorf("Events(%d) = %s", revs[1], got)
		}
		if got := events(t, h, revs[3], 10); len(got) != 0 {
			t.Errorf("Events at the latest revision = %s, want none", describeEvents(got))
		}
	})

	t.Run("changed", func(t *testing.T) {
		h := newHarness(t)
		r := h.Put("a")
		if closed(h.Source.Changed(r)) {
			t.Error("Changed(latest) is closed before any newer write")
		}
		if !closed(h.Source.Changed(r - 1)) {
			t.Error("Changed(older) is not closed")
		}
		ch := h.Source.Changed(r)
		h.Put("b")
		if !closed(ch) {
			t.Error("Changed(r) is not closed after a write at r+1")
		}
	})

	t.Run("snapshot", func(t *testing.T) {
		h := newHarness(t)
		base := h.Source.Revision()
		r1 := h.Put("b")
		r2 := h.Put("a")
		r3 := h.Put("b")
		r4 := h.Delete("a")
		for _, tc := range []struct {
			at   rv.Version
			want string
		}{
			{base, "[]"},
			{r1, fmt.Sprintf("[b@%d]", r1)},
			{r2, fmt.Sprintf("[a@%d b@%d]", r2, r1)},
			{r3, fmt.Sprintf("[a@%d b@%d]", r2, r3)},
			{r4, fmt.Sprintf("[b@%d]", r3)},
		} {
			var got []string
			if err := h.Source.Snapshot(tc.at, func(key string, obj T) bool {
				got = append(got, fmt.Sprintf("%s@%d", h.name(key), h.Version(obj)))
				return true
			}); err != nil {
				t.Errorf("Snapshot(%d): %v", tc.at, err)
			}
			if fmt.Sprint(got) != tc.want {
				t.Errorf("Snapshot(%d) = %v, want %s", tc.at, got, tc.want)
			}
		}
		n := 0
		h.Source.Snapshot(r3, func(string, T) bool { n++; return false })
		if n != 1 {
			t.Errorf("Snapshot went on %d times after yield returned false", n-1)
		}
		if err := h.Source.Snapshot(r4+1, func(string, T) bool { return true }); !errors.Is(err, rv.ErrFutureRevision) {
			t.Errorf("Snapshot(%d) past the latest revision: err = %v, want ErrFutureRevision", r4+1, err)
		}
	})

	t.Run("event cache", func(t *testing.T) { checkEventCache(t, newHarness(t)) })

	t.Run("compaction", func(t *testing.T) {
		h := newHarness(t)
		r1 := h.Put("a")
		r2 := h.Put("a")
		r3 := h.Put("b")
		h.Compact(r2)
		var ce *rv.CompactedError
		if _, err := h.Source.Events(nil, r1, 10); !errors.As(err, &ce) || !errors.Is(err, rv.ErrCompacted) || ce.Compacted != r2 || ce.Requested != r1 {
			t.Errorf("Events(%d) after Compact(%d): err = %v, want a CompactedError{Requested: %d, Compacted: %d}", r1, r2, err, r1, r2)
		}
		if got := describeEvents(events(t, h, r2, 10)); got != fmt.Sprintf("[ADDED b@%d]", r3) {
			t.Errorf("Events at the compaction revision = %s", got)
		}
		if err := h.Source.Snapshot(r2, func(string, T) bool { return true }); err != nil {
			t.Errorf("Snapshot at the compaction revision: %v", err)
		}
		if err := h.Source.Snapshot(r1, func(string, T) bool { return true }); !errors.As(err, &ce) || ce.Compacted != r2 {
			t.Errorf("Snapshot(%d) after Compact(%d): err = %v, want a CompactedError", r1, r2, err)
		}
	})
}

// checkEventCache checks a Source's watch.EventCache: one encoding per
// stored version, encoder and type, whether the object came from Events or
// from Snapshot.
func checkEventCache[T any](t *testing.T, h SourceHarness[T]) {
	c, ok := h.Source.(watch.EventCache[T])
	if !ok {
		t.Skip("the Source does not implement watch.EventCache")
	}
	base := h.Source.Revision()
	r1 := h.Put("a")
	r2 := h.Put("a")
	evs := events(t, h, base, 10)
	if len(evs) != 2 {
		t.Fatalf("Events(%d) = %s, want two events", base, describeEvents(evs))
	}
	// EncodedEvent takes the key as the Source reports it.
	raw, err := h.Source.Events(nil, base, 1)
	if err != nil || len(raw) != 1 {
		t.Fatalf("Events(%d, 1) = %s, %v", base, describeEvents(raw), err)
	}
	key := raw[0].Key
	var snap T
	if err := h.Source.Snapshot(r2, func(_ string, obj T) bool { snap = obj; return false }); err != nil {
		t.Fatalf("Snapshot(%d): %v", r2, err)
	}
	enc, other := &versionEncoder[T]{version: h.Version}, &versionEncoder[T]{version: h.Version}
	for i, tc := range []struct {
		enc   *versionEncoder[T]
		typ   watch.EventType
		obj   T
		want  string
		calls int64 // enc's calls after this step
	}{
		{enc, watch.Added, evs[0].Object, fmt.Sprintf("ADDED@%d", r1), 1},
		{enc, watch.Added, evs[0].Object, fmt.Sprintf("ADDED@%d", r1), 1},
		{enc, watch.Modified, evs[1].Object, fmt.Sprintf("MODIFIED@%d", r2), 2},
		// The same version from Snapshot shares the encoding...
		{enc, watch.Modified, snap, fmt.Sprintf("MODIFIED@%d", r2), 2},
		// ...but another type or encoder is another encoding.
		{enc, watch.Added, snap, fmt.Sprintf("ADDED@%d", r2), 3},
		{enc, watch.Added, evs[1].Object, fmt.Sprintf("ADDED@%d", r2), 3},
		{other, watch.Added, evs[1].Object, fmt.Sprintf("ADDED@%d", r2), 3},
	} {
		b, err := c.EncodedEvent(tc.enc, tc.typ, key, tc.obj)
		if err != nil || string(b) != tc.want {
			t.Errorf("step %d: EncodedEvent(%s, @%d) = %q, %v; want %q", i, tc.typ, h.Version(tc.obj), b, err, tc.want)
		}
		if n := enc.calls.Load(); n != tc.calls {
			t.Errorf("step %d: EncodedEvent(%s, @%d): the encoder has run %d times, want %d", i, tc.typ, h.Version(tc.obj), n, tc.calls)
		}
	}
	if n := other.calls.Load(); n != 1 {
		t.Errorf("a second encoder ran %d times, want 1", n)
	}
}

// versionEncoder encodes an event as its type and its object's
// resourceVersion, and counts its calls.
type versionEncoder[T any] struct {
	version func(T) rv.Version
	calls   atomic.Int64
}

func (e *versionEncoder[T]) AppendEvent(dst []byte, typ watch.EventType, obj T) ([]byte, error) {
	e.calls.Add(1)
	return fmt.Appendf(dst, "%s@%d", typ, e.version(obj)), nil
}

func events[T any](t *testing.T, h SourceHarness[T], after rv.Version, max int) []watch.Event[T] {
	t.Helper()
	evs, err := h.Source.Events(nil, after, max)
	if err != nil {
		t.Fatalf("Events(%d, %d): %v", after, max, err)
	}
	if !slices.IsSortedFunc(evs, func(a, b watch.Event[T]) int { return cmp.Compare(a.Revision, b.Revision) }) {
		t.Errorf("Events(%d) not in revision order: %s", after, describeEvents(evs))
	}
	for i := range evs {
		evs[i].Key = h.name(evs[i].Key)
	}
	return evs
}

func describeEvents[T any](evs []watch.Event[T]) string {
	s := make([]string, len(evs))
	for i, ev := range evs {
		s[i] = fmt.Sprintf("%s %s@%d", ev.Type, ev.Key, ev.Revision)
	}
	return fmt.Sprint(s)
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
