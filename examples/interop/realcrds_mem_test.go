package interop

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/crd/cel"
	"github.com/apisem/apisem/examples/apiserver/demo"
)

// BenchmarkRealCRDsMemory reports what a server with the 43 real
// definitions installed and Established, and no objects, holds:
// live-MB, the live heap after collection above that of the process
// before the server (the definitions read from disk are held by both);
// heap-inuse-MB, the spans that live heap occupies; and rss-MB, the
// process's resident set once the runtime has returned free memory to
// the OS, and rss-added-MB, what it grew by from before the server (the
// test binary, with client-go and kubectl's dependencies, is large and
// its own); rss-added-held-MB is that growth before the runtime returns
// free memory (as a process reads between its scavenger's passes). RSS is the live heap, the heap's slack up to GOGC's goal while
// it runs, the binary's text and data, and goroutine stacks; only the
// first is the server's alone, so compare live-MB across changes and
// read rss-MB against the 100 MB goal of a process that serves them.
func BenchmarkRealCRDsMemory(b *testing.B) {
	defs := realCRDs(b)
	for _, bc := range []struct {
		name string
		opts crd.Options
	}{
		{"no-rules", crd.Options{}},
		// Rules are compiled on the first write of a version's objects,
		// as kube-apiserver compiles them: none here.
		{"rules", crd.Options{Rules: cel.Compiler{}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				before := liveHeap()
				debug.FreeOSMemory()
				rss0 := residentBytes()
				s, err := demo.NewWith(demo.Options{}, bc.opts)
				if err != nil {
					b.Fatal(err)
				}
				if failed := installReal(b, s, defs); len(failed) > 0 {
					b.Fatal(failed)
				}
				after := liveHeap()
				if path := os.Getenv("APISEM_HEAP_PROFILE"); path != "" {
					writeHeapProfile(b, path) // what the live server holds, by allocation site
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(residentBytes()-rss0)/1e6, "rss-added-held-MB")
				debug.FreeOSMemory()
				b.ReportMetric(float64(after-before)/1e6, "live-MB")
				b.ReportMetric(float64(ms.HeapInuse)/1e6, "heap-inuse-MB")
				rss := residentBytes()
				b.ReportMetric(float64(rss)/1e6, "rss-MB")
				b.ReportMetric(float64(rss-rss0)/1e6, "rss-added-MB")
				runtime.KeepAlive(s)
				_ = s.Shutdown(context.Background())
			}
		})
	}
}

// writeHeapProfile writes the heap profile of the last collection to
// path (run with -test.memprofilerate=4096 or so for sites' detail).
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

// liveHeap returns the bytes of live heap objects after collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// residentBytes is the process's resident set (VmRSS), 0 where
// /proc is not there.
func residentBytes() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
