package server_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// BenchmarkCreateHTTP is httpbench's create phase in the repo: eight
// writers POST new gizmos with a label over HTTP on loopback, keep-alive
// connections, each create with its managedFields entry. ns/op is the wall
// time per create of all eight (1e9/ns/op creates per second);
// cpu-µs/op is the process's CPU per create, server and clients, garbage
// collection included; allocs/op counts both sides too.
func BenchmarkCreateHTTP(b *testing.B) {
	_, base := servertest.New(b, server.Options{Resources: []*server.Resource{gizmos}})
	coll := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	tr := &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var n atomic.Int64
	b.SetParallelism(4) // 8 writers on 2 CPUs; more on larger machines
	b.ReportAllocs()
	cpu := cputime.Process()
	b.RunParallel(func(pb *testing.PB) {
		var body strings.Builder
		for pb.Next() {
			body.Reset()
			body.WriteString(`{"metadata":{"name":"g-`)
			body.WriteString(strconv.FormatInt(n.Add(1), 10))
			body.WriteString(`","labels":{"app":"a1"}},"spec":{"color":"red"}}`)
			req, err := http.NewRequest("POST", coll, strings.NewReader(body.String()))
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
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkCreateOnUpdateHTTP compares a create by PUT of a missing
// object (Resource.CreateOnUpdate: an update that finds nothing, then the
// create path) with a POST of the same object, one client over loopback;
// cpu-µs/op is the process's CPU per create, both sides.
func BenchmarkCreateOnUpdateHTTP(b *testing.B) {
	creating := *gizmos
	creating.CreateOnUpdate = true
	_, base := servertest.New(b, server.Options{Resources: []*server.Resource{&creating}})
	coll := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	var n int
	for _, method := range []string{"POST", "PUT"} {
		b.Run(method, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				n++
				name := "g-" + strconv.Itoa(n)
				url := coll
				if method == "PUT" {
					url += "/" + name
				}
				req, err := http.NewRequest(method, url, strings.NewReader(`{"metadata":{"name":"`+name+`","labels":{"app":"a1"}},"spec":{"color":"red"}}`))
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					b.Fatalf("%s: %s", method, resp.Status)
				}
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
	client.CloseIdleConnections()
}
