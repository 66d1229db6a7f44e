package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/store"
)

// batchWriter is a ResponseWriter with write deadlines, as
// http.ResponseController finds them, that records the most bytes written
// under one deadline. It cancels the request once want bytes are written.
type batchWriter struct {
	h         http.Header
	n, since  int // bytes written, in all and since the last deadline
	most      int
	deadlines int
	want      int
	cancel    context.CancelFunc
}

func (w *batchWriter) Header() http.Header { return w.h }
func (w *batchWriter) WriteHeader(int)     {}
func (w *batchWriter) Flush()              {}

func (w *batchWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	w.since += len(p)
	w.most = max(w.most, w.since)
	if w.n >= w.want {
		w.cancel()
	}
	return len(p), nil
}

func (w *batchWriter) SetWriteDeadline(time.Time) error {
	w.deadlines++
	w.since = 0
	return nil
}

// TestWatchBatchBytes: a watch whose queued events are large writes them
// in batches of about maxBatchBytes, each under its own write deadline,
// so that a client that reads steadily is asked for that much within
// WriteTimeout, not for every queued event (here the 4 MiB of the
// initial events at once).
func TestWatchBatchBytes(t *testing.T) {
	const (
		n        = 32
		itemSize = 128 << 10
	)
	res := gizmoResource(t)
	// A WriteTimeout of 1ns makes every deadline move past armSlack, so
	// that each batch sets its own.
	s, err := New(Options{Resources: []*Resource{res}, Limits: LimitOptions{WriteTimeout: time.Nanosecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	data := strings.Repeat("x", itemSize)
	for i := range n {
		u := &Unstructured{
			ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("g%03d", i), Namespace: "ns"},
			Content:    map[string]any{"spec": map[string]any{"data": data}},
		}
		if _, err := s.StoreOf(res).Create(context.Background(), u, store.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &batchWriter{h: http.Header{}, want: n * itemSize, cancel: cancel}
	r := httptest.NewRequest("GET", "/apis/demo.io/v1/namespaces/ns/gizmos?watch=1", nil).WithContext(ctx)
	s.ServeHTTP(w, r)
	t.Logf("%d bytes, %d write deadlines, at most %d bytes under one", w.n, w.deadlines, w.most)
	if w.n < w.want {
		t.Fatalf("%d bytes written, want the %d of the initial events", w.n, w.want)
	}
	// A batch ends with the event that takes it to maxBatchBytes (256
	// KiB): a few events, where the 32 queued are 4 MiB.
	if limit := 512 << 10; w.most > limit {
		t.Errorf("%d bytes written under one write deadline, want at most %d", w.most, limit)
	}
}
