// Package watchtest helps test code that serves or consumes watches built
// with package watch.
//
// It offers an in-memory Source with compaction and fault injection, a
// small resource type (Object) with its ObjectFuncs, a JSON Encoder that
// counts its calls, CheckSource (the watch.Source contract as a test, for
// anyone implementing a Source, e.g. over a store or etcd), and
// expectations that read a Watcher's stream and fail the test with a
// readable transcript:
//
//	src := watchtest.NewObjectSource()
//	b := watchtest.NewBroadcaster(t, src, watchtest.Funcs(), watch.Options{})
//	w := watchtest.Watch(t, b, rv.Watch{Start: rv.StartExact, Version: src.Revision()}, nil)
//	rev := src.Put("a", &watchtest.Object{Value: "1"})
//	watchtest.Expect(t, w, watchtest.Added("a", rev))
//
// # Deterministic tests
//
// Everything in package watch reads the time through package time, so the
// helpers work inside a testing/synctest bubble: create the Source, the
// Broadcaster and the watchers inside synctest.Test, advance the clock with
// time.Sleep, and call synctest.Wait before ExpectIdle.
//
// Expectations wait at most Timeout for a message. Inside a bubble that is
// fake time: a message that never comes fails the test at once.
package watchtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch"
)

// InitialEventsAnnotation is the annotation of the bookmark that ends a
// streaming list's initial events.
const InitialEventsAnnotation = meta.InitialEventsAnnotation

// Timeout is how long an expectation waits for the next message.
const Timeout = 10 * time.Second

// Object is a minimal Kubernetes-shaped resource for tests and examples.
type Object struct {
	Metadata meta.ObjectMeta `json:"metadata"`
	Value    string          `json:"value,omitempty"`
}

// Meta returns o's metadata, so that *Object is a meta.Object.
func (o *Object) Meta() *meta.ObjectMeta { return &o.Metadata }

// Version returns o's resourceVersion as a revision: 0 when it is unset
// or not one.
func (o *Object) Version() rv.Version {
	v, err := rv.Parse(o.Metadata.ResourceVersion)
	if err != nil {
		return 0
	}
	return v
}

// NewObject returns an Object with the given name and value and labels
// given as alternating keys and values.
func NewObject(name, value string, labels ...string) *Object {
	o := &Object{Metadata: meta.ObjectMeta{Name: name}, Value: value}
	for i := 0; i+1 < len(labels); i += 2 {
		if o.Metadata.Labels == nil {
			o.Metadata.Labels = map[string]string{}
		}
		o.Metadata.Labels[labels[i]] = labels[i+1]
	}
	return o
}

// WithVersion returns a copy of o with its resourceVersion set to rev.
func WithVersion(o *Object, rev rv.Version) *Object {
	c := *o
	c.Metadata.ResourceVersion = rev.String()
	return &c
}

// Funcs returns the watch.ObjectFuncs of *Object.
func Funcs() watch.ObjectFuncs[*Object] {
	return watch.ObjectFuncs[*Object]{
		Bookmark: func(rev rv.Version, end bool) *Object {
			o := &Object{Metadata: meta.ObjectMeta{ResourceVersion: rev.String()}}
			if end {
				o.Metadata.Annotations = map[string]string{InitialEventsAnnotation: "true"}
			}
			return o
		},
		WithVersion: WithVersion,
	}
}

// NewObjectSource returns an empty Source of *Object.
func NewObjectSource() *Source[*Object] { return NewSource(WithVersion) }

// LabelFilter returns a filter matching the objects whose label key has
// value.
func LabelFilter(key, value string) watch.Filter[*Object] {
	return func(o *Object) bool { return o.Metadata.Labels[key] == value }
}

// JSONEncoder writes events as a Kubernetes JSON watch stream does (one
// {"type":...,"object":...} document and a newline per event) and counts
// its calls. Use a pointer to it.
type JSONEncoder[T any] struct {
	calls atomic.Int64
}

// AppendEvent implements watch.Encoder.
func (e *JSONEncoder[T]) AppendEvent(dst []byte, typ watch.EventType, obj T) ([]byte, error) {
	e.calls.Add(1)
	b, err := json.Marshal(obj)
	if err != nil {
		return dst, err
	}
	return appendEvent(dst, typ, b), nil
}

// AppendError implements watch.ErrorEncoder.
func (e *JSONEncoder[T]) AppendError(dst []byte, err *status.Error) ([]byte, error) {
	e.calls.Add(1)
	b, jerr := json.Marshal(status.FromError(err))
	if jerr != nil {
		return dst, jerr
	}
	return appendEvent(dst, watch.Error, b), nil
}

// Calls returns how many events e has encoded.
func (e *JSONEncoder[T]) Calls() int64 { return e.calls.Load() }

func appendEvent(dst []byte, typ watch.EventType, obj []byte) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, typ...)
	dst = append(dst, `","object":`...)
	dst = append(dst, obj...)
	return append(dst, "}\n"...)
}

// NewBroadcaster returns a broadcaster of src that is closed when the test
// ends.
func NewBroadcaster[T any](tb testing.TB, src watch.Source[T], objs watch.ObjectFuncs[T], opts watch.Options) *watch.Broadcaster[T] {
	tb.Helper()
	b := watch.NewBroadcaster(src, objs, opts)
	tb.Cleanup(b.Close)
	return b
}

// Watch starts a watch that is stopped when the test ends.
func Watch[T any](tb testing.TB, b *watch.Broadcaster[T], d rv.Watch, filter watch.Filter[T]) *watch.Watcher[T] {
	tb.Helper()
	w := b.Watch(context.Background(), d, filter)
	tb.Cleanup(w.Stop)
	return w
}

// Want describes an expected message: its type, key and revision. An empty
// Key matches only messages without one (bookmarks); a zero Revision
// matches any revision.
type Want struct {
	Type     watch.EventType
	Key      string
	Revision rv.Version
}

// Added, Modified and Deleted describe change events; Bookmark a
// bookmark.
func Added(key string, rev rv.Version) Want    { return Want{watch.Added, key, rev} }
func Modified(key string, rev rv.Version) Want { return Want{watch.Modified, key, rev} }
func Deleted(key string, rev rv.Version) Want  { return Want{watch.Deleted, key, rev} }
func Bookmark(rev rv.Version) Want             { return Want{Type: watch.Bookmark, Revision: rev} }

func (w Want) String() string {
	return fmt.Sprintf("%s %q@%d", w.Type, w.Key, w.Revision)
}

func (w Want) matches(t watch.EventType, key string, rev rv.Version) bool {
	return w.Type == t && w.Key == key && (w.Revision == 0 || w.Revision == rev)
}

// Describe formats m for failure messages.
func Describe[T any](m *watch.Message[T]) string {
	if m == nil {
		return "<end of stream>"
	}
	switch {
	case m.Type() == watch.Error:
		return fmt.Sprintf("ERROR %d %s %q", m.Err().Code(), m.Err().Status.Reason, m.Err().Error())
	case m.InitialEventsEnd():
		return fmt.Sprintf("BOOKMARK @%d (initial-events-end)", m.Revision())
	}
	return Want{m.Type(), m.Key(), m.Revision()}.String()
}

// Next returns the next message of w, failing the test if the stream ends
// or no message arrives within Timeout (in which case w is stopped).
func Next[T any](tb testing.TB, w *watch.Watcher[T]) *watch.Message[T] {
	tb.Helper()
	m, ok, timedOut := next(w)
	switch {
	case timedOut:
		tb.Fatalf("watchtest: no message within %v", Timeout)
	case !ok:
		tb.Fatalf("watchtest: stream ended, want a message")
	}
	return m
}

func next[T any](w *watch.Watcher[T]) (m *watch.Message[T], ok, timedOut bool) {
	var fired atomic.Bool
	t := time.AfterFunc(Timeout, func() {
		fired.Store(true)
		w.Stop()
	})
	m, ok = w.Next()
	t.Stop()
	return m, ok, !ok && fired.Load()
}

// Expect reads len(want) messages from w and fails the test unless they
// are want, in order. It returns the messages.
func Expect[T any](tb testing.TB, w *watch.Watcher[T], want ...Want) []*watch.Message[T] {
	tb.Helper()
	got := make([]*watch.Message[T], 0, len(want))
	for i, wt := range want {
		m, ok, timedOut := next(w)
		if !ok {
			why := "stream ended"
			if timedOut {
				why = fmt.Sprintf("no message within %v", Timeout)
			}
			tb.Fatalf("watchtest: message %d: %s\n%s", i, why, transcript(got, want))
		}
		got = append(got, m)
		if !wt.matches(m.Type(), m.Key(), m.Revision()) || m.InitialEventsEnd() {
			tb.Fatalf("watchtest: message %d is %s, want %s\n%s", i, Describe(m), wt, transcript(got, want))
		}
	}
	return got
}

func transcript[T any](got []*watch.Message[T], want []Want) string {
	var sb strings.Builder
	sb.WriteString("got:\n")
	for _, m := range got {
		fmt.Fprintf(&sb, "\t%s\n", Describe(m))
	}
	sb.WriteString("want:\n")
	for _, w := range want {
		fmt.Fprintf(&sb, "\t%s\n", w)
	}
	return sb.String()
}

// ExpectBookmark reads the next message and fails the test unless it is a
// periodic bookmark at rev (0: any revision). It returns the message.
func ExpectBookmark[T any](tb testing.TB, w *watch.Watcher[T], rev rv.Version) *watch.Message[T] {
	tb.Helper()
	m := Next(tb, w)
	if m.Type() != watch.Bookmark || m.InitialEventsEnd() || (rev != 0 && m.Revision() != rev) {
		tb.Fatalf("watchtest: got %s, want BOOKMARK @%d", Describe(m), rev)
	}
	return m
}

// ExpectInitialEventsEnd reads the next message and fails the test unless
// it is the bookmark ending the initial events, at rev (0: any revision).
func ExpectInitialEventsEnd[T any](tb testing.TB, w *watch.Watcher[T], rev rv.Version) *watch.Message[T] {
	tb.Helper()
	m := Next(tb, w)
	if m.Type() != watch.Bookmark || !m.InitialEventsEnd() || (rev != 0 && m.Revision() != rev) {
		tb.Fatalf("watchtest: got %s, want BOOKMARK @%d (initial-events-end)", Describe(m), rev)
	}
	return m
}

// ExpectError reads the next message and fails the test unless it is an
// ERROR with the given reason followed by the end of the stream. It
// returns the error.
func ExpectError[T any](tb testing.TB, w *watch.Watcher[T], reason status.Reason) *status.Error {
	tb.Helper()
	m := Next(tb, w)
	if m.Type() != watch.Error || m.Err().Status.Reason != reason {
		tb.Fatalf("watchtest: got %s, want ERROR %s", Describe(m), reason)
	}
	ExpectEnd(tb, w)
	return m.Err()
}

// ExpectEnd fails the test unless w's stream is over.
func ExpectEnd[T any](tb testing.TB, w *watch.Watcher[T]) {
	tb.Helper()
	m, ok, timedOut := next(w)
	switch {
	case timedOut:
		tb.Fatalf("watchtest: stream did not end within %v", Timeout)
	case ok:
		tb.Fatalf("watchtest: got %s, want the end of the stream", Describe(m))
	}
}

// ExpectIdle fails the test if w has a message ready. Inside a synctest
// bubble, call synctest.Wait first.
func ExpectIdle[T any](tb testing.TB, w *watch.Watcher[T]) {
	tb.Helper()
	if w.More() {
		m, _ := w.Next()
		tb.Fatalf("watchtest: got %s, want no message", Describe(m))
	}
}
