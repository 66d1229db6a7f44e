package demo

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/internal/cputime"
)

// The costs managedFields add: an apply, an update with and without
// tracking, and a LIST of 10,000 ConfigMaps created with and without it.
// Requests go to the handler in process, so the numbers are the server's
// own work.

// serve sends one request to s and fails unless it answers want.
func serve(b *testing.B, s http.Handler, want int, method, path, ct, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("User-Agent", "bench/v1")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != want {
		b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
	}
	return w
}

// benchData is ConfigMap data of ten keys of 24 bytes, with key k0 set to
// v.
func benchData(v string) map[string]string {
	d := map[string]string{}
	for i := range 10 {
		d[fmt.Sprint("k", i)] = strings.Repeat("x", 24)
	}
	d["k0"] = v
	return d
}

func yamlConfigMap(name string, data map[string]string) string {
	var sb strings.Builder
	sb.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  labels:\n    app: bench\ndata:\n")
	for i := range 10 {
		k := fmt.Sprint("k", i)
		sb.WriteString("  " + k + ": " + data[k] + "\n")
	}
	return sb.String()
}

func newBenchDemo(b *testing.B) *Server {
	s, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Shutdown(context.Background()) })
	ns := &api.Namespace{}
	ns.Meta().Name = benchNS
	if _, err := s.Create(context.Background(), ns); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkApply is server-side apply of a ten-key ConfigMap: changing
// one value each time, and applying the same configuration again.
func BenchmarkApply(b *testing.B) {
	path := "/api/v1/namespaces/" + benchNS + "/configmaps/app?fieldManager=bench"
	for _, tt := range []struct {
		name   string
		change bool
	}{{"change", true}, {"same", false}} {
		b.Run(tt.name, func(b *testing.B) {
			s := newBenchDemo(b)
			serve(b, s, 201, "PATCH", path, "application/apply-patch+yaml", yamlConfigMap("app", benchData("a")))
			bodies := []string{yamlConfigMap("app", benchData("a")), yamlConfigMap("app", benchData("b"))}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if tt.change {
					i++
				}
				serve(b, s, 200, "PATCH", path, "application/apply-patch+yaml", bodies[i%2])
			}
		})
	}
}

// BenchmarkUpdate is a PUT changing one value of a ten-key ConfigMap,
// with managedFields (the object was created over HTTP) and without (it
// was seeded with Server.Create, and an object without entries stays so).
func BenchmarkUpdate(b *testing.B) {
	coll := "/api/v1/namespaces/" + benchNS + "/configmaps"
	for _, tracked := range []bool{true, false} {
		name := "untracked"
		if tracked {
			name = "tracked"
		}
		b.Run(name, func(b *testing.B) {
			s := newBenchDemo(b)
			body := func(v string) string {
				d := benchData(v)
				var sb strings.Builder
				sb.WriteString(`{"metadata":{"name":"app","labels":{"app":"bench"}},"data":{`)
				for i := range 10 {
					k := fmt.Sprint("k", i)
					if i > 0 {
						sb.WriteByte(',')
					}
					sb.WriteString(`"` + k + `":"` + d[k] + `"`)
				}
				sb.WriteString("}}")
				return sb.String()
			}
			if tracked {
				serve(b, s, 201, "POST", coll, "application/json", body("a"))
			} else {
				cm := &api.ConfigMap{Data: benchData("a")}
				cm.Name, cm.Namespace, cm.Labels = "app", benchNS, map[string]string{"app": "bench"}
				if _, err := s.Create(context.Background(), cm); err != nil {
					b.Fatal(err)
				}
			}
			bodies := []string{body("a"), body("b")}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				serve(b, s, 200, "PUT", coll+"/app", "application/json", bodies[i%2])
			}
		})
	}
}

// BenchmarkListManagedFields is a JSON LIST of 10,000 ConfigMaps of 256
// bytes of data, created over HTTP (each with its managedFields entry)
// and seeded without; list-bytes is the size of the list.
func BenchmarkListManagedFields(b *testing.B) {
	coll := "/api/v1/namespaces/" + benchNS + "/configmaps"
	data := strings.Repeat("x", 256)
	for _, tracked := range []bool{true, false} {
		name := "untracked"
		if tracked {
			name = "tracked"
		}
		b.Run(name, func(b *testing.B) {
			s := newBenchDemo(b)
			for i := range benchNObjects {
				name := fmt.Sprintf("cm-%06d", i)
				if tracked {
					serve(b, s, 201, "POST", coll, "application/json",
						`{"metadata":{"name":"`+name+`","labels":{"app":"a`+fmt.Sprint(i%10)+`"}},"data":{"k":"`+data+`"}}`)
					continue
				}
				cm := &api.ConfigMap{Data: map[string]string{"k": data}}
				cm.Name, cm.Namespace, cm.Labels = name, benchNS, map[string]string{"app": fmt.Sprint("a", i%10)}
				if _, err := s.Create(context.Background(), cm); err != nil {
					b.Fatal(err)
				}
			}
			size := serve(b, s, 200, "GET", coll, "", "").Body.Len()
			b.ReportAllocs()
			for b.Loop() {
				serve(b, s, 200, "GET", coll, "", "")
			}
			b.ReportMetric(float64(size), "list-bytes")
		})
	}
}

// BenchmarkCreate is a POST of a new ConfigMap of 256 bytes of data and a
// label (httpbench's), with its managedFields entry: by one writer, and by
// eight at once (ns/op is then the wall time per create of all eight, so
// 1e9/ns/op is creates per second). cpu-ns/op is the process's CPU time
// per create, garbage collection included: on a shared machine, wall
// time says more of the neighbours than of the server.
func BenchmarkCreate(b *testing.B) {
	coll := "/api/v1/namespaces/" + benchNS + "/configmaps"
	data := strings.Repeat("x", 256)
	body := func(i int64) string {
		return `{"metadata":{"name":"cm-` + strconv.FormatInt(i, 10) + `","labels":{"app":"a1"}},"data":{"k":"` + data + `"}}`
	}
	b.Run("writers=1", func(b *testing.B) {
		s := newBenchDemo(b)
		b.ReportAllocs()
		var i int64
		start := cputime.Process()
		for b.Loop() {
			i++
			serve(b, s, 201, "POST", coll, "application/json", body(i))
		}
		b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
	})
	b.Run("writers=8", func(b *testing.B) {
		s := newBenchDemo(b)
		var n atomic.Int64
		b.ReportAllocs()
		b.SetParallelism((8 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		start := cputime.Process()
		defer func() { b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op") }()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req := httptest.NewRequest("POST", coll, strings.NewReader(body(n.Add(1))))
				req.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				s.ServeHTTP(w, req)
				if w.Code != 201 {
					b.Errorf("POST: %d %s", w.Code, w.Body) // not Fatal: another goroutine
					return
				}
			}
		})
	})
}
