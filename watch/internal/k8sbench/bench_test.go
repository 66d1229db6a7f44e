package k8sbench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch"
	"github.com/apisem/apisem/watch/watchtest"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8swatch "k8s.io/apimachinery/pkg/watch"
)

var sizes = []int{1, 100, 1000, 10000}

// object is the smallest runtime.Object.
type object struct{ rev rv.Version }

func (o *object) GetObjectKind() schema.ObjectKind  { return schema.EmptyObjectKind }
func (o *object) DeepCopyObject() k8sruntime.Object { c := *o; return &c }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var funcs = watch.ObjectFuncs[*object]{
	Bookmark:    func(rev rv.Version, _ bool) *object { return &object{rev: rev} },
	WithVersion: func(o *object, rev rv.Version) *object { return &object{rev: rev} },
}

type nopEncoder struct{}

func (*nopEncoder) AppendEvent(dst []byte, typ watch.EventType, o *object) ([]byte, error) {
	return append(dst, typ...), nil
}

// impl is one broadcaster under test: start n consumers that call got
// after each event, then write events with put.
type impl struct {
	name  string
	start func(n int, got func()) (put func(), stop func())
}

var impls = []impl{
	{"apisem", func(n int, got func()) (func(), func()) {
		src := watchtest.NewRing(&object{}, 1<<14)
		b := watch.NewBroadcaster[*object](src, funcs, watch.Options{})
		enc := &nopEncoder{}
		var wg sync.WaitGroup
		for range n {
			w := b.Watch(context.Background(), rv.Watch{Start: rv.StartExact, Version: src.Revision()}, nil)
			wg.Go(func() {
				for {
					m, ok := w.Next()
					if !ok {
						return
					}
					m.Encoded(enc)
					got()
				}
			})
		}
		return func() { src.Put() }, func() { b.Close(); wg.Wait() }
	}},
	{"k8s", func(n int, got func()) (func(), func()) {
		b := k8swatch.NewBroadcaster(100, k8swatch.WaitIfChannelFull)
		o := &object{}
		var wg sync.WaitGroup
		for range n {
			w, err := b.Watch()
			if err != nil {
				panic(err)
			}
			wg.Go(func() {
				for range w.ResultChan() {
					got()
				}
			})
		}
		return func() { b.Action(k8swatch.Modified, o) }, func() { b.Shutdown(); wg.Wait() }
	}},
}

// BenchmarkDeliver: one op is one event delivered to one watcher; the
// writer writes b.N/n events flat out, at most 64 ahead of the slowest
// watcher.
func BenchmarkDeliver(b *testing.B) {
	for _, n := range sizes {
		for _, im := range impls {
			b.Run(fmt.Sprintf("%s/watchers=%d", im.name, n), func(b *testing.B) {
				writes := int64(max(1, b.N/n))
				var delivered atomic.Int64
				put, stop := im.start(n, func() { delivered.Add(1) })
				defer stop()
				time.Sleep(10 * time.Millisecond)
				b.ReportAllocs()
				b.ResetTimer()
				start, cpu0 := time.Now(), cpuTime()
				for i := int64(1); i <= writes; i++ {
					for (i-64)*int64(n) > delivered.Load() {
						runtime.Gosched()
					}
					put()
				}
				for delivered.Load() < writes*int64(n) {
					runtime.Gosched()
				}
				elapsed, cpu := time.Since(start), cpuTime()-cpu0
				b.StopTimer()
				total := float64(writes * int64(n))
				b.ReportMetric(total/elapsed.Seconds(), "delivered/s")
				b.ReportMetric(float64(elapsed.Nanoseconds())/total, "ns/delivered")
				b.ReportMetric(float64(cpu.Nanoseconds())/total, "cpu-ns/delivered")
			})
		}
	}
}

// BenchmarkLatency: one op is one write; ns/op is the time until the last
// of n idle watchers has it.
func BenchmarkLatency(b *testing.B) {
	for _, n := range sizes {
		for _, im := range impls {
			b.Run(fmt.Sprintf("%s/watchers=%d", im.name, n), func(b *testing.B) {
				var remaining atomic.Int64
				last := make(chan struct{}, 1)
				put, stop := im.start(n, func() {
					if remaining.Add(-1) == 0 {
						last <- struct{}{}
					}
				})
				defer stop()
				time.Sleep(10 * time.Millisecond)
				lat := make([]time.Duration, 0, b.N)
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				for range b.N {
					remaining.Store(int64(n))
					start := time.Now()
					put()
					<-last
					lat = append(lat, time.Since(start))
				}
				cpu := cpuTime() - cpu0
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
