package demo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/internal/cputime"
)

// BenchmarkHTTPVerb is one request of each verb over loopback HTTP, JSON
// both ways, on a ConfigMap of 256 bytes of data and a label (as the seeded
// ones) in a namespace of its own run, so that the verbs compare with one
// another and across versions of the server: it uses only the HTTP API and
// Server.Create, which every version has.
//
//	get     GET of one object
//	list    LIST of a collection of 100
//	watch   a watch opened from resourceVersion 0 on one object by name,
//	        read until its ADDED event, then closed
//	create  POST of a new object
//	update  PUT changing one value
//	patch   merge patch changing one value
//	apply   server-side apply changing one value
//	delete  DELETE of an object stored beforehand (Server.Create, untimed)
//
// cpu-ns/op is the process's CPU time per request, client and garbage
// collection included: on a loaded machine it varies less than the wall
// time, which says as much of the neighbours as of the server.
func BenchmarkHTTPVerb(b *testing.B) {
	f := benchServer(b)
	ctx := context.Background()
	ns := fmt.Sprintf("%s-verb-%d", benchNS, rand.Int())
	o := &api.Namespace{}
	o.Meta().Name = ns
	if _, err := f.s.Create(ctx, o); err != nil {
		b.Fatal(err)
	}
	coll := "/api/v1/namespaces/" + ns + "/configmaps"
	data := strings.Repeat("x", 256)
	seed := func(name string) {
		o := &api.ConfigMap{Data: map[string]string{"k": data}}
		m := o.Meta()
		m.Namespace, m.Name = ns, name
		m.Labels = map[string]string{"app": "a1"}
		if _, err := f.s.Create(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 100 {
		seed(fmt.Sprintf("cm-%03d", i))
	}
	var buf bytes.Buffer
	// obj is the JSON of object name with data k=v.
	obj := func(name, v string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","labels":{"app":"a1"}},"data":{"k":"` + data + `","v":"` + v + `"}}`
	}
	postJSON(b, f, "POST", coll, "application/json", obj("target", "0"), http.StatusCreated, &buf)

	b.Run("get", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			f.get(b, coll+"/cm-042", "application/json", &buf)
		}
	})
	b.Run("list", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			f.get(b, coll, "application/json", &buf)
		}
	})
	b.Run("watch", func(b *testing.B) {
		q := coll + "?watch=1&resourceVersion=0&fieldSelector=" + url.QueryEscape("metadata.name=cm-042")
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			wctx, cancel := context.WithCancel(ctx)
			req, _ := http.NewRequestWithContext(wctx, "GET", f.base+q, nil)
			req.Header.Set("Accept", "application/json")
			resp, err := f.client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			line, err := bufio.NewReader(resp.Body).ReadSlice('\n')
			if err != nil || !bytes.Contains(line, []byte(`"ADDED"`)) {
				b.Fatalf("watch: %d %q %v", resp.StatusCode, line, err)
			}
			cancel()
			resp.Body.Close()
		}
	})
	b.Run("create", func(b *testing.B) {
		i := 0
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			i++
			postJSON(b, f, "POST", coll, "application/json", obj(fmt.Sprint("new-", i), "0"), http.StatusCreated, &buf)
		}
	})
	b.Run("update", func(b *testing.B) {
		i := 0
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			i++
			postJSON(b, f, "PUT", coll+"/target", "application/json", obj("target", fmt.Sprint("u", i)), http.StatusOK, &buf)
		}
	})
	b.Run("patch", func(b *testing.B) {
		i := 0
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			i++
			postJSON(b, f, "PATCH", coll+"/target", "application/merge-patch+json", `{"data":{"v":"p`+fmt.Sprint(i)+`"}}`, http.StatusOK, &buf)
		}
	})
	b.Run("apply", func(b *testing.B) {
		path := coll + "/target?fieldManager=bench&force=true"
		i := 0
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			i++
			postJSON(b, f, "PATCH", path, "application/apply-patch+yaml", obj("target", fmt.Sprint("a", i)), http.StatusOK, &buf)
		}
	})
	run := 0
	b.Run("delete", func(b *testing.B) {
		run++
		names := make([]string, b.N)
		for i := range names {
			names[i] = fmt.Sprintf("del-%d-%d", run, i)
			seed(names[i])
		}
		b.ReportAllocs()
		b.ResetTimer()
		defer reportCPU(b, cputime.Process())
		for i := 0; i < b.N; i++ {
			postJSON(b, f, "DELETE", coll+"/"+names[i], "application/json", "", http.StatusOK, &buf)
		}
	})
}

// reportCPU reports the process's CPU time per op since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
}
