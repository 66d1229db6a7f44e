package watchtest_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch"
	"github.com/apisem/apisem/watch/watchtest"
)

type obj = watchtest.Object

func collect(t *testing.T, s *watchtest.Source[*obj], after rv.Version, max int) []string {
	t.Helper()
	evs, err := s.Events(nil, after, max)
	if err != nil {
		t.Fatalf("Events(%d, %d): %v", after, max, err)
	}
	var out []string
	for _, ev := range evs {
		if ev.Object.Version() != ev.Revision {
			t.Errorf("event %d carries resourceVersion %d", ev.Revision, ev.Object.Version())
		}
		prev := "-"
		if ev.Prev != nil {
			prev = ev.Prev.Value
		}
		out = append(out, fmt.Sprintf("%s %s@%d %s<-%s", ev.Type, ev.Key, ev.Revision, ev.Object.Value, prev))
	}
	return out
}

func snapshot(t *testing.T, s *watchtest.Source[*obj], at rv.Version) (string, error) {
	var parts []string
	err := s.Snapshot(at, func(key string, o *obj) bool {
		parts = append(parts, fmt.Sprintf("%s=%s@%d", key, o.Value, o.Version()))
		return true
	})
	return strings.Join(parts, " "), err
}

func TestSourceHistory(t *testing.T) {
	s := watchtest.NewObjectSource()
	s.Put("b", watchtest.NewObject("b", "1")) // 1
	s.Put("a", watchtest.NewObject("a", "1")) // 2
	s.Put("b", watchtest.NewObject("b", "2")) // 3
	if _, ok := s.Delete("zz"); ok {
		t.Error("Delete of a missing key reported true")
	}
	s.Delete("a")                             // 4
	s.Bump()                                  // 5, no event
	s.Put("c", watchtest.NewObject("c", "1")) // 6

	if got := s.Revision(); got != 6 {
		t.Fatalf("Revision() = %d, want 6", got)
	}
	for _, tc := range []struct {
		after rv.Version
		max   int
		want  string
	}{
		{0, 10, "[ADDED b@1 1<-- ADDED a@2 1<-- MODIFIED b@3 2<-1 DELETED a@4 1<-1 ADDED c@6 1<--]"},
		{0, 2, "[ADDED b@1 1<-- ADDED a@2 1<--]"},
		{3, 10, "[DELETED a@4 1<-1 ADDED c@6 1<--]"},
		{4, 10, "[ADDED c@6 1<--]"},
		{6, 10, "[]"},
		{9, 10, "[]"},
	} {
		if got := fmt.Sprint(collect(t, s, tc.after, tc.max)); got != tc.want {
			t.Errorf("Events(after %d, max %d) = %s, want %s", tc.after, tc.max, got, tc.want)
		}
	}
	for _, tc := range []struct {
		at   rv.Version
		want string
	}{
		{0, ""},
		{1, "b=1@1"},
		{3, "a=1@2 b=2@3"},
		{4, "b=2@3"},
		{6, "b=2@3 c=1@6"},
	} {
		if got, err := snapshot(t, s, tc.at); err != nil || got != tc.want {
			t.Errorf("Snapshot(%d) = %q, %v; want %q", tc.at, got, err, tc.want)
		}
	}
	if _, err := snapshot(t, s, 7); !errors.Is(err, rv.ErrFutureRevision) {
		t.Errorf("Snapshot(7) error = %v, want ErrFutureRevision", err)
	}

	s.Compact(3)
	if got := s.Compacted(); got != 3 {
		t.Errorf("Compacted() = %d, want 3", got)
	}
	var ce *rv.CompactedError
	if _, err := s.Events(nil, 2, 10); !errors.As(err, &ce) || ce.Requested != 2 || ce.Compacted != 3 || !errors.Is(err, rv.ErrCompacted) {
		t.Errorf("Events after 2 once compacted at 3: err = %v", err)
	}
	if _, err := snapshot(t, s, 2); !errors.As(err, &ce) {
		t.Errorf("Snapshot(2) once compacted at 3: err = %v", err)
	}
	if got := fmt.Sprint(collect(t, s, 3, 10)); got != "[DELETED a@4 1<-1 ADDED c@6 1<--]" {
		t.Errorf("Events after the compaction revision = %s", got)
	}
	if got, err := snapshot(t, s, 3); err != nil || got != "a=1@2 b=2@3" {
		t.Errorf("Snapshot at the compaction revision = %q, %v", got, err)
	}

	s.SetRetention(1)
	if got := s.Compacted(); got != 4 {
		t.Errorf("Compacted() with retention 1 = %d, want 4", got)
	}
	for range 100 {
		s.Put("d", watchtest.NewObject("d", "x"))
	}
	if got, want := s.Compacted(), rv.Version(105); got != want {
		t.Errorf("Compacted() after 100 writes with retention 1 = %d, want %d", got, want)
	}
	if got := len(collect(t, s, 105, 10)); got != 1 {
		t.Errorf("%d events retained, want 1", got)
	}
	boom := errors.New("boom")
	s.FailEvents(boom)
	if _, err := s.Events(nil, 105, 1); err != boom {
		t.Errorf("FailEvents: err = %v", err)
	}
	s.FailEvents(nil)
	if _, err := s.Events(nil, 105, 1); err != nil {
		t.Errorf("after FailEvents(nil): err = %v", err)
	}
}

func TestSourceChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := watchtest.NewObjectSource()
		s.Put("a", watchtest.NewObject("a", "1"))
		select {
		case <-s.Changed(0):
		default:
			t.Error("Changed(0) not closed at revision 1")
		}
		ch := s.Changed(1)
		var closed bool
		go func() { <-ch; closed = true }()
		synctest.Wait()
		if closed {
			t.Fatal("Changed(1) closed at revision 1")
		}
		s.Bump()
		synctest.Wait()
		if !closed {
			t.Fatal("Changed(1) not closed at revision 2")
		}
	})
}

// fakeTB records a helper's failure; Fatalf ends the goroutine, as
// testing.T's does.
type fakeTB struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.msg = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

// failure runs fn with a fakeTB and returns the failure message ("" if it
// passed).
func failure(t *testing.T, fn func(tb testing.TB)) string {
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f.msg
}

// The expectations fail, with a transcript, whenever the stream differs.
func TestExpectationsFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := watchtest.NewObjectSource()
		b := watchtest.NewBroadcaster(t, src, watchtest.Funcs(), watch.Options{})
		newWatch := func() *watch.Watcher[*obj] {
			return watchtest.Watch(t, b, rv.Watch{Start: rv.StartExact, Version: src.Revision(), Bookmarks: true}, nil)
		}
		w := newWatch()
		src.Put("a", watchtest.NewObject("a", "1"))
		src.Put("b", watchtest.NewObject("b", "1"))
		for _, tc := range []struct {
			name string
			fn   func(tb testing.TB)
			want string
		}{
			{"wrong key", func(tb testing.TB) { watchtest.Expect(tb, w, watchtest.Added("b", 0)) }, `message 0 is ADDED "a"@1, want ADDED "b"@0`},
			{"wrong revision", func(tb testing.TB) { watchtest.Expect(tb, w, watchtest.Added("b", 7)) }, `message 0 is ADDED "b"@2, want ADDED "b"@7`},
			{"nothing comes", func(tb testing.TB) { watchtest.Expect(tb, newWatch(), watchtest.Added("c", 0)) }, "no message within 10s"},
			{"not a bookmark", func(tb testing.TB) {
				w := newWatch()
				src.Put("c", watchtest.NewObject("c", "1"))
				watchtest.ExpectBookmark(tb, w, 0)
			}, `got ADDED "c"@3, want BOOKMARK @0`},
			{"not an error", func(tb testing.TB) {
				w := newWatch()
				src.Put("d", watchtest.NewObject("d", "1"))
				watchtest.ExpectError(tb, w, status.ReasonExpired)
			}, `got ADDED "d"@4, want ERROR Expired`},
			{"not ended", func(tb testing.TB) {
				w := newWatch()
				src.Put("e", watchtest.NewObject("e", "1"))
				watchtest.ExpectEnd(tb, w)
			}, `got ADDED "e"@5, want the end of the stream`},
			{"not idle", func(tb testing.TB) {
				w := newWatch()
				src.Put("f", watchtest.NewObject("f", "1"))
				synctest.Wait()
				watchtest.ExpectIdle(tb, w)
			}, `got ADDED "f"@6, want no message`},
			{"no end bookmark", func(tb testing.TB) {
				w := newWatch()
				src.Put("g", watchtest.NewObject("g", "1"))
				time.Sleep(time.Minute)
				watchtest.ExpectInitialEventsEnd(tb, w, 0)
			}, `got ADDED "g"@7, want BOOKMARK @0 (initial-events-end)`},
		} {
			if got := failure(t, tc.fn); !strings.Contains(got, tc.want) {
				t.Errorf("%s: failure %q, want it to contain %q", tc.name, got, tc.want)
			}
		}
	})
}

func TestJSONEncoder(t *testing.T) {
	enc := &watchtest.JSONEncoder[*obj]{}
	o := watchtest.WithVersion(watchtest.NewObject("a", "<v>", "app", "web"), 7)
	got, err := enc.AppendEvent([]byte("x"), watch.Modified, o)
	want := `x{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"7","labels":{"app":"web"}},"value":"\u003cv\u003e"}}` + "\n"
	if err != nil || string(got) != want {
		t.Errorf("AppendEvent = %s, %v; want %s", got, err, want)
	}
	got, err = enc.AppendError(nil, status.NewExpired("too old resource version: 1 (2)"))
	want = `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}}` + "\n"
	if err != nil || string(got) != want {
		t.Errorf("AppendError = %s, %v; want %s", got, err, want)
	}
	if enc.Calls() != 2 {
		t.Errorf("Calls() = %d, want 2", enc.Calls())
	}
	bm := watchtest.Funcs().Bookmark(9, true)
	if bm.Version() != 9 || bm.Metadata.Annotations[watchtest.InitialEventsAnnotation] != "true" || bm.Metadata.Name != "" {
		t.Errorf("end bookmark = %+v", bm)
	}
	if bm := watchtest.Funcs().Bookmark(9, false); bm.Metadata.Annotations != nil {
		t.Errorf("periodic bookmark has annotations %v", bm.Metadata.Annotations)
	}
}

func TestSourceConformance(t *testing.T) {
	watchtest.CheckSource(t, func(t *testing.T) watchtest.SourceHarness[*obj] {
		s := watchtest.NewObjectSource()
		s.Bump() // a store's revision rarely starts at zero
		return watchtest.SourceHarness[*obj]{
			Source: s,
			Put:    func(key string) rv.Version { return s.Put(key, watchtest.NewObject(key, "v")) },
			Delete: func(key string) rv.Version {
				rev, ok := s.Delete(key)
				if !ok {
					t.Fatalf("Delete(%q): no such object", key)
				}
				return rev
			},
			Compact: s.Compact,
			Version: func(o *obj) rv.Version { return o.Version() },
		}
	})
}
