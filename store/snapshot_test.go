package store

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch"
)

// churn makes random writes: updates, deletions, re-creations of deleted
// objects, and creations of new keys anywhere in the key order. It reports
// failures with t.Error, so it may run on another goroutine.
type churn struct {
	f       *fixture
	rng     *rand.Rand
	live    map[string]string // key -> resourceVersion
	dead    []string          // keys deleted, available for re-creation
	created int
	writes  []churnWrite // every write made, in revision order
}

// churnWrite is one write of a churn: key got version rv at revision rev,
// or was deleted then (rv "").
type churnWrite struct {
	rev     rv.Version
	key, rv string
}

func (c *churn) record(key, version, stored string) {
	r, _ := strconv.ParseUint(stored, 10, 64)
	c.writes = append(c.writes, churnWrite{rv.Version(r), key, version})
}

// stateAt returns the key -> resourceVersion map at revision at, from the
// writes alone.
func (c *churn) stateAt(at rv.Version) map[string]string {
	state := map[string]string{}
	for _, w := range c.writes {
		switch {
		case w.rev > at:
			return state
		case w.rv == "":
			delete(state, w.key)
		default:
			state[w.key] = w.rv
		}
	}
	return state
}

func (c *churn) key(ns, name string) string { return c.f.r.Key(ns, name) }

func split(key string) (ns, name string) {
	var parts []string
	start := 0
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			parts = append(parts, key[start:i])
			start = i + 1
		}
	}
	parts = append(parts, key[start:])
	return parts[len(parts)-2], parts[len(parts)-1]
}

func (c *churn) randomLive() string {
	keys := slices.Sorted(maps.Keys(c.live))
	return keys[c.rng.IntN(len(keys))]
}

func (c *churn) step(t testing.TB) {
	ctx := context.Background()
	switch op := c.rng.IntN(4); {
	case op == 0 && len(c.live) > 0:
		key := c.randomLive()
		ns, name := split(key)
		w := newWidget(ns, name)
		w.Spec = map[string]string{"n": fmt.Sprint(c.rng.Int())}
		out, err := c.f.r.Update(ctx, w, UpdateOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		c.live[key] = out.ResourceVersion
		c.record(key, out.ResourceVersion, out.ResourceVersion)
	case op == 1 && len(c.live) > 0:
		key := c.randomLive()
		ns, name := split(key)
		gone, _, err := c.f.r.Delete(ctx, ns, name, DeleteOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		c.record(key, "", gone.ResourceVersion)
		delete(c.live, key)
		c.dead = append(c.dead, key)
	case op == 2 && len(c.dead) > 0:
		i := c.rng.IntN(len(c.dead))
		key := c.dead[i]
		c.dead = slices.Delete(c.dead, i, i+1)
		ns, name := split(key)
		c.live[key] = c.create(t, ns, name)
		c.record(key, c.live[key], c.live[key])
	default:
		c.created++
		ns := fmt.Sprintf("ns%d", c.rng.IntN(5))
		name := fmt.Sprintf("w%04d-new%d", c.rng.IntN(1000), c.created)
		key := c.key(ns, name)
		c.live[key] = c.create(t, ns, name)
		c.record(key, c.live[key], c.live[key])
	}
}

// create may run off the test goroutine, so it reports with Error.
func (c *churn) create(t testing.TB, ns, name string) string {
	out, err := c.f.r.Create(context.Background(), newWidget(ns, name), CreateOptions{})
	if err != nil {
		t.Error(err)
		return ""
	}
	return out.ResourceVersion
}

// TestPagedListIsOneSnapshot checks DESIGN invariant 2: all pages of a
// list carry the first page's revision and together return every object
// that existed at that revision exactly once, with the version it had
// then, however many updates, deletions, re-creations and creations
// happen between pages.
func TestPagedListIsOneSnapshot(t *testing.T) {
	for _, tc := range []struct {
		seed      uint64
		namespace string
		limit     int64
	}{{1, "", 23}, {2, "", 1}, {3, "ns2", 7}, {4, "", 97}} {
		t.Run(fmt.Sprintf("seed=%d,ns=%q,limit=%d", tc.seed, tc.namespace, tc.limit), func(t *testing.T) {
			ctx := context.Background()
			c := &churn{f: newFixture(t, Options[*widget]{}), rng: rand.New(rand.NewPCG(tc.seed, 0)), live: map[string]string{}}
			for range 400 {
				c.step(t)
			}
			prefix := c.f.r.Prefix(tc.namespace)
			want := map[string]string{}
			for k, v := range c.live {
				if len(k) > len(prefix) && k[:len(prefix)] == prefix {
					want[k] = v
				}
			}
			wantKeys := slices.Sorted(maps.Keys(want))
			got := map[string]string{}
			var firstRV rv.Version
			read := rv.Read{Semantics: rv.MostRecent, Limit: tc.limit}
			for page := 0; ; page++ {
				p, err := c.f.r.List(ctx, tc.namespace, ListOptions{Read: read})
				if err != nil {
					t.Fatalf("page %d: %v", page, err)
				}
				if page == 0 {
					firstRV = p.ResourceVersion()
				} else if p.ResourceVersion() != firstRV {
					t.Fatalf("page %d at revision %d; the first was at %d", page, p.ResourceVersion(), firstRV)
				}
				for i := 0; i < p.Len(); i++ {
					k := p.Key(i)
					if _, dup := got[k]; dup {
						t.Fatalf("page %d: %s delivered twice", page, k)
					}
					got[k] = p.At(i).ResourceVersion
				}
				rem, ok := p.RemainingItemCount()
				if p.Continue() == "" {
					if ok {
						t.Errorf("last page carries remainingItemCount %d", rem)
					}
					break
				}
				last := p.Key(p.Len() - 1)
				wantRem := len(wantKeys) - sort.SearchStrings(wantKeys, last) - 1
				if int(rem) != wantRem || ok != (wantRem > 0) {
					t.Errorf("page %d: remainingItemCount = %d, %v; want %d", page, rem, ok, wantRem)
				}
				read = rv.Read{Semantics: rv.ContinueExact, Continue: p.Continue(), Limit: tc.limit}
				for range 1 + c.rng.IntN(15) {
					c.step(t)
				}
			}
			if !maps.Equal(got, want) {
				for k, v := range want {
					if got[k] != v {
						t.Errorf("%s: got version %q, want %q", k, got[k], v)
					}
				}
				for k := range got {
					if _, ok := want[k]; !ok {
						t.Errorf("%s: listed but did not exist at revision %d", k, firstRV)
					}
				}
			}
		})
	}
}

// replay computes the state at revision at from the event history alone,
// independently of the version chains and the index.
func replay(t testing.TB, s *Store[*widget], at rv.Version) map[string]string {
	t.Helper()
	evs, err := s.Events(nil, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	state := map[string]string{}
	for _, ev := range evs {
		if ev.Revision > at {
			break
		}
		if ev.Type == watch.Deleted {
			delete(state, ev.Key)
		} else {
			state[ev.Key] = ev.Object.ResourceVersion
		}
	}
	return state
}

// TestPagedListConcurrentWriters pages through collections while writers
// run concurrently, and checks each list against the state replayed from
// the history at its revision.
func TestPagedListConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{HistoryWindow: -1})
	c := &churn{f: f, rng: rand.New(rand.NewPCG(9, 9)), live: map[string]string{}}
	for range 300 {
		c.step(t)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				c.step(t)
			}
		}
	})
	// page is the last key of a page that had more after it, and the
	// remainingItemCount it carried.
	type page struct {
		last string
		rem  int64
	}
	type result struct {
		rev   rv.Version
		keys  map[string]string
		pages []page
	}
	results := make([]result, 4)
	var readers sync.WaitGroup
	for i := range results {
		readers.Go(func() {
			got := map[string]string{}
			read := rv.Read{Semantics: rv.MostRecent, Limit: int64(3 + i*5)}
			var rev rv.Version
			var pages []page
			for {
				p, err := f.r.List(ctx, "", ListOptions{Read: read})
				if err != nil {
					t.Error(err)
					return
				}
				rev = p.ResourceVersion()
				for j := 0; j < p.Len(); j++ {
					got[p.Key(j)] = p.At(j).ResourceVersion
				}
				if p.Continue() == "" {
					break
				}
				rem, _ := p.RemainingItemCount()
				pages = append(pages, page{p.Key(p.Len() - 1), rem})
				read = rv.Read{Semantics: rv.ContinueExact, Continue: p.Continue(), Limit: read.Limit}
			}
			results[i] = result{rev, got, pages}
		})
	}
	readers.Wait()
	close(stop)
	wg.Wait()
	for i, res := range results {
		want := replay(t, f.s, res.rev)
		if !maps.Equal(res.keys, want) {
			t.Errorf("reader %d at revision %d: listed %d objects, history has %d", i, res.rev, len(res.keys), len(want))
		}
		keys := slices.Sorted(maps.Keys(want))
		for _, pg := range res.pages {
			if n := len(keys) - sort.SearchStrings(keys, pg.last) - 1; pg.rem != int64(n) {
				t.Errorf("reader %d at revision %d: remainingItemCount after %s = %d; history has %d", i, res.rev, pg.last, pg.rem, n)
			}
		}
	}
}

// TestReadsDeepInHistory reads every revision of keys with long version
// chains, re-creations and compaction in between, against the replayed
// history: the skip pointers never skip the right version.
func TestReadsDeepInHistory(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{HistoryWindow: -1})
	rng := rand.New(rand.NewPCG(11, 12))
	names := []string{"a", "b", "c"}
	live := map[string]bool{}
	for range 700 {
		n := names[rng.IntN(len(names))]
		switch {
		case !live[n]:
			f.create(t, newWidget("ns", n))
			live[n] = true
		case rng.IntN(20) == 0:
			f.r.Delete(ctx, "ns", n, DeleteOptions{})
			live[n] = false
		default:
			f.r.Update(ctx, newWidget("ns", n), UpdateOptions{})
		}
		if rng.IntN(150) == 0 {
			f.s.Compact(f.s.Revision() - rv.Version(rng.IntN(50)))
		}
	}
	evs := f.events(t, f.s.CompactedRevision())
	for at := f.s.CompactedRevision(); at <= f.s.Revision(); at++ {
		want := map[string]string{}
		// The state at the compaction revision, then the events after it.
		f.s.Snapshot(f.s.CompactedRevision(), func(k string, w *widget) bool { want[k] = w.ResourceVersion; return true })
		for _, ev := range evs {
			if ev.Revision > at {
				break
			}
			if ev.Type == watch.Deleted {
				delete(want, ev.Key)
			} else {
				want[ev.Key] = ev.Object.ResourceVersion
			}
		}
		for _, n := range names {
			got, err := f.r.Get(ctx, "ns", n, rv.Read{Semantics: rv.Exact, Version: at})
			key := f.r.Key("ns", n)
			switch wantRV, ok := want[key]; {
			case ok && (err != nil || got.ResourceVersion != wantRV):
				t.Fatalf("%s at %d: %v, %v; want version %s", n, at, got, err, wantRV)
			case !ok && err == nil:
				t.Fatalf("%s at %d: found version %s; want none", n, at, got.ResourceVersion)
			}
		}
	}
}
