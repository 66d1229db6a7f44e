package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strconv"
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch"
	"github.com/apisem/apisem/watch/watchtest"
)

// replica is a Store fed by Apply from the events of a primary's source,
// as an etcd replica is fed by an etcd watch: the primary also writes
// another resource, so the replica sees gaps in the revisions.
type replica struct {
	primary *fixture
	other   *Resource[*widget] // the primary's other resource: the gaps
	src     *Source[*widget]   // the primary's widgets
	f       *fixture           // the replica and its widgets resource
	applied rv.Version
}

func newReplica(t testing.TB) *replica {
	p := newFixture(t, Options[*widget]{HistoryWindow: -1})
	other := p.s.Resource(ResourceOptions[*widget]{
		GroupResource: status.GroupResource{Resource: "gadgets"}, Kind: "Gadget", Namespaced: true,
	})
	return &replica{primary: p, other: other, src: p.r.Source(), f: newFixture(t, Options[*widget]{HistoryWindow: -1})}
}

// noise writes a gadget in the primary: a revision the replica never sees.
func (r *replica) noise(t testing.TB) {
	t.Helper()
	n := strconv.FormatUint(uint64(r.primary.s.Revision()), 10)
	if _, err := r.other.Create(context.Background(), newWidget("ns", "g"+n), CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// sync applies the primary's widget events after the last applied
// revision, one Apply per revision, then the primary's revision as
// progress.
func (r *replica) sync(t testing.TB) {
	t.Helper()
	to := r.primary.s.Revision()
	evs, err := r.src.Events(nil, r.applied, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Revision > to {
			break
		}
		c := Change[*widget]{Key: ev.Key, Deleted: ev.Type == watch.Deleted}
		if !c.Deleted {
			c.Object = ev.Object.DeepCopy()
		}
		if err := r.f.s.Apply(ev.Revision, c); err != nil {
			t.Fatalf("Apply(%d, %s): %v", ev.Revision, ev.Key, err)
		}
	}
	if err := r.f.s.Apply(to); err != nil {
		t.Fatalf("Apply(%d) (progress): %v", to, err)
	}
	r.applied = to
}

func TestApplyErrors(t *testing.T) {
	put := func(key string) Change[*widget] {
		return Change[*widget]{Key: key, Object: newWidget("ns", path.Base(key))}
	}
	del := func(key string) Change[*widget] { return Change[*widget]{Key: key, Deleted: true} }
	for _, tc := range []struct {
		name    string
		rev     rv.Version
		changes []Change[*widget]
		ok      bool
	}{
		{"after the revision", 7, []Change[*widget]{put("widgets/ns/b")}, true},
		{"several keys at one revision", 7, []Change[*widget]{put("widgets/ns/b"), del("widgets/ns/a")}, true},
		{"progress", 7, nil, true},
		{"progress at the revision", 5, nil, true},
		{"at the revision", 5, []Change[*widget]{put("widgets/ns/b")}, false},
		{"before the revision", 4, []Change[*widget]{put("widgets/ns/b")}, false},
		{"progress backwards", 4, nil, false},
		{"key twice", 7, []Change[*widget]{put("widgets/ns/b"), put("widgets/ns/b")}, false},
		{"deletion of a missing key", 7, []Change[*widget]{del("widgets/ns/zz")}, false},
		{"deletion of a deleted key", 7, []Change[*widget]{del("widgets/ns/gone")}, false},
		{"key without a name", 7, []Change[*widget]{put("widgets/")}, false},
		{"key without a prefix", 7, []Change[*widget]{put("b")}, false},
		{"valid change then an invalid one", 7, []Change[*widget]{put("widgets/ns/b"), del("widgets/ns/zz")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options[*widget]{})
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(f.s.Apply(2, put("widgets/ns/a")))
			must(f.s.Apply(3, put("widgets/ns/gone")))
			must(f.s.Apply(5, del("widgets/ns/gone")))
			before := f.events(t, 0)
			err := f.s.Apply(tc.rev, tc.changes...)
			if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrApply) {
				t.Fatalf("Apply = %v; want ok %v", err, tc.ok)
			}
			after := f.events(t, 0)
			switch {
			case !tc.ok && len(after) != len(before):
				t.Errorf("a failed Apply left %d events, had %d", len(after), len(before))
			case tc.ok && len(after) != len(before)+len(tc.changes):
				t.Errorf("Apply left %d events; want %d", len(after), len(before)+len(tc.changes))
			}
			if want := max(tc.rev, 5); tc.ok && f.s.Revision() != want {
				t.Errorf("revision %d; want %d", f.s.Revision(), want)
			}
		})
	}
}

func TestApplyReadsInGaps(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	// a at 10, b at 20, a updated at 30, b deleted at 40, progress to 50.
	steps := []struct {
		rev rv.Version
		c   []Change[*widget]
	}{
		{10, []Change[*widget]{{Key: f.r.Key("ns", "a"), Object: newWidget("ns", "a")}}},
		{20, []Change[*widget]{{Key: f.r.Key("ns", "b"), Object: newWidget("ns", "b")}}},
		{30, []Change[*widget]{{Key: f.r.Key("ns", "a"), Object: newWidget("ns", "a")}}},
		{40, []Change[*widget]{{Key: f.r.Key("ns", "b"), Deleted: true}}},
		{50, nil},
	}
	for _, s := range steps {
		if err := f.s.Apply(s.rev, s.c...); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		at   rv.Version
		want string // name@resourceVersion, in key order
	}{
		{9, ""}, {10, "a@10"}, {19, "a@10"}, {25, "a@10 b@20"}, {30, "a@30 b@20"},
		{39, "a@30 b@20"}, {40, "a@30"}, {50, "a@30"},
	} {
		p, err := f.r.List(ctx, "ns", ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: tc.at}})
		if err != nil {
			t.Fatalf("list at %d: %v", tc.at, err)
		}
		var got []string
		for _, w := range p.Items() {
			got = append(got, w.Name+"@"+w.ResourceVersion)
		}
		if g := fmt.Sprint(got); g != fmt.Sprint(splitFields(tc.want)) || p.ResourceVersion() != tc.at {
			t.Errorf("list at %d = %s at %d; want %s", tc.at, g, p.ResourceVersion(), tc.want)
		}
	}
	evs := f.events(t, 15)
	var got []string
	for _, ev := range evs {
		got = append(got, fmt.Sprintf("%s %s@%d", ev.Type, path.Base(ev.Key), ev.Revision))
	}
	if want := "[ADDED b@20 MODIFIED a@30 DELETED b@40]"; fmt.Sprint(got) != want {
		t.Errorf("events after 15 = %v; want %s", got, want)
	}
	// A get waiting for a revision is woken by progress alone.
	done := make(chan error, 1)
	go func() {
		_, err := f.r.Get(ctx, "ns", "a", rv.Read{Semantics: rv.NotOlderThan, Version: 60})
		done <- err
	}()
	if err := f.s.Apply(60); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("get not older than 60 after progress to 60: %v", err)
	}
}

func splitFields(s string) []string {
	var out []string
	for _, f := range slices.Collect(func(yield func(string) bool) {
		start := 0
		for i := 0; i <= len(s); i++ {
			if i == len(s) || s[i] == ' ' {
				if i > start && !yield(s[start:i]) {
					return
				}
				start = i + 1
			}
		}
	}) {
		out = append(out, f)
	}
	return out
}

// TestApplySourceContract runs watchtest.CheckSource against a replica:
// every write goes to the primary, then to the replica through Apply,
// with revisions the replica never sees in between.
func TestApplySourceContract(t *testing.T) {
	watchtest.CheckSource(t, func(t *testing.T) watchtest.SourceHarness[*widget] {
		r := newReplica(t)
		ctx := context.Background()
		version := func(w *widget) rv.Version {
			v, err := rv.Parse(w.ResourceVersion)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		return watchtest.SourceHarness[*widget]{
			Source: r.f.r.Source(),
			Put: func(key string) rv.Version {
				r.noise(t)
				p := r.primary
				cur, err := p.r.Get(ctx, "ns", key, rv.Read{Semantics: rv.MostRecent})
				var out *widget
				if status.IsNotFound(err) {
					out, err = p.r.Create(ctx, newWidget("ns", key), CreateOptions{})
				} else if err == nil {
					cur.Items = append(cur.Items, "x")
					out, err = p.r.Update(ctx, cur, UpdateOptions{})
				}
				if err != nil {
					t.Fatal(err)
				}
				r.sync(t)
				return version(out)
			},
			Delete: func(key string) rv.Version {
				r.noise(t)
				out, _, err := r.primary.r.Delete(ctx, "ns", key, DeleteOptions{})
				if err != nil {
					t.Fatal(err)
				}
				r.sync(t)
				return version(out)
			},
			Compact: func(rev rv.Version) { r.f.s.Compact(rev) },
			Version: version,
			Name:    path.Base,
		}
	})
}

// TestApplyListsMatchPrimary checks that a replica answers every paged
// list, at every revision, as the primary it follows does: the same
// items and versions, continue tokens and remainingItemCount.
func TestApplyListsMatchPrimary(t *testing.T) {
	ctx := context.Background()
	r := newReplica(t)
	c := &churn{f: r.primary, rng: rand.New(rand.NewPCG(7, 0)), live: map[string]string{}}
	for i := range 300 {
		c.step(t)
		if i%3 == 0 {
			r.noise(t)
		}
		if i%10 == 0 {
			r.sync(t)
		}
	}
	r.sync(t)
	for at := rv.Version(1); at <= r.applied; at += 7 {
		for _, ns := range []string{"", "ns1"} {
			read := rv.Read{Semantics: rv.Exact, Version: at, Limit: 5}
			for page := 0; ; page++ {
				want, err := r.primary.r.List(ctx, ns, ListOptions{Read: read})
				if err != nil {
					t.Fatal(err)
				}
				got, err := r.f.r.List(ctx, ns, ListOptions{Read: read})
				if err != nil {
					t.Fatalf("replica list at %d page %d: %v", at, page, err)
				}
				if g, w := describePage(got), describePage(want); g != w {
					t.Fatalf("list of %q at %d, page %d:\nreplica %s\nprimary %s", ns, at, page, g, w)
				}
				if want.Continue() == "" {
					break
				}
				read = rv.Read{Semantics: rv.ContinueExact, Continue: want.Continue(), Limit: 5}
			}
		}
	}
}

func describePage(p *Page[*widget]) string {
	rem, ok := p.RemainingItemCount()
	s := fmt.Sprintf("rv=%d remaining=%d,%v continue=%q:", p.ResourceVersion(), rem, ok, p.Continue())
	for i := range p.Len() {
		s += " " + p.Key(i) + "@" + p.View(i).ResourceVersion
	}
	return s
}

func TestReset(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	put := func(name string, rev rv.Version) Change[*widget] {
		return Change[*widget]{Key: f.r.Key("ns", name), Object: newWidget("ns", name), Revision: rev}
	}
	if err := f.s.Reset(10, []Change[*widget]{put("a", 3), put("b", 10), put("c", 0)}); err != nil {
		t.Fatal(err)
	}
	w := f.get(t, "ns", "a")
	if w.ResourceVersion != "3" {
		t.Errorf("a's resourceVersion %s; want its own revision 3", w.ResourceVersion)
	}
	if w := f.get(t, "ns", "c"); w.ResourceVersion != "10" {
		t.Errorf("c's resourceVersion %s; want the reset's revision 10", w.ResourceVersion)
	}
	if f.s.CompactedRevision() != 10 || f.s.Revision() != 10 {
		t.Errorf("after Reset(10): revision %d, compacted %d", f.s.Revision(), f.s.CompactedRevision())
	}
	// A watcher at 12 follows; one at 8 must start over.
	if err := f.s.Apply(12, Change[*widget]{Key: f.r.Key("ns", "a"), Deleted: true}); err != nil {
		t.Fatal(err)
	}
	if evs := f.events(t, 10); len(evs) != 1 || evs[0].Type != watch.Deleted || evs[0].Object.ResourceVersion != "12" {
		t.Errorf("events after 10 = %v", evs)
	}
	var ce *rv.CompactedError
	if _, err := f.s.Events(nil, 8, 0); !errors.As(err, &ce) {
		t.Errorf("Events(8) = %v; want a *rv.CompactedError", err)
	}
	// A relist: b changed, c is gone, d is new; the watcher at 12 is cut off.
	if err := f.s.Reset(20, []Change[*widget]{put("b", 15), put("d", 18)}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Events(nil, 12, 0); !errors.As(err, &ce) {
		t.Errorf("Events(12) after a reset at 20 = %v; want a *rv.CompactedError", err)
	}
	p, err := f.r.List(ctx, "ns", ListOptions{Read: rv.Read{Semantics: rv.MostRecent, Limit: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := describePage(p); got != `rv=20 remaining=1,true continue="`+p.Continue()+`": widgets.example.com/ns/b@15` {
		t.Errorf("list after the relist: %s", got)
	}
	_, err = f.r.List(ctx, "ns", ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: 12}})
	wantStatus(t, "list at 12 after a reset at 20", err, 410, status.ReasonExpired, "The resourceVersion for the provided list is too old.")
	for _, tc := range []struct {
		name    string
		rev     rv.Version
		objects []Change[*widget]
	}{
		{"not after the revision", 20, nil},
		{"object after the revision", 30, []Change[*widget]{put("a", 31)}},
		{"a deletion", 30, []Change[*widget]{{Key: f.r.Key("ns", "a"), Deleted: true}}},
		{"a key twice", 30, []Change[*widget]{put("a", 1), put("a", 2)}},
	} {
		if err := f.s.Reset(tc.rev, tc.objects); !errors.Is(err, ErrApply) {
			t.Errorf("Reset with %s = %v; want ErrApply", tc.name, err)
		}
	}
	if f.s.Revision() != 20 || len(f.events(t, 20)) != 0 {
		t.Errorf("a failed Reset changed the store")
	}
}
