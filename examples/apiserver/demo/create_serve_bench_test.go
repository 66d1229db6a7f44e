package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/metrics"
)

// BenchmarkHTTPCreateServe is BenchmarkHTTPCreateWriters against the
// server as the example command runs it (examples/apiserver/app): served
// by Server.Serve, with its connection tracking, connection limits and
// http.Server timeouts, and a request log. The rows are the log: none
// (Options.Logger nil), one that drops the request lines by level (a
// text handler at Warn), and the command's (a text handler at Info, which
// writes a line for every create, here to a file).
func BenchmarkHTTPCreateServe(b *testing.B) {
	for _, bc := range []struct {
		name  string
		level slog.Level
		log   bool
	}{
		{"log=none", 0, false},
		{"log=warn", slog.LevelWarn, true},
		{"log=info", slog.LevelInfo, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const writers = 8
			rec := &metrics.Recorder{}
			opts := Options{GarbageCollection: true}
			opts.Hooks.Metrics = rec
			if bc.log {
				f, err := os.Create(filepath.Join(b.TempDir(), "log"))
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				opts.Logger = slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: bc.level}))
			}
			s, err := New(opts)
			if err != nil {
				b.Fatal(err)
			}
			rec.Source = s
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			served := make(chan error, 1)
			go func() { served <- s.Serve(l) }()
			tr := &http.Transport{MaxIdleConnsPerHost: writers}
			defer func() {
				tr.CloseIdleConnections()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := s.Shutdown(ctx); err != nil {
					b.Error(err)
				}
				if err := <-served; !errors.Is(err, http.ErrServerClosed) {
					b.Error(err)
				}
			}()
			ns := &api.Namespace{}
			ns.Meta().Name = "hb"
			if _, err := s.Create(context.Background(), ns); err != nil {
				b.Fatal(err)
			}
			createWriters(b, tr, "http://"+l.Addr().String()+"/api/v1/namespaces/hb/configmaps", writers)
		})
	}
}

// BenchmarkServeHTTPCreate is one create of BenchmarkHTTPCreateWriters
// in-process, without the network, net/http's connection and the client:
// Server.ServeHTTP, its filters (deadline, in-flight, metrics), the
// create and the 201, on one goroutine. The rows are the request log, as
// in BenchmarkHTTPCreateServe; the command's writes its text to a
// discarding writer here, so that the row is the line's formatting
// without the write.
func BenchmarkServeHTTPCreate(b *testing.B) {
	for _, bc := range []struct {
		name  string
		level slog.Level
		log   bool
	}{
		{"log=none", 0, false},
		{"log=warn", slog.LevelWarn, true},
		{"log=info", slog.LevelInfo, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rec := &metrics.Recorder{}
			opts := Options{GarbageCollection: true}
			opts.Hooks.Metrics = rec
			if bc.log {
				opts.Logger = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: bc.level}))
			}
			s, err := New(opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			rec.Source = s
			ns := &api.Namespace{}
			ns.Meta().Name = "hb"
			if _, err := s.Create(context.Background(), ns); err != nil {
				b.Fatal(err)
			}
			data := strings.Repeat("x", 256)
			w := &discardWriter{h: http.Header{}}
			var body bytes.Buffer
			var rd bytes.Reader
			i := 0
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				i++
				body.Reset()
				fmt.Fprintf(&body, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%06d","labels":{"app":"a%d"}},"data":{"k":%q}}`, i, i%10, data)
				rd.Reset(body.Bytes())
				// Cancelable, as net/http's request contexts are.
				ctx, cancel := context.WithCancel(context.Background())
				r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/v1/namespaces/hb/configmaps", io.NopCloser(&rd))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json")
				clear(w.h)
				w.code = 0
				s.ServeHTTP(w, r)
				cancel()
				if w.code != http.StatusCreated {
					b.Fatalf("POST: %d", w.code)
				}
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// discardWriter is a ResponseWriter that keeps the status code alone. It
// takes deadlines, as net/http's does, which the deadline filter sets.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}
func (w *discardWriter) Write(b []byte) (int, error)      { return len(b), nil }
func (w *discardWriter) SetReadDeadline(time.Time) error  { return nil }
func (w *discardWriter) SetWriteDeadline(time.Time) error { return nil }
