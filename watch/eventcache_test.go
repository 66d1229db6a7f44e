package watch_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch"
	"github.com/apisem/apisem/watch/watchtest"
)

// cachingSource is a test Source with a watch.EventCache: one encoding per
// stored object (by identity), encoder and type. It fails the test if it
// is asked to encode an object it never returned, such as the copy in a
// selector's DELETED event, which a real Source could not find.
type cachingSource struct {
	*watchtest.Source[*obj]
	t testing.TB

	mu       sync.Mutex
	returned map[*obj]bool
	forms    map[formKey]*form
}

type formKey struct {
	obj *obj
	enc watch.Encoder[*obj]
	typ watch.EventType
}

type form struct {
	once sync.Once
	b    []byte
	err  error
}

func newCachingSource(t testing.TB) *cachingSource {
	return &cachingSource{Source: watchtest.NewObjectSource(), t: t, returned: map[*obj]bool{}, forms: map[formKey]*form{}}
}

func (s *cachingSource) Events(dst []watch.Event[*obj], after rv.Version, max int) ([]watch.Event[*obj], error) {
	n := len(dst)
	dst, err := s.Source.Events(dst, after, max)
	s.mu.Lock()
	for _, ev := range dst[n:] {
		s.returned[ev.Object] = true
	}
	s.mu.Unlock()
	return dst, err
}

func (s *cachingSource) Snapshot(at rv.Version, yield func(string, *obj) bool) error {
	return s.Source.Snapshot(at, func(key string, o *obj) bool {
		s.mu.Lock()
		s.returned[o] = true
		s.mu.Unlock()
		return yield(key, o)
	})
}

func (s *cachingSource) EncodedEvent(enc watch.Encoder[*obj], typ watch.EventType, key string, o *obj) ([]byte, error) {
	k := formKey{o, enc, typ}
	s.mu.Lock()
	if !s.returned[o] || o.Metadata.Name != key {
		s.t.Errorf("EncodedEvent(%s, %q) of an object the Source did not return under that key: %+v", typ, key, o)
	}
	f := s.forms[k]
	if f == nil {
		f = &form{}
		s.forms[k] = f
	}
	s.mu.Unlock()
	f.once.Do(func() { f.b, f.err = enc.AppendEvent(nil, typ, o) })
	return f.b, f.err
}

// The harness of watchtest.CheckSource for cachingSource, so that its
// EventCache is checked as any Source's would be.
func TestCachingSourceContract(t *testing.T) {
	watchtest.CheckSource(t, func(t *testing.T) watchtest.SourceHarness[*obj] {
		s := newCachingSource(t)
		return watchtest.SourceHarness[*obj]{
			Source:  s,
			Put:     func(key string) rv.Version { return s.Put(key, watchtest.NewObject(key, "v")) },
			Delete:  func(key string) rv.Version { rev, _ := s.Delete(key); return rev },
			Compact: s.Compact,
			Version: func(o *obj) rv.Version { return o.Version() },
		}
	})
}

// readAll takes every message w has ready and returns each one's encoding.
func readAll(t *testing.T, w *watch.Watcher[*obj], enc watch.Encoder[*obj]) []string {
	t.Helper()
	synctest.Wait()
	var out []string
	for w.More() {
		m := watchtest.Next(t, w)
		b, err := m.Encoded(enc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSuffix(string(b), "\n"))
	}
	return out
}

// Encode once beyond the live stream: with a Source that implements
// watch.EventCache, the ADDED events of initial state and the events a
// watcher reads from the Source (beyond the window) are encoded once for
// all watchers, and share with the live stream the encodings of the same
// object version and type.
func TestEventCacheSharesEncodings(t *testing.T) {
	const watchers = 20
	t.Run("initial events", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			src := newCachingSource(t)
			b := watchtest.NewBroadcaster[*obj](t, src, watchtest.Funcs(), watch.Options{})
			enc := &watchtest.JSONEncoder[*obj]{}
			const objects = 5
			for i := range objects {
				src.Put(fmt.Sprint("o", i), watchtest.NewObject(fmt.Sprint("o", i), "1", "app", "web"))
			}
			list := rv.Watch{Start: rv.StartMostRecent, InitialEvents: true}
			var ws []*watch.Watcher[*obj]
			for i := range watchers {
				var sel watch.Filter[*obj]
				if i%2 == 1 {
					sel = watchtest.LabelFilter("app", "web") // matches all: same events
				}
				w := watchtest.Watch(t, b, list, sel)
				ws = append(ws, w)
				if got := readAll(t, w, enc); len(got) != objects {
					t.Fatalf("watcher %d got %d initial events, want %d", i, len(got), objects)
				}
			}
			if got := enc.Calls(); got != objects {
				t.Errorf("%d watchers' initial events: %d encodes, want %d (one per object)", watchers, got, objects)
			}

			// A live MODIFIED is one more encode; a later list of the same
			// version is ADDED, which is another type: one more, with
			// the right type in it.
			rev := src.Put("o0", watchtest.NewObject("o0", "2", "app", "web"))
			for i, w := range ws {
				if got := readAll(t, w, enc); len(got) != 1 || !strings.HasPrefix(got[0], `{"type":"MODIFIED"`) {
					t.Fatalf("watcher %d got %q, want the MODIFIED of o0", i, got)
				}
			}
			late := watchtest.Watch(t, b, list, nil)
			got := readAll(t, late, enc)
			want := fmt.Sprintf(`{"type":"ADDED","object":{"metadata":{"name":"o0","resourceVersion":"%d","labels":{"app":"web"}},"value":"2"}}`, rev)
			if len(got) != objects || got[0] != want {
				t.Fatalf("late list got %q..., want %s first", got, want)
			}
			if n := enc.Calls(); n != objects+2 {
				t.Errorf("after a live change and another list: %d encodes, want %d", n, objects+2)
			}
		})
	})
	t.Run("catch-up from the source", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			src := newCachingSource(t)
			b := watchtest.NewBroadcaster[*obj](t, src, watchtest.Funcs(), watch.Options{RecentEvents: 2, Buffer: 2})
			enc := &typeCounter{}
			live := watchtest.Watch(t, b, exact(0), nil)
			var want []string
			for i := range 12 {
				// Every third write flips the label, so a selective
				// watcher sees the ADDED and DELETED variants.
				app := []string{"web", "db"}[i/3%2]
				src.Put(fmt.Sprint("o", i%3), watchtest.NewObject(fmt.Sprint("o", i%3), fmt.Sprint(i), "app", app))
				want = append(want, readAll(t, live, enc)...)
			}
			if len(want) != 12 || enc.calls() != 12 {
				t.Fatalf("live watcher: %d events, %d encodes, want 12 and 12", len(want), enc.calls())
			}
			variants := &typeCounter{}
			for i := range watchers {
				w := watchtest.Watch(t, b, exact(0), nil)
				var got []string
				for len(got) < 12 {
					got = append(got, readAll(t, w, enc)...)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("watcher %d caught up with\n%q\nwant\n%q", i, got, want)
				}
				sel := watchtest.Watch(t, b, exact(0), watchtest.LabelFilter("app", "web"))
				got = got[:0]
				for len(got) < 12 {
					got = append(got, readAll(t, sel, variants)...)
				}
			}
			if got := enc.calls(); got != 12 {
				t.Errorf("%d watchers caught up from the source: %d encodes, want the live stream's 12", watchers, got)
			}
			// For selective watchers, an object that starts matching is
			// the stored object as ADDED: one encode per version however
			// many read it from the Source. (Their DELETED events carry
			// a copy, which the Source does not hold: cachingSource checks
			// it is never asked for one.)
			if got := variants.count(watch.Added); got != 6 {
				t.Errorf("%d selective watchers: %d encodes of ADDED, want 6", watchers, got)
			}
		})
	})
}

// typeCounter is a JSON encoder that counts its calls per event type.
type typeCounter struct {
	watchtest.JSONEncoder[*obj]
	mu sync.Mutex
	n  map[watch.EventType]int
}

func (c *typeCounter) AppendEvent(dst []byte, typ watch.EventType, o *obj) ([]byte, error) {
	c.mu.Lock()
	if c.n == nil {
		c.n = map[watch.EventType]int{}
	}
	c.n[typ]++
	c.mu.Unlock()
	return c.JSONEncoder.AppendEvent(dst, typ, o)
}

func (c *typeCounter) count(typ watch.EventType) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[typ]
}

func (c *typeCounter) calls() int { return int(c.Calls()) }
