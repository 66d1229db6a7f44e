package serverstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apisem/apisem/etcdstore/internal/etcdtest"
	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/store"
)

// heap returns the bytes of live heap objects, after collecting garbage.
func heap() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// writeHeapProfile writes the heap profile of the last collection to
// path (run with -test.memprofilerate=512 or so for sites' detail).
func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStoreMemory reports the heap a server's store holds per
// ConfigMap (B/object), with 10,000 ConfigMaps of 256 bytes of data, as
// httpbench creates them: in memory right after the creates (their
// history kept) and after compaction; in the replica of a server on etcd
// that loaded them at its start, and in one that followed their writes
// (its history kept). Run it once per process, for numbers that other
// servers' garbage does not move: -bench StoreMemory/memory -benchtime 1x,
// then replica/loaded, then replica/followed, with APISEM_BENCH_ETCD set
// to an etcd of another process. APISEM_HEAP_PROFILE=file writes the
// in-memory server's heap profile after compaction.
func BenchmarkStoreMemory(b *testing.B) {
	const n = 10000
	ctx := context.Background()
	// The objects, made by an in-memory server (uid, timestamps,
	// managedFields), then the values to put in etcd.
	src, err := demo.New(demo.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := src.Create(ctx, &api.Namespace{ObjectMeta: meta.ObjectMeta{Name: "ns1"}}); err != nil {
		b.Fatal(err)
	}
	// Each object has strings of its own, as one decoded from a request.
	newCM := func(i int) *api.ConfigMap {
		return &api.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("cm-%06d", i), Namespace: "ns1",
			Labels: map[string]string{"app": fmt.Sprint("a", i%10)}}, Data: map[string]string{"k": strings.Repeat("x", 256)}}
	}
	values := make([]string, n)
	for i := range n {
		o, err := src.Create(ctx, newCM(i))
		if err != nil {
			b.Fatal(err)
		}
		v, _ := json.Marshal(o)
		values[i] = string(v)
	}
	src.Shutdown(ctx)
	// An etcd of another process (APISEM_BENCH_ETCD, a client URL) keeps
	// etcd's own heap out of the numbers; the embedded one's growth is
	// measured and taken off.
	var c *clientv3.Client
	external := os.Getenv("APISEM_BENCH_ETCD")
	if external != "" {
		c = etcdtest.Client(b, external)
	} else {
		_, c = newEtcd(b)
	}
	run := time.Now().UnixNano() // prefixes of this run, on an etcd that may hold others
	put := func(prefix string) {
		ops := make([]clientv3.Op, 0, 100)
		for i, v := range values {
			ops = append(ops, clientv3.OpPut(fmt.Sprintf("%s/configmaps/ns1/cm-%06d", prefix, i), v))
			if len(ops) == cap(ops) || i == n-1 {
				if _, err := c.Txn(ctx).Then(ops...).Commit(); err != nil {
					b.Fatal(err)
				}
				ops = ops[:0]
			}
		}
	}
	// sync waits until s's replica has caught up with etcd (a consistent
	// read does).
	sync := func(s *demo.Server) {
		for _, r := range s.Resources() {
			if r.Plural == "configmaps" {
				if _, err := s.StoreOf(r).List(ctx, "", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent, Limit: 1}}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	onEtcd := func(prefix string) *demo.Server {
		s, err := demo.New(demo.Options{Storage: serverstore.Storage(serverstore.Options{Client: c, Prefix: prefix})})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Shutdown(ctx) })
		sync(s)
		return s
	}
	perObject := func(b *testing.B, bytes int64) {
		b.ReportMetric(float64(bytes)/n, "B/object")
	}

	b.Run("memory", func(b *testing.B) {
		for b.Loop() {
			s, err := demo.New(demo.Options{})
			if err != nil {
				b.Fatal(err)
			}
			s.Create(ctx, &api.Namespace{ObjectMeta: meta.ObjectMeta{Name: "ns1"}})
			empty := heap()
			for i := range n {
				if _, err := s.Create(ctx, newCM(i)); err != nil {
					b.Fatal(err)
				}
			}
			created := heap()
			s.Compact()
			compacted := heap()
			if path := os.Getenv("APISEM_HEAP_PROFILE"); path != "" {
				writeHeapProfile(b, path) // what the store holds, by allocation site
			}
			b.ReportMetric(float64(created-empty)/n, "B/object-with-history")
			perObject(b, compacted-empty)
			s.Shutdown(ctx)
		}
	})
	b.Run("replica/loaded", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			prefix := fmt.Sprintf("/bench%d/loaded%d", run, i)
			put(prefix)
			h0 := heap()
			onEtcd(fmt.Sprintf("/bench%d/empty%d", run, i))
			h1 := heap()
			onEtcd(prefix)
			h2 := heap()
			perObject(b, (h2-h1)-(h1-h0))
		}
	})
	b.Run("replica/followed", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			var h0, h1 int64
			if external == "" {
				h0 = heap()
				put(fmt.Sprintf("/bench%d/unwatched%d", run, i)) // etcd's growth alone
				h1 = heap()
			}
			prefix := fmt.Sprintf("/bench%d/followed%d", run, i)
			s := onEtcd(prefix)
			h2 := heap()
			put(prefix)
			sync(s)
			h3 := heap()
			b.ReportMetric(float64((h3-h2)-(h1-h0))/n, "B/object-with-history")
		}
	})
}
