package server_test

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apisem/apisem/server"
)

var edgeLoadBaseline = flag.Bool("edgeload.baseline", false,
	"run TestEdgeLoad with the edge limits off, as the server was before them, and report instead of asserting")

// countingListener counts the connections the server holds open.
type countingListener struct {
	net.Listener
	open atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.open.Add(1)
	return &countedConn{Conn: c, l: l}, nil
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func settledHeap() uint64 {
	runtime.GC()
	runtime.GC()
	return heapAlloc()
}

// TestEdgeLoad is the HTTP edge under hostile clients, on loopback, bounded
// in count and time (a few seconds, with -race too): 100 watchers that never
// read, each owed 4 MiB of events; 50 slow bodies; 50 connections that
// send nothing and 50 that stop half-way through their headers; and 16
// reads at once against a cap of 4. Throughout, /healthz must answer 200;
// the reads over the cap get 429; and once the edge's timeouts have
// passed, the server's connections, goroutines and heap must be back to
// their baseline. The limits are shortened to a few hundred milliseconds
// so that it runs quickly: the defaults only scale the times.
func TestEdgeLoad(t *testing.T) {
	const (
		stuckWatchers = 100
		blobCount     = 8
		blobSize      = 512 << 10
		slowBodies    = 50
		idleConns     = 50
		halfHeaders   = 50
		reads         = 16
		readCap       = 4
		limit         = 300 * time.Millisecond
		slackG        = 6 // goroutines of the health checker and its connection
	)
	opts := server.Options{
		Resources: []*server.Resource{blobs},
		Watch: server.WatchOptions{
			FutureWait: 2 * time.Second, // longer than it takes to send every read
		},
		Limits: server.LimitOptions{
			WriteTimeout:                limit,
			BodyReadTimeout:             limit,
			ReadHeaderTimeout:           limit,
			IdleTimeout:                 limit,
			RequestTimeout:              10 * time.Second,
			MaxRequestsInFlight:         readCap,
			MaxMutatingRequestsInFlight: readCap,
		},
	}
	if *edgeLoadBaseline {
		opts.Limits.WriteTimeout, opts.Limits.BodyReadTimeout, opts.Limits.ReadHeaderTimeout, opts.Limits.IdleTimeout = time.Hour, time.Hour, time.Hour, time.Hour
		opts.Limits.RequestTimeout = time.Hour
		opts.Limits.MaxRequestsInFlight, opts.Limits.MaxMutatingRequestsInFlight = -1, -1
	}
	s, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range blobCount {
		b := &Blob{Data: strings.Repeat("x", blobSize)}
		b.Name, b.Namespace = fmt.Sprint("b", i), "ns"
		if _, err := s.Create(context.Background(), blobs, b); err != nil {
			t.Fatal(err)
		}
	}
	l0, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &countingListener{Listener: l0}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	addr := l0.Addr().String()
	base := "http://" + addr
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	defer func() {
		tr.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	}()
	get := func(path string) (int, error) {
		resp, err := client.Get(base + path)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, err
	}
	if code, err := get("/healthz"); err != nil || code != 200 {
		t.Fatalf("/healthz: %d %v", code, err)
	}
	// One watch read to its last initial event: the encodings of the
	// blobs the server caches are part of the baseline. This reader is
	// held to the 300ms write deadline meant for the stuck ones, for
	// each 512 KiB event: when the socket buffers cannot take an event,
	// a reader kept off the CPU for 300ms (at a load of 20, under -race)
	// looks stuck, and the server rightly cuts the stream ("unexpected
	// EOF"). So a cut warm-up is tried again, a few times; a server that
	// never delivers the whole stream still fails.
	warmUp := func() error {
		resp, err := client.Get(base + blobsPath + "?watch=1")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 2*blobSize)
		for i := range blobCount {
			if !sc.Scan() {
				return fmt.Errorf("after %d events: %v", i, sc.Err())
			}
		}
		return nil
	}
	for try := 1; ; try++ {
		err := warmUp()
		if err == nil {
			break
		}
		if try == 5 {
			t.Fatalf("warm-up watch, try %d: %v", try, err)
		}
		t.Logf("warm-up watch, try %d: %v", try, err)
	}
	tr.CloseIdleConnections()
	baseHeap, baseG := settledHeap(), runtime.NumGoroutine()

	// Health checks throughout, and a sampler of the heap's peak.
	stopHealth := make(chan struct{})
	var healthOK, healthBad atomic.Int64
	var peak atomic.Uint64
	var bg sync.WaitGroup
	bg.Go(func() {
		for {
			select {
			case <-stopHealth:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if code, err := get("/healthz"); err == nil && code == 200 {
				healthOK.Add(1)
			} else {
				healthBad.Add(1)
				t.Logf("/healthz: %d %v", code, err)
			}
			if h := heapAlloc(); h > peak.Load() {
				peak.Store(h)
			}
		}
	})

	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		// A small receive window: the server blocks sooner.
		c.(*net.TCPConn).SetReadBuffer(4 << 10)
		return c
	}
	var clients []net.Conn
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	// Watchers that read the headers, then nothing.
	for range stuckWatchers {
		c := dial()
		clients = append(clients, c)
		fmt.Fprintf(c, "GET %s?watch=1&timeoutSeconds=60 HTTP/1.1\r\nHost: x\r\n\r\n", blobsPath)
		resp, err := http.ReadResponse(bufio.NewReaderSize(c, 64), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("watch: %v %v", resp, err)
		}
	}
	for range slowBodies {
		c := dial()
		clients = append(clients, c)
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{\"metadata\":", blobsPath)
	}
	for range idleConns {
		clients = append(clients, dial())
	}
	for range halfHeaders {
		c := dial()
		clients = append(clients, c)
		io.WriteString(c, "GET /api HTTP/1.1\r\nHost: x\r\nX-Slow: ")
	}
	// Reads at once over the cap: lists waiting for a resourceVersion the
	// server will not reach in time.
	codes := make(chan int, reads)
	var rg sync.WaitGroup
	for range reads {
		rg.Go(func() {
			code, err := get(blobsPath + "?resourceVersion=1000&resourceVersionMatch=NotOlderThan&limit=1")
			if err != nil {
				t.Errorf("read: %v", err)
			}
			codes <- code
		})
	}
	rg.Wait()
	close(codes)
	counts := map[int]int{}
	for c := range codes {
		counts[c]++
	}
	heldConns := l.open.Load()

	// Convergence: the server lets go of everything within its limits.
	deadline := time.Now().Add(5 * time.Second)
	if *edgeLoadBaseline {
		deadline = time.Now().Add(2 * time.Second)
	}
	var heap uint64
	var g int
	for {
		tr.CloseIdleConnections()
		heap, g = settledHeap(), runtime.NumGoroutine()
		// The health checker and its connection are a few goroutines.
		if l.open.Load() <= 1 && g <= baseG+slackG && heap < baseHeap+8<<20 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(stopHealth)
	bg.Wait()
	t.Logf("baseline: heap %.1f MiB, %d goroutines", mib(baseHeap), baseG)
	t.Logf("under load: peak heap %.1f MiB; %d connections held when the reads were done; reads by code %v",
		mib(peak.Load()), heldConns, counts)
	t.Logf("after: heap %.1f MiB, %d goroutines, %d connections open; /healthz %d ok, %d failed",
		mib(heap), g, l.open.Load(), healthOK.Load(), healthBad.Load())
	if *edgeLoadBaseline {
		return
	}
	if healthBad.Load() > 0 || healthOK.Load() == 0 {
		t.Errorf("/healthz: %d ok, %d failed; want every one ok", healthOK.Load(), healthBad.Load())
	}
	if counts[http.StatusTooManyRequests] != reads-readCap || counts[http.StatusGatewayTimeout] != readCap {
		t.Errorf("reads by code %v, want %d 429s and %d 504s", counts, reads-readCap, readCap)
	}
	if n := l.open.Load(); n > 1 {
		t.Errorf("%d connections still open, want those of hostile clients closed", n)
	}
	if g > baseG+slackG {
		t.Errorf("%d goroutines, want about the baseline %d", g, baseG)
	}
	if heap >= baseHeap+8<<20 {
		t.Errorf("heap %.1f MiB, want about the baseline %.1f MiB", mib(heap), mib(baseHeap))
	}
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
