package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// model is the naive reference the index is checked against: a sorted
// slice of keys with their live flags.
type model struct {
	keys []string
	live map[string]bool
}

func (m *model) rank(key string) int {
	n := 0
	for _, k := range m.keys {
		if k < key && m.live[k] {
			n++
		}
	}
	return n
}

func checkIndex(t *testing.T, x *index[*widget], m *model) {
	t.Helper()
	if x.size != len(m.keys) {
		t.Fatalf("size = %d, want %d", x.size, len(m.keys))
	}
	live := 0
	for _, k := range m.keys {
		if m.live[k] {
			live++
		}
	}
	if x.live != live {
		t.Fatalf("live = %d, want %d", x.live, live)
	}
	var c cursor[*widget]
	x.seek(&c, "")
	var got []string
	for e := c.next(); e != nil; e = c.next() {
		got = append(got, e.key)
	}
	if !slices.Equal(got, m.keys) {
		t.Fatalf("iteration = %v, want %v", got, m.keys)
	}
	if x.root != nil {
		checkNode(t, x.root, x.height, "", "")
	}
}

// checkNode verifies the structural invariants: separator bounds and counts.
func checkNode(t *testing.T, n *inner[*widget], h int, lo, hi string) uint32 {
	t.Helper()
	if n.n == 0 {
		t.Fatalf("empty inner node")
	}
	var total uint32
	for i := 0; i < n.n; i++ {
		clo, chi := n.keys[i], hi
		if i+1 < n.n {
			chi = n.keys[i+1]
		}
		if i == 0 && clo < lo {
			t.Fatalf("child 0 bound %q below parent bound %q", clo, lo)
		}
		var c uint32
		if h == 1 {
			l := n.leaf(i)
			for j := 0; j < l.n; j++ {
				k := l.ents[j].key
				if k < clo || (chi != "" && k >= chi) {
					t.Fatalf("key %q outside [%q, %q)", k, clo, chi)
				}
				if j > 0 && l.ents[j-1].key >= k {
					t.Fatalf("leaf out of order")
				}
			}
			if l.live>>uint(l.n) != 0 {
				t.Fatalf("live bits beyond n")
			}
			c = l.count()
		} else {
			c = checkNode(t, n.kid(i), h-1, clo, chi)
		}
		if n.counts[i] != c {
			t.Fatalf("count[%d] = %d, want %d", i, n.counts[i], c)
		}
		total += c
	}
	return total
}

func TestIndexAgainstModel(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, seed))
			m := &model{live: map[string]bool{}}
			var x index[*widget]
			type snap struct {
				x    index[*widget]
				keys []string
				live map[string]bool
			}
			var snaps []snap
			universe := 3000
			for step := 0; step < 6000; step++ {
				tx := indexTx[*widget]{x: x, id: uint64(step + 1)}
				// Several changes per batch, to exercise in-place edits
				// of nodes the batch already owns.
				for k := 0; k < 1+r.IntN(3); k++ {
					key := fmt.Sprintf("k%05d", r.IntN(universe))
					i, found := slices.BinarySearch(m.keys, key)
					switch op := r.IntN(10); {
					case !found && op < 6:
						live := r.IntN(4) != 0
						tx.insert(&entry[*widget]{key: key}, live)
						m.keys = slices.Insert(m.keys, i, key)
						m.live[key] = live
					case found && op < 3:
						tx.remove(key)
						m.keys = slices.Delete(m.keys, i, i+1)
						delete(m.live, key)
					case found:
						tx.setLive(key, !m.live[key])
						m.live[key] = !m.live[key]
					}
				}
				x = tx.x
				if step%997 == 0 {
					checkIndex(t, &x, m)
					snaps = append(snaps, snap{x, slices.Clone(m.keys), maps2(m.live)})
				}
				if step%101 == 0 {
					for q := 0; q < 20; q++ {
						key := fmt.Sprintf("k%05d", r.IntN(universe+10))
						if got, want := x.rank(key), m.rank(key); got != want {
							t.Fatalf("rank(%q) = %d, want %d", key, got, want)
						}
						e := x.get(key)
						if _, found := slices.BinarySearch(m.keys, key); found != (e != nil) {
							t.Fatalf("get(%q) = %v, want found=%v", key, e, found)
						}
						var c cursor[*widget]
						x.seek(&c, key)
						j := sort.SearchStrings(m.keys, key)
						for n := 0; n < 5; n++ {
							e := c.next()
							if j+n >= len(m.keys) {
								if e != nil {
									t.Fatalf("seek(%q) step %d = %q, want end", key, n, e.key)
								}
								break
							}
							if e == nil || e.key != m.keys[j+n] {
								t.Fatalf("seek(%q) step %d = %v, want %q", key, n, e, m.keys[j+n])
							}
						}
					}
				}
			}
			// Persistence: every snapshot still reads as it did.
			for _, s := range snaps {
				checkIndex(t, &s.x, &model{keys: s.keys, live: s.live})
			}
			// Drain everything.
			tx := indexTx[*widget]{x: x, id: 1 << 40}
			for _, k := range slices.Clone(m.keys) {
				tx.remove(k)
			}
			if tx.x.root != nil || tx.x.size != 0 || tx.x.live != 0 {
				t.Fatalf("drained index not empty: %+v", tx.x)
			}
		})
	}
}

func maps2(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestIndexSequential(t *testing.T) {
	// Ascending and descending bulk loads split at the edges.
	for _, desc := range []bool{false, true} {
		var x index[*widget]
		m := &model{live: map[string]bool{}}
		for i := 0; i < 20000; i++ {
			n := i
			if desc {
				n = 20000 - i
			}
			key := fmt.Sprintf("k%06d", n)
			tx := indexTx[*widget]{x: x, id: uint64(i + 1)}
			tx.insert(&entry[*widget]{key: key}, i%3 != 0)
			x = tx.x
			m.keys = append(m.keys, key)
			m.live[key] = i%3 != 0
		}
		slices.Sort(m.keys)
		checkIndex(t, &x, m)
		if !desc {
			// An ascending load fills its leaves and nodes: 313 leaves
			// of 64 entries (the last of 32) under 40 full nodes and
			// one of a leaf, under 6, under the root, where splits in
			// halves left 624 leaves.
			if leaves := countLeaves(x.root, x.height); leaves != (20000+leafMax-1)/leafMax || x.height != 3 {
				t.Errorf("ascending load: %d leaves, height %d; want %d, 3", leaves, x.height, (20000+leafMax-1)/leafMax)
			}
		}
		if got, want := x.liveIn("k001000", "k002000"), m.rank("k002000")-m.rank("k001000"); got != want {
			t.Fatalf("liveIn = %d, want %d", got, want)
		}
	}
}

// countLeaves returns the number of leaves under n, at height h.
func countLeaves(n *inner[*widget], h int) int {
	if h == 1 {
		return n.n
	}
	total := 0
	for i := 0; i < n.n; i++ {
		total += countLeaves(n.kid(i), h-1)
	}
	return total
}
