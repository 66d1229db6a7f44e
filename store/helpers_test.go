package store

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store/selector"
	"github.com/apisem/apisem/watch"
)

// widget is the stored type of the tests: metadata plus a map and a slice,
// so that isolation tests can mutate both.
type widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            map[string]string `json:"spec,omitempty"`
	Items           []string          `json:"items,omitempty"`
}

func (w *widget) DeepCopy() *widget {
	if w == nil {
		return nil
	}
	out := &widget{TypeMeta: w.TypeMeta}
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = maps.Clone(w.Spec)
	out.Items = slices.Clone(w.Items)
	return out
}

func newWidget(ns, name string) *widget {
	return &widget{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name}}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// fakeClock is a settable clock for timestamps and retention.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var epoch = time.Date(2026, 7, 24, 10, 0, 0, 0, time.UTC)

type fixture struct {
	s     *Store[*widget]
	r     *Resource[*widget]
	clock *fakeClock
}

// newFixture returns a store with a fake clock and deterministic
// randomness, and its namespaced "widgets" resource.
func newFixture(t testing.TB, opts Options[*widget]) *fixture {
	t.Helper()
	clock := &fakeClock{t: epoch.Add(500 * time.Millisecond)}
	if opts.Now == nil {
		opts.Now = clock.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.NewChaCha8([32]byte{1})
	}
	s := New(opts)
	r := s.Resource(ResourceOptions[*widget]{
		GroupResource: status.GroupResource{Group: "example.com", Resource: "widgets"},
		Kind:          "Widget",
		Namespaced:    true,
		Fields: map[string]func(*widget) string{
			"spec.color": func(w *widget) string { return w.Spec["color"] },
		},
	})
	return &fixture{s: s, r: r, clock: clock}
}

func (f *fixture) create(t testing.TB, w *widget) *widget {
	t.Helper()
	out, err := f.r.Create(context.Background(), w, CreateOptions{})
	if err != nil {
		t.Fatalf("Create(%s/%s): %v", w.Namespace, w.Name, err)
	}
	return out
}

func (f *fixture) get(t testing.TB, ns, name string) *widget {
	t.Helper()
	out, err := f.r.Get(context.Background(), ns, name, rv.Read{Semantics: rv.MostRecent})
	if err != nil {
		t.Fatalf("Get(%s/%s): %v", ns, name, err)
	}
	return out
}

func (f *fixture) events(t testing.TB, after rv.Version) []watch.Event[*widget] {
	t.Helper()
	evs, err := f.s.Events(nil, after, 0)
	if err != nil {
		t.Fatalf("Events(%d): %v", after, err)
	}
	return evs
}

// wantStatus checks that err is a *status.Error with the code, reason and
// exact message.
func wantStatus(t testing.TB, what string, err error, code int, reason status.Reason, msg string) *status.Error {
	t.Helper()
	var se *status.Error
	if !errors.As(err, &se) {
		t.Fatalf("%s: err = %v (%T); want a *status.Error %d %s %q", what, err, err, code, reason, msg)
	}
	if se.Code() != code || se.Status.Reason != reason || se.Error() != msg {
		t.Fatalf("%s: got %d %q %q\nwant %d %q %q", what, se.Code(), se.Status.Reason, se.Error(), code, reason, msg)
	}
	return se
}

func mustLabels(t testing.TB, s string) selector.Labels {
	t.Helper()
	l, err := selector.ParseLabels(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func mustFields(t testing.TB, s string) selector.Fields {
	t.Helper()
	l, err := selector.ParseFields(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestNewPanicsWithoutDeepCopy(t *testing.T) {
	type plain struct{ meta.ObjectMeta }
	defer func() {
		if recover() == nil {
			t.Errorf("New accepted a type without DeepCopy and no Options.DeepCopy")
		}
	}()
	New(Options[*plain]{})
}
