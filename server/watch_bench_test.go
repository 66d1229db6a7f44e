package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// BenchmarkWatchFanOut has 1,000 watchers of one gizmo over HTTP on
// loopback, one connection each, JSON, as httpbench's watch phase has.
// One op is a merge patch of the gizmo over HTTP and the wait until every
// watcher has read its MODIFIED event. The metrics are the medians of the
// time from the start of the write to the first and to the last watcher
// reading it; allocs/op counts the server's fan-out of one event to every
// watcher (and the clients' reads, which allocate nothing per event).
// The clients only look for the write's label in each line, so most of
// the CPU they leave to the server. cpu-µs/op is the process's CPU time
// per event (server and clients, garbage collection included): on a
// loaded machine wall times say more of the neighbours than of the
// server. The clients share the server's scheduler: while 1,000 watch
// handlers are runnable the runtime polls the network rarely, so a
// reader here wakes later than httpbench's, in a process of its own, and
// the first-reader time is longer than it is there.
//
// BenchmarkWatchFanOutFloor is the floor to compare it with, in the same
// run: the same clients and writes, served by a bare net/http handler that
// writes each event line, of the same size, from the watch's goroutine.
func BenchmarkWatchFanOut(b *testing.B) {
	_, base := servertest.New(b, server.Options{Resources: []*server.Resource{gizmos}})
	coll := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	tr := &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	fanOutDo(b, client, "POST", coll, "application/json", `{"metadata":{"name":"target"},"spec":{"color":"red"}}`, http.StatusCreated)
	benchFanOut(b, client, coll+"?watch=1&fieldSelector=metadata.name%3Dtarget", func(i string) {
		fanOutDo(b, client, "PATCH", coll+"/target", "application/merge-patch+json", `{"metadata":{"labels":{"i":"`+i+`"}}}`, http.StatusOK)
	})
}

func BenchmarkWatchFanOutFloor(b *testing.B) {
	// The size of the gizmo's MODIFIED line, which the bare handler's
	// lines match.
	_, base := servertest.New(b, server.Options{Resources: []*server.Resource{gizmos}})
	coll := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	tr := &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	fanOutDo(b, client, "POST", coll, "application/json", `{"metadata":{"name":"target"},"spec":{"color":"red"}}`, http.StatusCreated)
	fanOutDo(b, client, "PATCH", coll+"/target", "application/merge-patch+json", `{"metadata":{"labels":{"i":"1"}}}`, http.StatusOK)
	resp, err := client.Get(coll + "/target")
	if err != nil {
		b.Fatal(err)
	}
	obj, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	size := len(`{"type":"MODIFIED","object":}`+"\n") + len(bytes.TrimSpace(obj))

	var (
		mu   sync.Mutex
		subs = map[chan []byte]struct{}{}
	)
	line := func(typ, i string) []byte {
		l := []byte(`{"type":"` + typ + `","object":{"metadata":{"labels":{"i":"` + i + `"}},"pad":"`)
		l = append(l, bytes.Repeat([]byte{'x'}, max(0, size-len(l)-4))...)
		return append(l, `"}}`+"\n"...)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			l := line("MODIFIED", r.URL.Query().Get("i"))
			mu.Lock()
			for c := range subs {
				select {
				case c <- l:
				default:
				}
			}
			mu.Unlock()
			return
		}
		c := make(chan []byte, 128)
		mu.Lock()
		subs[c] = struct{}{}
		mu.Unlock()
		defer func() {
			mu.Lock()
			delete(subs, c)
			mu.Unlock()
		}()
		w.Header().Set("Content-Type", "application/json")
		rc := http.NewResponseController(w)
		w.Write(line("ADDED", "0"))
		rc.Flush()
		for {
			select {
			case l := <-c:
				w.Write(l)
				rc.Flush()
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer srv.Close()
	defer srv.CloseClientConnections()
	benchFanOut(b, client, srv.URL+"/watch", func(i string) {
		fanOutDo(b, client, "POST", srv.URL+"/write?i="+i, "text/plain", "", http.StatusOK)
	})
}

func fanOutDo(b *testing.B, client *http.Client, method, url, ctype, body string, want int) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		b.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, got)
	}
}

// benchFanOut opens 1,000 watches of watchURL, whose first line each is
// the initial event, and measures write(i) until every watcher has read a
// line with the label i:"<i>".
func benchFanOut(b *testing.B, client *http.Client, watchURL string, write func(i string)) {
	const watchers = 1000
	// round is one write the watchers wait for.
	type round struct {
		mark    []byte // the label value the write sets, as it appears in the event
		left    atomic.Int64
		first   atomic.Int64 // when the first and the last watcher read it, unix ns
		last    atomic.Int64
		allSeen chan struct{}
	}
	var cur atomic.Pointer[round]
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	ready := make(chan error, watchers)
	for range watchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(ctx, "GET", watchURL, nil)
			req.Header.Set("Accept", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				ready <- err
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				ready <- fmt.Errorf("watch: %d", resp.StatusCode)
				return
			}
			br := bufio.NewReaderSize(resp.Body, 4096)
			first := true
			for {
				line, err := br.ReadSlice('\n')
				if err != nil {
					return
				}
				now := time.Now().UnixNano()
				if first {
					first = false
					ready <- nil // the initial ADDED
					continue
				}
				r := cur.Load()
				if r == nil || !bytes.Contains(line, r.mark) {
					continue
				}
				r.first.CompareAndSwap(0, now)
				if r.left.Add(-1) == 0 {
					r.last.Store(now)
					close(r.allSeen)
				}
			}
		}()
	}
	for range watchers {
		if err := <-ready; err != nil {
			b.Fatal(err)
		}
	}

	var firsts, lasts []time.Duration
	k := 0
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		k++
		i := strconv.Itoa(k)
		r := &round{mark: []byte(`"labels":{"i":"` + i + `"}`), allSeen: make(chan struct{})}
		r.left.Store(watchers)
		cur.Store(r)
		start := time.Now().UnixNano()
		write(i)
		<-r.allSeen
		firsts = append(firsts, time.Duration(r.first.Load()-start))
		lasts = append(lasts, time.Duration(r.last.Load()-start))
	}
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(medianOf(firsts).Microseconds()), "µs-first-p50")
	b.ReportMetric(float64(medianOf(lasts).Microseconds()), "µs-last-p50")
}

func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
