package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/paging"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/google/btree"
)

// benchSizes are the collection sizes of the targets.
var benchSizes = benchSizeList()

// benchFixture is a store of n objects in namespace "ns", with labels
// app=a0..a9 (10% each), then n/10 updates of random objects, so that
// the revision after the creations (oldRev) is an older revision with
// newer versions on top.
type benchFixture struct {
	r      *Resource[*widget]
	n      int
	names  []string
	oldRev rv.Version
	// midToken continues at oldRev from the middle of the collection.
	midToken string
}

var (
	benchMu       sync.Mutex
	benchFixtures = map[int]*benchFixture{}
)

func benchObject(i int) *widget {
	w := newWidget("ns", fmt.Sprintf("obj-%07d", i))
	w.Labels = map[string]string{"app": fmt.Sprintf("a%d", i%10)}
	w.Spec = map[string]string{"key": "value"}
	return w
}

// getFixture builds the fixture of size n once per process: building a
// million objects takes seconds, so every benchmark shares it.
func getFixture(b *testing.B, n int) *benchFixture {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if bf := benchFixtures[n]; bf != nil {
		return bf
	}
	ctx := context.Background()
	s := New(Options[*widget]{HistoryWindow: -1})
	r := s.Resource(ResourceOptions[*widget]{
		GroupResource: status.GroupResource{Group: "example.com", Resource: "widgets"},
		Namespaced:    true,
	})
	bf := &benchFixture{r: r, n: n, names: make([]string, n)}
	for i := range n {
		w := benchObject(i)
		bf.names[i] = w.Name
		if _, err := r.Create(ctx, w, CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	bf.oldRev = s.Revision()
	rng := rand.New(rand.NewPCG(1, 2))
	for range n / 10 {
		w := benchObject(rng.IntN(n))
		w.Spec["key"] = "updated"
		if _, err := r.Update(ctx, w, UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	start, err := paging.NextStart(r.Key("ns", bf.names[n/2]), r.Prefix("ns"))
	if err != nil {
		b.Fatal(err)
	}
	bf.midToken = s.codec.Encode(paging.Token{Version: bf.oldRev, Start: start})
	runtime.GC()
	benchFixtures[n] = bf
	return bf
}

// forSizes runs fn on each fixture. Besides ns/op (wall time, which on a
// shared machine includes waiting for a core) it reports cpu-ns/op: the
// process CPU time per operation, garbage collection included.
func forSizes(b *testing.B, fn func(b *testing.B, bf *benchFixture)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			bf := getFixture(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cputime.Process()
			fn(b, bf)
			if used := cputime.Process() - cpu; used > 0 {
				b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	forSizes(b, func(b *testing.B, bf *benchFixture) {
		rng := rand.New(rand.NewPCG(3, 4))
		read := rv.Read{Semantics: rv.MostRecent}
		for b.Loop() {
			if _, err := bf.r.Get(ctx, "ns", bf.names[rng.IntN(bf.n)], read); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkList reads pages of 500: the first page at the latest
// revision, a page from the middle at an exact older revision through a
// continue token, and a page with a label selector matching 10%.
func BenchmarkList(b *testing.B) {
	ctx := context.Background()
	sel := mustLabels(b, "app=a3")
	for _, tc := range []struct {
		name string
		opts func(bf *benchFixture) ListOptions
	}{
		{"latest", func(*benchFixture) ListOptions {
			return ListOptions{Read: rv.Read{Semantics: rv.MostRecent, Limit: 500}}
		}},
		{"exact-continue", func(bf *benchFixture) ListOptions {
			return ListOptions{Read: rv.Read{Semantics: rv.ContinueExact, Continue: bf.midToken, Limit: 500}}
		}},
		{"selector", func(*benchFixture) ListOptions {
			return ListOptions{Read: rv.Read{Semantics: rv.MostRecent, Limit: 500}, Labels: sel}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			forSizes(b, func(b *testing.B, bf *benchFixture) {
				opts := tc.opts(bf)
				for b.Loop() {
					p, err := bf.r.List(ctx, "ns", opts)
					if err != nil || p.Len() != 500 {
						b.Fatalf("%v, %d items", err, p.Len())
					}
				}
			})
		})
	}
}

// BenchmarkBTreeAscend500 is the floor the issue names: ascending 500
// items from the middle of a google/btree of n strings.
func BenchmarkBTreeAscend500(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			t := btree.NewOrderedG[string](32)
			for i := range n {
				t.ReplaceOrInsert(fmt.Sprintf("widgets/ns/obj-%07d", i))
			}
			from := fmt.Sprintf("widgets/ns/obj-%07d", n/2)
			out := make([]string, 0, 500)
			b.ReportAllocs()
			for b.Loop() {
				out = out[:0]
				t.AscendGreaterOrEqual(from, func(s string) bool {
					out = append(out, s)
					return len(out) < 500
				})
			}
		})
	}
}

// BenchmarkUpdate runs after the list benchmarks, which expect the
// fixture's shape (a tenth of the objects updated after oldRev).
func BenchmarkUpdate(b *testing.B) { benchUpdate(b, UpdateOptions{}) }

// BenchmarkUpdateReadOnlyResult is BenchmarkUpdate without the copy of
// the result: one deep copy (of the input) per write.
func BenchmarkUpdateReadOnlyResult(b *testing.B) { benchUpdate(b, UpdateOptions{ReadOnlyResult: true}) }

func benchUpdate(b *testing.B, opts UpdateOptions) {
	ctx := context.Background()
	forSizes(b, func(b *testing.B, bf *benchFixture) {
		rng := rand.New(rand.NewPCG(5, 6))
		ws := make([]*widget, 1024)
		for i := range ws {
			ws[i] = benchObject(rng.IntN(bf.n))
		}
		i := 0
		for b.Loop() {
			if _, err := bf.r.Update(ctx, ws[i&1023], opts); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkCommit is the store's own cost of a write, without the two
// deep copies of the API (input and result): the index lookup, the new
// version, the history slot and publication. It is the counterpart of
// Kubernetes' watch-cache store update, which also receives an already
// decoded object. The object is a fresh shallow copy per write, as a
// decoded request body would be.
func BenchmarkCommit(b *testing.B) {
	forSizes(b, func(b *testing.B, bf *benchFixture) {
		s := bf.r.s
		rng := rand.New(rand.NewPCG(7, 8))
		keys := make([]string, 1024)
		for i := range keys {
			keys[i] = bf.r.Key("ns", bf.names[rng.IntN(bf.n)])
		}
		base := benchObject(0)
		i := 0
		for b.Loop() {
			w := new(widget)
			*w = *base
			s.mu.Lock()
			e, cur := s.liveLocked(keys[i&1023])
			if cur == nil {
				b.Fatal("missing")
			}
			s.commitLocked(e, false, w, false)
			s.mu.Unlock()
			i++
		}
	})
}

// BenchmarkCreate runs after the reads: it grows the shared fixtures (in
// namespace "new", outside the listed collection).
func BenchmarkCreate(b *testing.B) {
	ctx := context.Background()
	forSizes(b, func(b *testing.B, bf *benchFixture) {
		ws := make([]*widget, 0, 1<<16)
		base := bf.r.Store().Revision()
		for i := range cap(ws) {
			w := benchObject(i)
			w.Namespace = "new"
			ws = append(ws, w)
		}
		i := 0
		for b.Loop() {
			w := ws[i&(1<<16-1)]
			w.Name = fmt.Sprintf("c%d-%d", base, i)
			if _, err := bf.r.Create(ctx, w, CreateOptions{}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkMemory measures retained heap: per stored object (store
// overhead plus the object), per retained revision (an update kept in
// history: a version plus the new object), and the store overhead alone
// with the size of a bare object copy subtracted.
func BenchmarkMemory(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	heap := func() float64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc)
	}
	for b.Loop() {
		h0 := heap()
		bare := make([]*widget, n)
		for i := range n {
			bare[i] = benchObject(i).DeepCopy()
			bare[i].UID = "00000000-0000-4000-8000-000000000000"
			bare[i].ResourceVersion = "1000000"
		}
		perObject := (heap() - h0) / n
		runtime.KeepAlive(bare)
		bare = nil

		h0 = heap()
		s := New(Options[*widget]{HistoryWindow: -1})
		r := s.Resource(ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "widgets"}, Namespaced: true})
		for i := range n {
			r.Create(ctx, benchObject(i), CreateOptions{})
		}
		h1 := heap()
		w := benchObject(7)
		for range n {
			r.Update(ctx, w, UpdateOptions{})
		}
		h2 := heap()
		s.Compact(s.Revision())
		h3 := heap()
		b.ReportMetric((h1-h0)/n, "B/object")
		b.ReportMetric((h1-h0)/n-perObject, "B/object-overhead")
		b.ReportMetric((h2-h1)/n, "B/revision")
		b.ReportMetric((h2-h1)/n-perObject, "B/revision-overhead")
		b.ReportMetric((h3-h0)/n, "B/object-after-compact")
		runtime.KeepAlive(s)
	}
}

// benchSizeList returns the fixture sizes; APISEM_BENCH_SMALL=1 keeps to
// 10^4 for quick profiling.
func benchSizeList() []int {
	if os.Getenv("APISEM_BENCH_SMALL") != "" {
		return []int{10_000}
	}
	return []int{10_000, 1_000_000}
}

// BenchmarkIndex measures the key index alone: a lookup, and the insert
// of a new key (one copied root-to-leaf path).
func BenchmarkIndex(b *testing.B) {
	for _, n := range benchSizes {
		var x index[*widget]
		keys := make([]string, n)
		for i := range n {
			keys[i] = fmt.Sprintf("widgets/ns/obj-%07d", i)
			tx := indexTx[*widget]{x: x, id: uint64(i + 1)}
			tx.insert(&entry[*widget]{key: keys[i]}, true)
			x = tx.x
		}
		b.Run(fmt.Sprintf("get/n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			b.ReportAllocs()
			for b.Loop() {
				if x.get(keys[rng.IntN(n)]) == nil {
					b.Fatal("missing")
				}
			}
		})
		b.Run(fmt.Sprintf("append/n=%d", n), func(b *testing.B) {
			// Keys past the last, each in its own batch on the index
			// the one before made, as creates of names from a counter
			// go: B/op is the path each copies.
			y := x
			id := uint64(n + 1)
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				tx := indexTx[*widget]{x: y, id: id}
				tx.insert(&entry[*widget]{key: fmt.Sprintf("widgets/ns/obj-%07d-%09d", n, id)}, true)
				y = tx.x
				id++
			}
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
		})
		b.Run(fmt.Sprintf("insert/n=%d", n), func(b *testing.B) {
			fresh := make([]*entry[*widget], 1<<16)
			for i := range fresh {
				fresh[i] = &entry[*widget]{key: keys[i%n] + "-new"}
			}
			id := uint64(n + 1)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// Insert into the same base index each time: one path copy.
				tx := indexTx[*widget]{x: x, id: id}
				tx.insert(fresh[i&(1<<16-1)], true)
				id++
				i++
			}
		})
	}
}

// BenchmarkReadDeep reads a key at a revision k versions back in its
// chain: the skip pointers make it O(log k).
func BenchmarkReadDeep(b *testing.B) {
	for _, k := range []int{10, 1000, 100_000} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			f := newFixture(b, Options[*widget]{HistoryWindow: -1})
			ctx := context.Background()
			f.create(b, newWidget("ns", "a"))
			for range k {
				f.r.Update(ctx, newWidget("ns", "a"), UpdateOptions{})
			}
			e := f.s.idx.Load().get(f.r.Key("ns", "a"))
			b.ReportAllocs()
			for b.Loop() {
				if v := e.at(1); v == nil || v.rev != 1 {
					b.Fatal("wrong version")
				}
			}
		})
	}
}

// BenchmarkListOtherChurn pages at an older revision through a collection
// of 10^4 objects while 10^5 objects were created and deleted since that
// revision in another namespace: remainingItemCount must not pay for
// writes outside the listed collection.
func BenchmarkListOtherChurn(b *testing.B) {
	ctx := context.Background()
	s := New(Options[*widget]{HistoryWindow: -1})
	r := s.Resource(ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "widgets"}, Namespaced: true})
	for i := range 10_000 {
		if _, err := r.Create(ctx, benchObject(i), CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	old := s.Revision()
	for i := range 50_000 {
		w := benchObject(i)
		w.Namespace = "other"
		if _, err := r.Create(ctx, w, CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			if _, _, err := r.Delete(ctx, "other", w.Name, DeleteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	start, err := paging.NextStart(r.Key("ns", benchObject(5000).Name), r.Prefix("ns"))
	if err != nil {
		b.Fatal(err)
	}
	opts := ListOptions{Read: rv.Read{Semantics: rv.ContinueExact, Limit: 500,
		Continue: s.codec.Encode(paging.Token{Version: old, Start: start})}}
	b.ReportAllocs()
	for b.Loop() {
		p, err := r.List(ctx, "ns", opts)
		if n, _ := p.RemainingItemCount(); err != nil || p.Len() != 500 || n != 4499 {
			b.Fatalf("%v, %d items, %d more", err, p.Len(), n)
		}
	}
}
