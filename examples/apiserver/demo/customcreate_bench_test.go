package demo

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/internal/cputime"
)

// BenchmarkCustomCreate creates a ConfigMap and a custom resource of the
// same JSON (a data member of 256 bytes; the Gadget of gadgetDefinition
// is shaped as a ConfigMap) by POST to the handler, one after the other
// in each op of pair, and reports each one's CPU time and
// custom/configmap: what a custom resource's write costs over a
// built-in's (its schema's defaults, pruning and validation, an
// unstructured object's decoding and encoding). configmap and custom
// create one kind each, for their allocations.
func BenchmarkCustomCreate(b *testing.B) {
	s, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	defs, err := crd.Parse([]byte(gadgetDefinition))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard
	defer cancel()
	if err := s.CustomResourceDefinitions().Install(ctx, defs...); err != nil {
		b.Fatal(err)
	}
	post := func(path, body string) *discard {
		r := httptest.NewRequest("POST", path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json")
		w := &discard{h: http.Header{}}
		s.ServeHTTP(w, r)
		if w.code != http.StatusCreated {
			b.Fatalf("POST %s: %d", path, w.code)
		}
		return w
	}
	post("/api/v1/namespaces", `{"metadata":{"name":"bench"}}`)
	data := strings.Repeat("x", 256)
	cms, gadgets := "/api/v1/namespaces/bench/configmaps", "/apis/bench.example.com/v1/namespaces/bench/gadgets"
	body := func(head string, i int) string {
		return fmt.Sprintf(`{%s,"metadata":{"name":"o-%07d","labels":{"app":"a%d"}},"data":{"k":%q}}`, head, i, i%10, data)
	}
	i := 0
	for _, c := range []struct{ name, path, head string }{
		{"configmap", cms, `"apiVersion":"v1","kind":"ConfigMap"`},
		{"custom", gadgets, `"apiVersion":"bench.example.com/v1","kind":"Gadget"`},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			start := cputime.Process()
			for b.Loop() {
				i++
				post(c.path, body(c.head, i))
			}
			b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
		})
	}
	b.Run("pair", func(b *testing.B) {
		var cmCPU, gadgetCPU time.Duration
		b.ReportAllocs()
		for b.Loop() {
			i++
			cm, gadget := body(`"apiVersion":"v1","kind":"ConfigMap"`, i), body(`"apiVersion":"bench.example.com/v1","kind":"Gadget"`, i)
			c0 := cputime.Process()
			post(cms, cm)
			c1 := cputime.Process()
			post(gadgets, gadget)
			c2 := cputime.Process()
			cmCPU += c1 - c0
			gadgetCPU += c2 - c1
		}
		b.ReportMetric(float64(cmCPU)/float64(b.N), "configmap-cpu-ns/op")
		b.ReportMetric(float64(gadgetCPU)/float64(b.N), "custom-cpu-ns/op")
		b.ReportMetric(float64(gadgetCPU)/float64(cmCPU), "custom/configmap")
	})
}
