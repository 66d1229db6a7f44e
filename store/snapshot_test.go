package store

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
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
