package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/store"
)

// heapWriter is a ResponseWriter that discards the body and samples the
// live heap (after a collection) every MiB written and at the first
// write, so that a body held whole in memory shows, as do the buffers of
// a streamed one.
type heapWriter struct {
	h            http.Header
	code         int
	n, next      int
	base, peak   int64
	stats        runtime.MemStats
	samples      int
	largestWrite int
}

func (w *heapWriter) Header() http.Header { return w.h }
func (w *heapWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *heapWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	w.largestWrite = max(w.largestWrite, len(p))
	if w.n >= w.next {
		w.sample()
		w.next = w.n + 1<<20
	}
	return len(p), nil
}

func (w *heapWriter) sample() {
	runtime.GC()
	runtime.ReadMemStats(&w.stats)
	w.peak = max(w.peak, int64(w.stats.HeapAlloc)-w.base)
	w.samples++
}

// serveMeasured serves r and returns the bytes written and the peak of
// the live heap above what it was before, in bytes.
func serveMeasured(s *Server, r *http.Request) (w *heapWriter) {
	w = &heapWriter{h: http.Header{}}
	runtime.GC()
	runtime.ReadMemStats(&w.stats)
	w.base = int64(w.stats.HeapAlloc)
	s.ServeHTTP(w, r)
	return w
}

// TestListMemory lists 128 objects of 32 KiB (4 MiB of JSON) in every
// form a client may ask for and checks that the response holds a small
// multiple of the largest item, not the list: the items are written one
// at a time from the cached encodings or converted one at a time.
func TestListMemory(t *testing.T) {
	const (
		n        = 128
		itemSize = 32 << 10 // half in an annotation, which Tables and PartialObjectMetadata carry
	)
	res := gizmoResource(t)
	s, err := New(Options{Resources: []*Resource{res}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	// Words, so that YAML folds the long strings as it would real text.
	data := strings.Repeat("lorem ipsum dolor sit amet ", itemSize/2/27)
	for i := range n {
		u := &Unstructured{
			ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("g%03d", i), Namespace: "ns",
				Annotations: map[string]string{"note": data}},
			Content: map[string]any{"spec": map[string]any{"color": "red", "size": int64(i), "data": data}},
		}
		if _, err := s.StoreOf(res).Create(context.Background(), u, store.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io"
	const partial = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
	tests := []struct {
		name, accept, encoding, query string
	}{
		{"JSON", "application/json", "", ""},
		{"JSON gzip", "application/json", "gzip", ""},
		{"pretty JSON", "application/json", "", "?pretty=true"},
		{"YAML", "application/yaml", "", ""},
		{"YAML gzip", "application/yaml", "gzip", ""},
		{"Table", table, "", ""},
		{"Table with objects", table, "", "?includeObject=Object"},
		{"Table YAML", "application/yaml;as=Table;v=v1;g=meta.k8s.io", "", ""},
		{"PartialObjectMetadataList", partial, "", ""},
	}
	// The first lists fill the per-version caches of the items and their
	// metadata, which belong to the store, not to a request.
	for _, accept := range []string{"application/json", table} {
		r := httptest.NewRequest("GET", "/apis/demo.io/v1/gizmos", nil)
		r.Header.Set("Accept", accept)
		if w := serveMeasured(s, r); w.code != http.StatusOK {
			t.Fatalf("status %d", w.code)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := func() *http.Request {
				r := httptest.NewRequest("GET", "/apis/demo.io/v1/gizmos"+tt.query, nil)
				r.Header.Set("Accept", tt.accept)
				if tt.encoding != "" {
					r.Header.Set("Accept-Encoding", tt.encoding)
				}
				return r
			}
			w := serveMeasured(s, req())
			if w.code != http.StatusOK {
				t.Fatalf("status %d", w.code)
			}
			t.Logf("%d bytes written; live heap peak +%d bytes (%.2f× the body, %.1f× an item)",
				w.n, w.peak, float64(w.peak)/float64(w.n), float64(w.peak)/itemSize)
			// Generous: a few items, the write buffers and gzip's state,
			// where building the body whole holds at least the body.
			if limit := int64(16*itemSize + 1<<20); w.peak > limit {
				t.Errorf("the response held %d bytes of heap for a %d-byte body; want under %d", w.peak, w.n, limit)
			}
		})
	}
}
