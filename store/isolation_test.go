package store

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// TestIsolation rules out the classic anomalies by name (go-memdb's
// isolation tests are the model). Writes are single-object, each at its
// own revision; every read is at one revision.
func TestIsolation(t *testing.T) {
	ctx := context.Background()
	latest := rv.Read{Semantics: rv.MostRecent}

	t.Run("dirty read", func(t *testing.T) {
		// A write that does not commit (dry run, conflict, invalid) is
		// never visible, not even to readers running at the same time.
		f := newFixture(t, Options[*widget]{})
		w := f.create(t, newWidget("ns", "a"))
		stale := w.ResourceVersion
		f.create(t, newWidget("ns", "b"))
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for range 2 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					p, err := f.r.List(ctx, "ns", ListOptions{Read: latest})
					if err != nil {
						t.Error(err)
						return
					}
					for _, o := range p.Items() {
						if o.Spec["dirty"] != "" {
							t.Errorf("read an uncommitted write: %s", mustJSON(o))
							return
						}
					}
				}
			})
		}
		for i := range 300 {
			d := newWidget("ns", "a")
			d.Spec = map[string]string{"dirty": "1"}
			switch i % 4 {
			case 0:
				f.r.Update(ctx, d, UpdateOptions{DryRun: true})
			case 1:
				d.ResourceVersion = "999" // stale: 409
				f.r.Update(ctx, d, UpdateOptions{})
			case 2:
				d.UID = "other" // invalid: 422
				f.r.Update(ctx, d, UpdateOptions{})
			case 3:
				d.Name = "b" // exists: 409
				f.r.Create(ctx, d, CreateOptions{})
			}
			ok := newWidget("ns", "b")
			ok.Spec = map[string]string{"i": strconv.Itoa(i)}
			if _, err := f.r.Update(ctx, ok, UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		close(stop)
		wg.Wait()
		if got := f.get(t, "ns", "a"); got.ResourceVersion != stale || got.Spec != nil {
			t.Errorf("object a changed: %s", mustJSON(got))
		}
	})

	t.Run("non-repeatable read", func(t *testing.T) {
		// Reading the same object twice at a pinned revision gives the
		// same answer, whatever was written in between.
		f := newFixture(t, Options[*widget]{})
		f.create(t, newWidget("ns", "a"))
		pin := rv.Read{Semantics: rv.Exact, Version: 1}
		first, err := f.r.Get(ctx, "ns", "a", pin)
		if err != nil {
			t.Fatal(err)
		}
		w := newWidget("ns", "a")
		w.Spec = map[string]string{"v": "2"}
		f.r.Update(ctx, w, UpdateOptions{})
		f.r.Delete(ctx, "ns", "a", DeleteOptions{})
		f.create(t, newWidget("ns", "a"))
		again, err := f.r.Get(ctx, "ns", "a", pin)
		if err != nil || mustJSON(again) != mustJSON(first) {
			t.Errorf("second read at revision 1 = %s, %v; first was %s", mustJSON(again), err, mustJSON(first))
		}
	})

	t.Run("phantom read", func(t *testing.T) {
		// Repeating a list at a pinned revision gives the same set of
		// objects after creations and deletions (continue pages are
		// covered by TestPagedListIsOneSnapshot).
		f := newFixture(t, Options[*widget]{})
		for _, n := range []string{"b", "d"} {
			f.create(t, newWidget("ns", n))
		}
		pin := ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: 2}}
		p1, err := f.r.List(ctx, "ns", pin)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"a", "c", "e"} {
			f.create(t, newWidget("ns", n))
		}
		f.r.Delete(ctx, "ns", "d", DeleteOptions{})
		p2, err := f.r.List(ctx, "ns", pin)
		if err != nil || listed(p1) != listed(p2) || listed(p2) != "rv=2 [b@1 d@2]" {
			t.Errorf("lists at revision 2: %s then %s (%v)", listed(p1), listed(p2), err)
		}
	})

	t.Run("read skew", func(t *testing.T) {
		// The writer keeps a.n - b.n in {0, 1} at every revision (it bumps
		// a, then b). A list reads both at one revision, so it never sees
		// the invariant broken.
		f := newFixture(t, Options[*widget]{})
		f.create(t, newWidget("ns", "a"))
		f.create(t, newWidget("ns", "b"))
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := 1; i <= 500; i++ {
				for _, n := range []string{"a", "b"} {
					w := newWidget("ns", n)
					w.Spec = map[string]string{"n": strconv.Itoa(i)}
					if _, err := f.r.Update(ctx, w, UpdateOptions{}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
		for reads := 0; ; reads++ {
			select {
			case <-done:
				return
			default:
			}
			p, err := f.r.List(ctx, "ns", ListOptions{Read: latest})
			if err != nil {
				t.Fatal(err)
			}
			a, _ := strconv.Atoi(p.At(0).Spec["n"])
			b, _ := strconv.Atoi(p.At(1).Spec["n"])
			if d := a - b; d != 0 && d != 1 {
				t.Fatalf("read skew at revision %d: a=%d b=%d", p.ResourceVersion(), a, b)
			}
		}
	})

	t.Run("lost update", func(t *testing.T) {
		// Concurrent read-modify-writes never overwrite each other:
		// GuaranteedUpdate retries on a newer state, and Update with the
		// resourceVersion read is refused (409) when it is stale.
		f := newFixture(t, Options[*widget]{})
		f.create(t, newWidget("ns", "a"))
		const workers, each = 4, 50
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for range each {
					if w%2 == 0 {
						_, err := f.r.GuaranteedUpdate(ctx, "ns", "a", UpdateOptions{}, func(cur *widget) (*widget, error) {
							n, _ := strconv.Atoi(cur.Spec["n"])
							cur.Spec = map[string]string{"n": strconv.Itoa(n + 1)}
							return cur, nil
						})
						if err != nil {
							t.Error(err)
						}
						continue
					}
					for {
						cur, err := f.r.Get(ctx, "ns", "a", latest)
						if err != nil {
							t.Error(err)
							return
						}
						n, _ := strconv.Atoi(cur.Spec["n"])
						cur.Spec = map[string]string{"n": strconv.Itoa(n + 1)}
						if _, err = f.r.Update(ctx, cur, UpdateOptions{}); err == nil {
							break
						} else if !status.IsConflict(err) {
							t.Error(err)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		if got := f.get(t, "ns", "a").Spec["n"]; got != strconv.Itoa(workers*each) {
			t.Errorf("counter = %s; want %d", got, workers*each)
		}
	})

	t.Run("stale read", func(t *testing.T) {
		// A write is visible to every read that starts after it returns,
		// and a Not older than N read never answers with less than N.
		f := newFixture(t, Options[*widget]{})
		for i := range 50 {
			w, err := f.r.Create(ctx, newWidget("ns", fmt.Sprint(i)), CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			n, _ := strconv.ParseUint(w.ResourceVersion, 10, 64)
			p, err := f.r.List(ctx, "ns", ListOptions{Read: rv.Read{Semantics: rv.NotOlderThan, Version: rv.Version(n)}})
			if err != nil || p.ResourceVersion() < rv.Version(n) || p.Len() != i+1 {
				t.Fatalf("list after write %d: %s, %v", n, listed(p), err)
			}
		}
	})
}

// TestStoredStateIsImmutable mutates maps and slices of everything the
// store accepted or returned and checks that stored state and history are
// unchanged (DESIGN invariant 5).
func TestStoredStateIsImmutable(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	mutate := func(w *widget) {
		w.Labels["l"] = "mutated"
		w.Annotations["x"] = "mutated"
		w.Finalizers[0] = "mutated"
		w.OwnerReferences[0].Name = "mutated"
		*w.OwnerReferences[0].Controller = false
		w.Spec["s"] = "mutated"
		w.Items[0] = "mutated"
		w.Name = "mutated"
	}
	newFull := func(name string) *widget {
		yes := true
		w := newWidget("ns", name)
		w.Labels = map[string]string{"l": "v"}
		w.Annotations = map[string]string{"x": "y"}
		w.Finalizers = []string{"f"}
		w.OwnerReferences = []meta.OwnerReference{{Name: "owner", Controller: &yes}}
		w.Spec = map[string]string{"s": "v"}
		w.Items = []string{"i"}
		return w
	}
	in := newFull("a")
	out, err := f.r.Create(ctx, in, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mutate(in)
	mutate(out)
	upd := newFull("a")
	upd.Spec["s"] = "v2"
	out2, err := f.r.Update(ctx, upd, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mutate(upd)
	mutate(out2)
	var kept *widget
	out3, err := f.r.GuaranteedUpdate(ctx, "ns", "a", UpdateOptions{}, func(cur *widget) (*widget, error) {
		cur.Spec["s"] = "v3"
		kept = cur
		return cur, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mutate(kept)
	mutate(out3)
	f.r.GuaranteedUpdate(ctx, "ns", "a", UpdateOptions{}, func(cur *widget) (*widget, error) {
		mutate(cur) // then fail: nothing may be stored
		return nil, fmt.Errorf("no")
	})

	wantNow := `{"metadata":{"name":"a","namespace":"ns","uid":"` + out.UID + `","resourceVersion":"3","creationTimestamp":"2026-07-24T10:00:00Z","labels":{"l":"v"},"annotations":{"x":"y"},"ownerReferences":[{"apiVersion":"","kind":"","name":"owner","uid":"","controller":true}],"finalizers":["f"]},"spec":{"s":"v3"},"items":["i"]}`
	check := func(what string) {
		t.Helper()
		got := f.get(t, "ns", "a")
		if mustJSON(got) != wantNow {
			t.Fatalf("%s: stored state changed:\n%s\nwant\n%s", what, mustJSON(got), wantNow)
		}
		mutate(got)
		evs := f.events(t, 0)
		for i, want := range []string{"v", "v2", "v3"} {
			if evs[i].Object.Spec["s"] != want || evs[i].Object.Labels["l"] != "v" || evs[i].Object.Items[0] != "i" {
				t.Fatalf("%s: history changed at revision %d: %s", what, i+1, mustJSON(evs[i].Object))
			}
		}
	}
	check("writes")

	p, err := f.r.List(ctx, "ns", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mutate(p.At(0))
	for _, w := range p.Items() {
		mutate(w)
	}
	old, _ := f.r.Get(ctx, "ns", "a", rv.Read{Semantics: rv.Exact, Version: 1})
	mutate(old)
	check("reads")

	items, err := f.r.DeleteCollection(ctx, "ns", ListOptions{}, DeleteOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	mutate(items[0])
	dry, _, _ := f.r.Delete(ctx, "ns", "a", DeleteOptions{DryRun: true})
	mutate(dry)
	check("deletes")
}
