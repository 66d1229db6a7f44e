package watch_test

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
)

// cpuTime returns the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// nopEncoder stands for a media type's encoder.
type nopEncoder struct{}

func (*nopEncoder) AppendEvent(dst []byte, typ watch.EventType, o *obj) ([]byte, error) {
	return append(dst, typ...), nil
}

// counter is a per-watcher progress counter on its own cache line.
type counter struct {
	n atomic.Int64
	_ [56]byte
}

var benchSizes = []int{1, 100, 1000, 10000}

// BenchmarkDeliver measures delivery throughput: one op is one event
// delivered to one watcher and encoded (the encoding is shared). The writer
// runs flat out, held back only to stay within the window of the slowest
// watcher. ns/op is the cost per delivered event, allocs/op the allocations
// per delivered event.
func BenchmarkDeliver(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("watchers=%d", n), func(b *testing.B) {
			src := watchtest.NewRing(watchtest.NewObject("a", "1"), 1<<14)
			br := watch.NewBroadcaster[*obj](src, watchtest.Funcs(), watch.Options{})
			defer br.Close()
			writes := int64(max(1, b.N/n))
			enc := &nopEncoder{}
			progress := make([]counter, n)
			var wg sync.WaitGroup
			for i := range n {
				w := br.Watch(context.Background(), rv.Watch{Start: rv.StartExact, Version: src.Revision()}, nil)
				wg.Go(func() {
					defer w.Stop()
					for {
						m, ok := w.Next()
						if !ok {
							b.Error("stream ended")
							return
						}
						if _, err := m.Encoded(enc); err != nil {
							b.Error(err)
						}
						r := int64(m.Revision())
						progress[i].n.Store(r)
						if r == writes {
							return
						}
					}
				})
			}
			// Let every consumer block in Next before timing.
			time.Sleep(10 * time.Millisecond)
			const ahead = 512 // at most this many events ahead of the slowest watcher
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			cpu0 := cpuTime()
			slowest := int64(0)
			for i := int64(1); i <= writes; i++ {
				for i-slowest > ahead {
					slowest = writes
					for j := range progress {
						slowest = min(slowest, progress[j].n.Load())
					}
					if i-slowest > ahead {
						runtime.Gosched()
					}
				}
				src.Put()
			}
			wg.Wait()
			elapsed := time.Since(start)
			cpu := cpuTime() - cpu0
			b.StopTimer()
			delivered := float64(writes) * float64(n)
			b.ReportMetric(float64(cpu.Nanoseconds())/delivered, "cpu-ns/delivered")
			b.ReportMetric(delivered/elapsed.Seconds(), "delivered/s")
			b.ReportMetric(float64(elapsed.Nanoseconds())/delivered, "ns/delivered")
			if s := br.Stats(); s.Expired != 0 {
				b.Errorf("%d watchers expired", s.Expired)
			}
		})
	}
}

// BenchmarkLatency measures the time from a write to its delivery to the
// last of n idle watchers. One op is one write; ns/op is the mean latency,
// p50 and p99 are reported too.
func BenchmarkLatency(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("watchers=%d", n), func(b *testing.B) {
			src := watchtest.NewRing(watchtest.NewObject("a", "1"), 1<<14)
			br := watch.NewBroadcaster[*obj](src, watchtest.Funcs(), watch.Options{})
			defer br.Close()
			enc := &nopEncoder{}
			var remaining atomic.Int64
			last := make(chan struct{}, 1)
			var wg sync.WaitGroup
			for range n {
				w := br.Watch(context.Background(), rv.Watch{Start: rv.StartExact, Version: src.Revision()}, nil)
				wg.Go(func() {
					for {
						m, ok := w.Next()
						if !ok {
							return
						}
						m.Encoded(enc)
						if remaining.Add(-1) == 0 {
							last <- struct{}{}
						}
					}
				})
			}
			time.Sleep(10 * time.Millisecond)
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				remaining.Store(int64(n))
				start := time.Now()
				src.Put()
				<-last
				lat = append(lat, time.Since(start))
			}
			cpu := cpuTime() - cpu0
			b.StopTimer()
			br.Close()
			wg.Wait()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
			// CPU time per write, all goroutines together: on a shared,
			// loaded machine the wall-clock latency mostly measures the
			// wait for a CPU.
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkLatencyFloor is the reference for BenchmarkLatency: the same
// measurement for a bare fan-out over one buffered channel per watcher, with
// no history, filters, bookmarks or encoding. It is the least any design
// with a goroutine per stream can cost.
func BenchmarkLatencyFloor(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("watchers=%d", n), func(b *testing.B) {
			chans := make([]chan int, n)
			var remaining atomic.Int64
			last := make(chan struct{}, 1)
			var wg sync.WaitGroup
			for i := range chans {
				ch := make(chan int, 100)
				chans[i] = ch
				wg.Go(func() {
					for range ch {
						if remaining.Add(-1) == 0 {
							last <- struct{}{}
						}
					}
				})
			}
			time.Sleep(10 * time.Millisecond)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			lat := make([]time.Duration, 0, b.N)
			for i := range b.N {
				remaining.Store(int64(n))
				start := time.Now()
				for _, ch := range chans {
					ch <- i
				}
				<-last
				lat = append(lat, time.Since(start))
			}
			cpu := cpuTime() - cpu0
			b.StopTimer()
			for _, ch := range chans {
				close(ch)
			}
			wg.Wait()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
