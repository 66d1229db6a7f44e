package demo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/metrics"
)

// BenchmarkHTTPCreateWriters is httpbench's create phase against the
// example server's configuration (metrics recorded, garbage collector
// running): eight writers POST ConfigMaps of 256 bytes of data and a
// label as JSON over keep-alive loopback connections and read the JSON
// 201. ns/op is the wall time per create of all eight; cpu-µs/op is the
// process's CPU per create, clients and server, garbage collection
// included; allocs/op and B/op count both sides too. The server is a
// fresh one, as httpbench's namespace is.
func BenchmarkHTTPCreateWriters(b *testing.B) {
	const writers = 8
	rec := &metrics.Recorder{}
	opts := Options{GarbageCollection: true}
	opts.Hooks.Metrics = rec
	s, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	rec.Source = s
	hs := httptest.NewServer(s)
	tr := &http.Transport{MaxIdleConnsPerHost: writers}
	defer func() {
		tr.CloseIdleConnections()
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	}()
	ns := &api.Namespace{}
	ns.Meta().Name = "hb"
	if _, err := s.Create(context.Background(), ns); err != nil {
		b.Fatal(err)
	}
	createWriters(b, tr, hs.URL+"/api/v1/namespaces/hb/configmaps", writers)
}

// createWriters runs httpbench's create phase for b: writers clients POST
// new ConfigMaps of 256 bytes of data and a label to coll over tr, and
// read each 201. It reports allocations and the process's CPU per create
// (cpu-ns/op).
func createWriters(b *testing.B, tr *http.Transport, coll string, writers int) {
	client := &http.Client{Transport: tr}
	data := strings.Repeat("x", 256)
	var n atomic.Int64
	b.SetParallelism((writers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	cpu := cputime.Process()
	b.RunParallel(func(pb *testing.PB) {
		var body bytes.Buffer
		for pb.Next() {
			i := n.Add(1)
			body.Reset()
			fmt.Fprintf(&body, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%06d","labels":{"app":"a%d"}},"data":{"k":%q}}`, i, i%10, data)
			req, err := http.NewRequest("POST", coll, bytes.NewReader(body.Bytes()))
			if err != nil {
				b.Error(err)
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				b.Errorf("POST: %s", resp.Status)
				return
			}
		}
	})
	b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
