package serverstore_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apisem/apisem/internal/cputime"
)

// BenchmarkServerCreate measures a ConfigMap POST through the example
// server on etcd, handler to etcd and back (no network): decoding,
// admission (the namespace read, consistent), the etcd transaction and
// the encoding of the reply; from one writer and from 8, as httpbench
// drives a server.
func BenchmarkServerCreate(b *testing.B) {
	_, c := newEtcd(b)
	s := newDemo(b, c)
	if r := serve(s, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`); r != 201 {
		b.Fatalf("namespace: %d", r)
	}
	data := strings.Repeat("x", 256)
	var next atomic.Int64
	create := func(b *testing.B) {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%d","labels":{"app":"a"}},"data":{"k":%q}}`, next.Add(1), data)
		if code := serve(s, "POST", cms, body); code != 201 {
			b.Errorf("create: %d", code)
		}
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cputime.Process()
		for b.Loop() {
			create(b)
		}
		reportCPU(b, cpu)
	})
	b.Run("8-writers", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(4) // 4 per core: 8 writers on 2 cores
		cpu := cputime.Process()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				create(b)
			}
		})
		reportCPU(b, cpu)
	})
}

// reportCPU reports the process's CPU time since cpu per operation.
func reportCPU(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

// serve sends one request to h and returns its code.
func serve(h http.Handler, method, path, body string) int {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Code
}
