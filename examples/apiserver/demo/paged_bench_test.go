package demo

import (
	"bytes"
	"testing"
	"time"

	"github.com/apisem/apisem/internal/cputime"
)

// BenchmarkHTTPPagedWalkRatio walks the collection in 20 pages of 500
// and lists it whole, one after the other in each op, and reports the
// process's CPU time of each (client and server: the client's gunzip and
// reads are the same bytes in both) and walk/list, the cost of paging:
// what each page repeats (a request, a token, a snapshot lookup, a
// response's encoder and compressor). CPU time, unlike the wall time of
// 20 round trips, is not inflated by a loaded machine's scheduling.
func BenchmarkHTTPPagedWalkRatio(b *testing.B) {
	f := benchServer(b)
	var buf bytes.Buffer
	f.walk(b, "application/json", &buf) // warm the encode-once caches
	var walkCPU, listCPU time.Duration
	b.ReportAllocs()
	for b.Loop() {
		c0 := cputime.Process()
		if n := f.walk(b, "application/json", &buf); n != benchNObjects/500 {
			b.Fatalf("walked %d pages, want %d", n, benchNObjects/500)
		}
		c1 := cputime.Process()
		f.get(b, benchColl, "application/json", &buf)
		c2 := cputime.Process()
		walkCPU += c1 - c0
		listCPU += c2 - c1
	}
	b.ReportMetric(float64(walkCPU.Microseconds())/float64(b.N)/1e3, "walk-cpu-ms/op")
	b.ReportMetric(float64(listCPU.Microseconds())/float64(b.N)/1e3, "list-cpu-ms/op")
	b.ReportMetric(float64(walkCPU)/float64(listCPU), "walk/list")
}
