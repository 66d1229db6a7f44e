package etcdstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/store"
)

// BenchmarkListPage reads a page of 500 of 10^4 objects: from the
// replica (resourceVersion=0, no etcd call), consistently (one etcd
// round trip to learn its revision first), and from the in-memory store
// for comparison.
func BenchmarkListPage(b *testing.B) {
	const n, limit = 10000, 500
	_, c := newEtcd(b)
	ctx := context.Background()
	r := newResource(b, c, Options[*widget]{})
	mem := store.New(store.Options[*widget]{}).Resource(widgetOptions())
	ops := make([]clientv3.Op, 0, 100)
	for i := range n {
		w := newWidget("ns", fmt.Sprintf("w%05d", i))
		if _, err := mem.Create(ctx, w, store.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		v, _ := json.Marshal(w)
		ops = append(ops, clientv3.OpPut(r.EtcdKey("ns", w.Name), string(v)))
		if len(ops) == cap(ops) {
			if _, err := c.Txn(ctx).Then(ops...).Commit(); err != nil {
				b.Fatal(err)
			}
			ops = ops[:0]
		}
	}
	if p, err := r.List(ctx, "ns", store.ListOptions{Read: latest}); err != nil || p.Len() != n {
		b.Fatalf("replica holds %v objects: %v", p, err)
	}
	for _, tc := range []struct {
		name string
		list func(rv.Read) (*store.Page[*widget], error)
		read rv.Read
	}{
		{"replica/any", func(rd rv.Read) (*store.Page[*widget], error) { return r.List(ctx, "ns", store.ListOptions{Read: rd}) }, rv.Read{Semantics: rv.Any, Limit: limit}},
		{"replica/consistent", func(rd rv.Read) (*store.Page[*widget], error) { return r.List(ctx, "ns", store.ListOptions{Read: rd}) }, rv.Read{Semantics: rv.MostRecent, Limit: limit}},
		{"memory", func(rd rv.Read) (*store.Page[*widget], error) {
			return mem.List(ctx, "ns", store.ListOptions{Read: rd})
		}, rv.Read{Semantics: rv.MostRecent, Limit: limit}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p, err := tc.list(tc.read); err != nil || p.Len() != limit {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCreate measures a create through etcd (one transaction, one
// fsync) from one writer and from 8. cpu-µs/op is the process's CPU per
// create, the embedded etcd's included.
func BenchmarkCreate(b *testing.B) {
	_, c := newEtcd(b)
	r := newResource(b, c, Options[*widget]{})
	ctx := context.Background()
	var next atomicCounter // names stay unique across the benchmark's runs
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cputime.Process()
		for b.Loop() {
			if _, err := r.Create(ctx, newWidget("serial", fmt.Sprint(next.add())), store.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
	})
	b.Run("8-writers", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(4) // 4 per core: 8 writers on 2 cores
		cpu := cputime.Process()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := r.Create(ctx, newWidget("par", fmt.Sprint(next.add())), store.CreateOptions{}); err != nil {
					b.Error(err)
					return
				}
			}
		})
		reportCPU(b, cpu)
	})
}

// reportCPU reports the process's CPU time since cpu per operation.
func reportCPU(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

type atomicCounter struct{ n atomic.Int64 }

func (c *atomicCounter) add() int64 { return c.n.Add(1) }

// BenchmarkSync measures what a watch with resourceVersion unset (or any
// consistent read) pays before it is served from the replica: a round
// trip to etcd for its revision and the wait for the replica to reach
// it, on an idle etcd and while 4 writers create objects.
func BenchmarkSync(b *testing.B) {
	_, c := newEtcd(b)
	r := newResource(b, c, Options[*widget]{})
	ctx := context.Background()
	var next atomicCounter
	b.Run("idle", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := r.Sync(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("4-writers", func(b *testing.B) {
		wctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		for range 4 {
			go func() {
				defer func() { done <- struct{}{} }()
				for wctx.Err() == nil {
					r.Create(wctx, newWidget("load", fmt.Sprint(next.add())), store.CreateOptions{})
				}
			}()
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := r.Sync(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		stop()
		for range 4 {
			<-done
		}
	})
}

// BenchmarkGetConsistent measures a GET with resourceVersion unset (what
// a create's namespace admission reads): on an idle etcd and while 4
// writers create objects, which keep etcd's revision ahead of the
// replica's. cpu-µs/op counts the writers' CPU too.
func BenchmarkGetConsistent(b *testing.B) {
	_, c := newEtcd(b)
	r := newResource(b, c, Options[*widget]{})
	ctx := context.Background()
	if _, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	var next atomicCounter
	b.Run("idle", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cputime.Process()
		for b.Loop() {
			if _, err := r.View(ctx, "ns", "a", latest); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
	})
	b.Run("4-writers", func(b *testing.B) {
		wctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		for range 4 {
			go func() {
				defer func() { done <- struct{}{} }()
				for wctx.Err() == nil {
					r.Create(wctx, newWidget("load", fmt.Sprint(next.add())), store.CreateOptions{})
				}
			}()
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.View(ctx, "ns", "a", latest); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		stop()
		for range 4 {
			<-done
		}
	})
}

// BenchmarkUpdate measures a read-modify-write (GuaranteedUpdate, what a
// PATCH makes) of objects the replica holds: from one writer, and from 8
// writers on objects of their own.
func BenchmarkUpdate(b *testing.B) {
	_, c := newEtcd(b)
	r := newResource(b, c, Options[*widget]{})
	ctx := context.Background()
	for i := range 8 {
		if _, err := r.Create(ctx, newWidget("ns", fmt.Sprint(i)), store.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := r.Get(ctx, "ns", "7", latest); err != nil { // the replica has them
		b.Fatal(err)
	}
	var n atomicCounter
	update := func(name string) error {
		_, err := r.GuaranteedUpdate(ctx, "ns", name, store.UpdateOptions{}, func(w *widget) (*widget, error) {
			w.Spec = map[string]string{"n": fmt.Sprint(n.add())}
			return w, nil
		})
		return err
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cputime.Process()
		for b.Loop() {
			if err := update("0"); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
	})
	b.Run("8-writers", func(b *testing.B) {
		var id atomicCounter
		b.ReportAllocs()
		b.SetParallelism(4) // 4 per core: 8 writers on 2 cores
		cpu := cputime.Process()
		b.RunParallel(func(pb *testing.PB) {
			name := fmt.Sprint((id.add() - 1) % 8)
			for pb.Next() {
				if err := update(name); err != nil {
					b.Error(err)
					return
				}
			}
		})
		reportCPU(b, cpu)
	})
}
