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

// gadgetDefinition is a custom resource shaped as a ConfigMap: a data
// member of strings.
const gadgetDefinition = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.bench.example.com
spec:
  group: bench.example.com
  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          data:
            type: object
            additionalProperties: {type: string}
`

// discard is a ResponseWriter that counts and drops the body.
type discard struct {
	h    http.Header
	code int
	n    int
}

func (w *discard) Header() http.Header         { return w.h }
func (w *discard) WriteHeader(code int)        { w.code = code }
func (w *discard) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// BenchmarkCustomList lists 10,000 custom resources and 10,000 ConfigMaps
// of the same JSON (256 bytes of data, managedFields, both created by
// POST) from the handler, uncompressed and gzipped, one after the other
// in each op, and reports each one's CPU time and custom/configmap: what
// serving an unstructured object costs over a typed one, and the ratio
// of their bodies' sizes (custom/configmap-bytes, compressed or not).
func BenchmarkCustomList(b *testing.B) {
	const n = 10000
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
	serveEncoded := func(method, path, body, encoding string) *discard {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		if encoding != "" {
			r.Header.Set("Accept-Encoding", encoding)
		}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json")
		w := &discard{h: http.Header{}}
		s.ServeHTTP(w, r)
		return w
	}
	serve := func(method, path, body string) *discard { return serveEncoded(method, path, body, "") }
	if w := serve("POST", "/api/v1/namespaces", `{"metadata":{"name":"bench"}}`); w.code != http.StatusCreated {
		b.Fatalf("namespace: %d", w.code)
	}
	data := strings.Repeat("x", 256)
	cms, gadgets := "/api/v1/namespaces/bench/configmaps", "/apis/bench.example.com/v1/namespaces/bench/gadgets"
	for i := range n {
		for _, c := range []struct{ path, head string }{
			{cms, `"apiVersion":"v1","kind":"ConfigMap"`},
			{gadgets, `"apiVersion":"bench.example.com/v1","kind":"Gadget"`},
		} {
			body := fmt.Sprintf(`{%s,"metadata":{"name":"o-%06d","labels":{"app":"a%d"}},"data":{"k":%q}}`, c.head, i, i%10, data)
			if w := serve("POST", c.path, body); w.code != http.StatusCreated {
				b.Fatalf("POST %s: %d", c.path, w.code)
			}
		}
	}
	for _, encoding := range []string{"identity", "gzip"} {
		b.Run(encoding, func(b *testing.B) { benchCustomList(b, serveEncoded, cms, gadgets, encoding) })
	}
}

func benchCustomList(b *testing.B, serve func(method, path, body, encoding string) *discard, cms, gadgets, encoding string) {
	cm, gadget := serve("GET", cms, "", encoding), serve("GET", gadgets, "", encoding) // and warm the caches
	for _, w := range []*discard{cm, gadget} {
		if got := w.h.Get("Content-Encoding"); w.code != http.StatusOK || got != strings.TrimPrefix(encoding, "identity") {
			b.Fatalf("list: %d, Content-Encoding %q; want 200, %q", w.code, got, encoding)
		}
	}
	cmBytes, gadgetBytes := cm.n, gadget.n
	var cmCPU, gadgetCPU time.Duration
	b.ReportAllocs()
	for b.Loop() {
		c0 := cputime.Process()
		serve("GET", cms, "", encoding)
		c1 := cputime.Process()
		if w := serve("GET", gadgets, "", encoding); w.code != http.StatusOK {
			b.Fatalf("list: %d", w.code)
		}
		c2 := cputime.Process()
		cmCPU += c1 - c0
		gadgetCPU += c2 - c1
	}
	b.ReportMetric(float64(cmCPU.Microseconds())/float64(b.N)/1e3, "configmap-cpu-ms/op")
	b.ReportMetric(float64(gadgetCPU.Microseconds())/float64(b.N)/1e3, "custom-cpu-ms/op")
	b.ReportMetric(float64(gadgetCPU)/float64(cmCPU), "custom/configmap")
	b.ReportMetric(float64(gadgetBytes)/float64(cmBytes), "custom/configmap-bytes")
}
