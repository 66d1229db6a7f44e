package storetest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// checkIsolation rules out the classic anomalies by name (go-memdb's
// isolation tests are the model). Writes are single-object, each at its
// own revision; every read is at one revision.
func checkIsolation(t *testing.T, newHarness func(*testing.T) Harness) {
	ctx := context.Background()

	t.Run("dirty read", func(t *testing.T) {
		// A write that does not commit (dry run, conflict, invalid) is
		// never visible, not even to readers running at the same time.
		h := newHarness(t)
		b := h.Backend
		w := create(t, b, NewWidget("ns", "a"))
		kept := w.ResourceVersion
		// A resourceVersion a never has: an update sending it is a 409.
		stale := create(t, b, NewWidget("ns", "b")).ResourceVersion
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
					p, err := b.List(ctx, "ns", store.ListOptions{Read: latest})
					if err != nil {
						t.Error(err)
						return
					}
					for _, o := range p.Items() {
						if o.Spec["dirty"] != "" {
							t.Errorf("read an uncommitted write: %+v", o)
							return
						}
					}
				}
			})
		}
		for i := range h.n(300) {
			d := NewWidget("ns", "a")
			d.Spec = map[string]string{"dirty": "1"}
			switch i % 4 {
			case 0:
				b.Update(ctx, d, store.UpdateOptions{DryRun: true})
			case 1:
				d.ResourceVersion = stale
				if _, err := b.Update(ctx, d, store.UpdateOptions{}); !status.IsConflict(err) {
					t.Fatalf("stale update: %v", err)
				}
			case 2:
				d.UID = "other" // invalid: 422
				b.Update(ctx, d, store.UpdateOptions{})
			case 3:
				d.Name = "b" // exists: 409
				b.Create(ctx, d, store.CreateOptions{})
			}
			ok := NewWidget("ns", "b")
			ok.Spec = map[string]string{"i": strconv.Itoa(i)}
			if _, err := b.Update(ctx, ok, store.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		close(stop)
		wg.Wait()
		if got := get(t, b, "ns", "a"); got.ResourceVersion != kept || got.Spec != nil {
			t.Errorf("object a changed: %+v", got)
		}
	})

	t.Run("non-repeatable read", func(t *testing.T) {
		// Reading the same object twice at a pinned revision gives the
		// same answer, whatever was written in between.
		b := newHarness(t).Backend
		pin := rv.Read{Semantics: rv.Exact, Version: version(t, create(t, b, NewWidget("ns", "a")))}
		first, err := b.Get(ctx, "ns", "a", pin)
		if err != nil {
			t.Fatal(err)
		}
		w := NewWidget("ns", "a")
		w.Spec = map[string]string{"v": "2"}
		b.Update(ctx, w, store.UpdateOptions{})
		b.Delete(ctx, "ns", "a", store.DeleteOptions{})
		create(t, b, NewWidget("ns", "a"))
		again, err := b.Get(ctx, "ns", "a", pin)
		if err != nil || fmt.Sprintf("%+v", again) != fmt.Sprintf("%+v", first) {
			t.Errorf("second read at revision %d = %+v, %v; first was %+v", pin.Version, again, err, first)
		}
	})

	t.Run("phantom read", func(t *testing.T) {
		// Repeating a list at a pinned revision gives the same set of
		// objects after creations and deletions (continue pages are
		// covered by PagedListIsOneSnapshot).
		b := newHarness(t).Backend
		revs := map[rv.Version]string{}
		for i, n := range []string{"b", "d"} {
			revs[version(t, create(t, b, NewWidget("ns", n)))] = fmt.Sprint("R", i+1)
		}
		pin := store.ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: revision(revs, "R2")}}
		p1, err := b.List(ctx, "ns", pin)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"a", "c", "e"} {
			create(t, b, NewWidget("ns", n))
		}
		b.Delete(ctx, "ns", "d", store.DeleteOptions{})
		p2, err := b.List(ctx, "ns", pin)
		if err != nil || listed(p1, revs) != listed(p2, revs) || listed(p2, revs) != "rv=R2 [b@R1 d@R2]" {
			t.Errorf("lists at revision R2: %s then %s (%v)", listed(p1, revs), listed(p2, revs), err)
		}
	})

	t.Run("read skew", func(t *testing.T) {
		// The writer keeps a.n - b.n in {0, 1} at every revision (it bumps
		// a, then b). A list reads both at one revision, so it never sees
		// the invariant broken.
		h := newHarness(t)
		b := h.Backend
		create(t, b, NewWidget("ns", "a"))
		create(t, b, NewWidget("ns", "b"))
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := 1; i <= h.n(500); i++ {
				for _, n := range []string{"a", "b"} {
					w := NewWidget("ns", n)
					w.Spec = map[string]string{"n": strconv.Itoa(i)}
					if _, err := b.Update(ctx, w, store.UpdateOptions{}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
		for {
			select {
			case <-done:
				return
			default:
			}
			p, err := b.List(ctx, "ns", store.ListOptions{Read: latest})
			if err != nil {
				<-done
				t.Fatal(err)
			}
			a, _ := strconv.Atoi(p.At(0).Spec["n"])
			c, _ := strconv.Atoi(p.At(1).Spec["n"])
			if d := a - c; d != 0 && d != 1 {
				<-done
				t.Fatalf("read skew at revision %d: a=%d b=%d", p.ResourceVersion(), a, c)
			}
		}
	})

	t.Run("lost update", func(t *testing.T) {
		// Concurrent read-modify-writes never overwrite each other:
		// GuaranteedUpdate retries on a newer state, and Update with the
		// resourceVersion read is refused (409) when it is stale.
		h := newHarness(t)
		b := h.Backend
		create(t, b, NewWidget("ns", "a"))
		const workers = 4
		each := h.n(50)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for range each {
					if w%2 == 0 {
						_, err := b.GuaranteedUpdate(ctx, "ns", "a", store.UpdateOptions{}, func(cur *Widget) (*Widget, error) {
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
						cur, err := b.Get(ctx, "ns", "a", latest)
						if err != nil {
							t.Error(err)
							return
						}
						n, _ := strconv.Atoi(cur.Spec["n"])
						cur.Spec = map[string]string{"n": strconv.Itoa(n + 1)}
						if _, err = b.Update(ctx, cur, store.UpdateOptions{}); err == nil {
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
		if got := get(t, b, "ns", "a").Spec["n"]; got != strconv.Itoa(workers*each) {
			t.Errorf("counter = %s; want %d", got, workers*each)
		}
	})

	t.Run("stale read", func(t *testing.T) {
		// A write is visible to every read that starts after it returns,
		// and a Not older than N read never answers with less than N.
		b := newHarness(t).Backend
		for i := range 50 {
			n := version(t, create(t, b, NewWidget("ns", fmt.Sprint(i))))
			for _, read := range []rv.Read{latest, {Semantics: rv.NotOlderThan, Version: n}} {
				p, err := b.List(ctx, "ns", store.ListOptions{Read: read})
				if err != nil || p.ResourceVersion() < n || p.Len() != i+1 {
					t.Fatalf("list (%v) after write %d: %s, %v", read, n, listed(p, nil), err)
				}
			}
		}
	})
}
