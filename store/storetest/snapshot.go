package storetest

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/store"
)

// churn makes random writes: updates, deletions, re-creations of deleted
// objects, and creations of new keys anywhere in the key order, and
// records them. It reports failures with t.Error, so it may run on
// another goroutine (one at a time).
type churn struct {
	b       store.Backend[*Widget]
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

func newChurn(b store.Backend[*Widget], seed1, seed2 uint64) *churn {
	return &churn{b: b, rng: rand.New(rand.NewPCG(seed1, seed2)), live: map[string]string{}}
}

func (c *churn) record(key, version, stored string) {
	r, _ := rv.Parse(stored)
	c.writes = append(c.writes, churnWrite{r, key, version})
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

// split returns the namespace and name of a key ".../namespace/name".
func split(key string) (ns, name string) {
	parts := strings.Split(key, "/")
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
		w := NewWidget(ns, name)
		w.Spec = map[string]string{"n": fmt.Sprint(c.rng.Int())}
		out, err := c.b.Update(ctx, w, store.UpdateOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		c.live[key] = out.ResourceVersion
		c.record(key, out.ResourceVersion, out.ResourceVersion)
	case op == 1 && len(c.live) > 0:
		key := c.randomLive()
		ns, name := split(key)
		gone, _, err := c.b.Delete(ctx, ns, name, store.DeleteOptions{})
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
		key := c.b.Key(ns, name)
		c.live[key] = c.create(t, ns, name)
		c.record(key, c.live[key], c.live[key])
	}
}

// create may run off the test goroutine, so it reports with Error.
func (c *churn) create(t testing.TB, ns, name string) string {
	out, err := c.b.Create(context.Background(), NewWidget(ns, name), store.CreateOptions{})
	if err != nil {
		t.Error(err)
		return ""
	}
	return out.ResourceVersion
}

// checkPagedListIsOneSnapshot: all pages of a list carry the first page's
// revision and together return every object that existed at that
// revision exactly once, with the version it had then, however many
// updates, deletions, re-creations and creations happen between pages;
// remainingItemCount counts what is left of that snapshot.
func checkPagedListIsOneSnapshot(t *testing.T, newHarness func(*testing.T) Harness) {
	for _, tc := range []struct {
		seed      uint64
		namespace string
		limit     int64
	}{{1, "", 23}, {2, "", 1}, {3, "ns2", 7}, {4, "", 97}} {
		t.Run(fmt.Sprintf("seed=%d,ns=%q,limit=%d", tc.seed, tc.namespace, tc.limit), func(t *testing.T) {
			ctx := context.Background()
			h := newHarness(t)
			b := h.Backend
			c := newChurn(b, tc.seed, 0)
			for range h.n(400) {
				c.step(t)
			}
			prefix := b.Prefix(tc.namespace)
			want := map[string]string{}
			for k, v := range c.live {
				if strings.HasPrefix(k, prefix) && len(k) > len(prefix) {
					want[k] = v
				}
			}
			wantKeys := slices.Sorted(maps.Keys(want))
			got := map[string]string{}
			var firstRV rv.Version
			read := rv.Read{Semantics: rv.MostRecent, Limit: tc.limit}
			for page := 0; ; page++ {
				p, err := b.List(ctx, tc.namespace, store.ListOptions{Read: read})
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
				for range 1 + c.rng.IntN(h.n(15)) {
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

// checkPagedListConcurrentWriters pages through collections while a
// writer runs, and checks each list against the state the writes made at
// its revision.
func checkPagedListConcurrentWriters(t *testing.T, newHarness func(*testing.T) Harness) {
	ctx := context.Background()
	h := newHarness(t)
	b := h.Backend
	c := newChurn(b, 9, 9)
	for range h.n(300) {
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
				p, err := b.List(ctx, "", store.ListOptions{Read: read})
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
		want := c.stateAt(res.rev)
		if !maps.Equal(res.keys, want) {
			t.Errorf("reader %d at revision %d: listed %d objects, the writes made %d", i, res.rev, len(res.keys), len(want))
		}
		keys := slices.Sorted(maps.Keys(want))
		for _, pg := range res.pages {
			if n := len(keys) - sort.SearchStrings(keys, pg.last) - 1; pg.rem != int64(n) {
				t.Errorf("reader %d at revision %d: remainingItemCount after %s = %d; the writes left %d", i, res.rev, pg.last, pg.rem, n)
			}
		}
	}
}
