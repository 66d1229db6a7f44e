package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/metrics"
)

// The HTTP benchmarks measure the server as its clients see it: real HTTP
// over loopback with a plain net/http client (which asks for gzip, as
// client-go does), against one server seeded once per process with
// benchNObjects ConfigMaps of 256 bytes of data in namespace benchNS. They
// are the in-repo counterpart of the httpbench tool, whose numbers compare
// the server with a kube-apiserver.

const (
	benchNS       = "bench"
	benchNObjects = 10000
	benchWatchers = 1000
)

// httpFixture is the shared seeded server.
type httpFixture struct {
	s      *Server
	hs     *httptest.Server
	base   string
	client *http.Client
}

var (
	fixtureOnce sync.Once
	fixture     *httpFixture
	fixtureErr  error
)

// TestMain stops the shared HTTP benchmark server, if a benchmark started
// it, when the package's tests and benchmarks are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if fixture != nil {
		fixture.close()
	}
	os.Exit(code)
}

// benchServer returns the shared server, seeding it on first use: the
// objects are stored directly (Server.Create), which is what makes seeding
// 10,000 objects take well under a second.
func benchServer(b *testing.B) *httpFixture {
	b.Helper()
	fixtureOnce.Do(func() { fixture, fixtureErr = newHTTPFixture() })
	if fixtureErr != nil {
		b.Fatal(fixtureErr)
	}
	return fixture
}

// benchMetrics has the HTTP benchmarks' server record metrics, as the
// example server does (app.Run): -metrics measures their cost.
var benchMetrics = flag.Bool("metrics", false, "record metrics (metrics.Recorder) in the HTTP benchmarks' server")

func newHTTPFixture() (*httpFixture, error) {
	var opts Options
	if *benchMetrics {
		opts.Hooks.Metrics = &metrics.Recorder{}
	}
	s, err := New(opts)
	if err != nil {
		return nil, err
	}
	hs := httptest.NewServer(s) // 127.0.0.1, an ephemeral port
	f := &httpFixture{s: s, hs: hs, base: hs.URL, client: &http.Client{Transport: &http.Transport{
		MaxIdleConns:        2 * benchWatchers,
		MaxIdleConnsPerHost: 2 * benchWatchers,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
	}}}
	ctx := context.Background()
	for _, ns := range []string{benchNS, benchNS + "-watch"} {
		o := &api.Namespace{}
		o.Meta().Name = ns
		if _, err := s.Create(ctx, o); err != nil {
			f.close()
			return nil, err
		}
	}
	data := strings.Repeat("x", 256)
	for i := range benchNObjects {
		o := &api.ConfigMap{Data: map[string]string{"k": data}}
		m := o.Meta()
		m.Namespace, m.Name = benchNS, fmt.Sprintf("cm-%06d", i)
		m.Labels = map[string]string{"app": fmt.Sprintf("a%d", i%10)}
		if _, err := s.Create(ctx, o); err != nil {
			f.close()
			return nil, err
		}
	}
	return f, nil
}

func (f *httpFixture) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	f.s.Shutdown(ctx)
	f.hs.Close()
	f.client.CloseIdleConnections()
}

// get sends a GET and reads the whole (decompressed) body into buf,
// returning it.
func (f *httpFixture) get(b *testing.B, path, accept string, buf *bytes.Buffer) []byte {
	req, err := http.NewRequest("GET", f.base+path, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := f.client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	buf.Reset()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %s", path, resp.StatusCode, buf.Bytes())
	}
	return buf.Bytes()
}

const (
	acceptTable = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	benchColl   = "/api/v1/namespaces/" + benchNS + "/configmaps"
)

func benchmarkHTTPList(b *testing.B, accept string) {
	f := benchServer(b)
	var buf bytes.Buffer
	f.get(b, benchColl, accept, &buf) // warm the encode-once caches
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		f.get(b, benchColl, accept, &buf)
	}
}

// BenchmarkHTTPListJSON is a LIST of the whole collection in JSON.
func BenchmarkHTTPListJSON(b *testing.B) { benchmarkHTTPList(b, "application/json") }

// BenchmarkHTTPListProtobuf is a LIST of the whole collection in protobuf.
func BenchmarkHTTPListProtobuf(b *testing.B) {
	benchmarkHTTPList(b, "application/vnd.kubernetes.protobuf")
}

// BenchmarkHTTPListTable is a LIST as a Table, as kubectl get asks for it.
func BenchmarkHTTPListTable(b *testing.B) { benchmarkHTTPList(b, acceptTable) }

// BenchmarkHTTPPagedWalk walks the whole collection in pages of 500 in
// JSON, following continue tokens: one op is the whole walk of 20 pages.
func BenchmarkHTTPPagedWalk(b *testing.B) {
	f := benchServer(b)
	var buf bytes.Buffer
	if n := f.walk(b, "application/json", &buf); n != benchNObjects/500 {
		b.Fatalf("walked %d pages, want %d", n, benchNObjects/500)
	}
	b.ReportAllocs()
	for b.Loop() {
		f.walk(b, "application/json", &buf)
	}
}

// walk lists the whole collection in pages of 500, following continue
// tokens, and returns the number of pages.
func (f *httpFixture) walk(b *testing.B, accept string, buf *bytes.Buffer) int {
	pages := 0
	cont := ""
	for {
		q := "?limit=500"
		if cont != "" {
			q += "&continue=" + url.QueryEscape(cont)
		}
		body := f.get(b, benchColl+q, accept, buf)
		pages++
		// The list metadata comes before the items: decode only it.
		dec := json.NewDecoder(bytes.NewReader(body))
		if err := decodeListMeta(dec, &cont); err != nil {
			b.Fatal(err)
		}
		if cont == "" {
			return pages
		}
	}
}

// decodeListMeta reads a list's metadata.continue from dec without
// decoding its items.
func decodeListMeta(dec *json.Decoder, cont *string) error {
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		if k == "metadata" {
			var m struct {
				Continue string `json:"continue"`
			}
			err := dec.Decode(&m)
			*cont = m.Continue
			return err
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return io.ErrUnexpectedEOF
}

// BenchmarkHTTPGet is a GET of a random ConfigMap in JSON.
func BenchmarkHTTPGet(b *testing.B) {
	f := benchServer(b)
	var buf bytes.Buffer
	rnd := rand.New(rand.NewPCG(1, 2))
	paths := make([]string, 1024)
	for i := range paths {
		paths[i] = fmt.Sprintf("%s/cm-%06d", benchColl, rnd.IntN(benchNObjects))
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		f.get(b, paths[i%len(paths)], "application/json", &buf)
		i++
	}
}

// BenchmarkHTTPWatchFanOut has 1,000 HTTP watchers (one connection each,
// JSON) on one ConfigMap; one op is a merge patch of it over HTTP and the
// wait until every watcher has read the event. The metrics are the p50
// times from the start of the write to the first and to the last watcher
// reading it; cpu-µs/op is the process's CPU time per event (server and
// clients, 1,000 deliveries).
func BenchmarkHTTPWatchFanOut(b *testing.B) {
	f := benchServer(b)
	ns := benchNS + "-watch"
	coll := "/api/v1/namespaces/" + ns + "/configmaps"
	name := fmt.Sprintf("target-%d", rand.Int())
	var buf bytes.Buffer
	postJSON(b, f, "POST", coll, "application/json", `{"metadata":{"name":"`+name+`"},"data":{"i":"0"}}`, http.StatusCreated, &buf)

	// round is one write the watchers are waiting for.
	type round struct {
		i       string // the data value the write sets
		left    atomic.Int64
		first   atomic.Int64 // unix ns of the first and last reader
		lastAt  atomic.Int64
		allSeen chan struct{}
	}
	var cur atomic.Pointer[round]
	ctx, cancel := context.WithCancel(context.Background())
	var done sync.WaitGroup
	ready := make(chan error, benchWatchers)
	q := coll + "?watch=1&fieldSelector=" + url.QueryEscape("metadata.name="+name)
	for range benchWatchers {
		done.Add(1)
		go func() {
			defer done.Done()
			req, _ := http.NewRequestWithContext(ctx, "GET", f.base+q, nil)
			req.Header.Set("Accept", "application/json")
			resp, err := f.client.Do(req)
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
				if r == nil || !bytes.Contains(line, []byte(`"data":{"i":"`+r.i+`"}`)) {
					continue
				}
				r.first.CompareAndSwap(0, now)
				if r.left.Add(-1) == 0 {
					r.lastAt.Store(now)
					close(r.allSeen)
				}
			}
		}()
	}
	stop := func() {
		cancel()
		done.Wait()
	}
	defer stop()
	for range benchWatchers {
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
		r := &round{i: fmt.Sprint(k), allSeen: make(chan struct{})}
		r.left.Store(benchWatchers)
		cur.Store(r)
		start := time.Now()
		postJSON(b, f, "PATCH", coll+"/"+name, "application/merge-patch+json", `{"data":{"i":"`+r.i+`"}}`, http.StatusOK, &buf)
		<-r.allSeen
		firsts = append(firsts, time.Duration(r.first.Load()-start.UnixNano()))
		lasts = append(lasts, time.Duration(r.lastAt.Load()-start.UnixNano()))
	}
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(median(firsts).Microseconds()), "µs-first-p50")
	b.ReportMetric(float64(median(lasts).Microseconds()), "µs-last-p50")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// postJSON sends a request with a body and checks its code.
func postJSON(b *testing.B, f *httpFixture, method, path, ctype, body string, code int, buf *bytes.Buffer) {
	req, err := http.NewRequest(method, f.base+path, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	buf.Reset()
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != code {
		b.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, buf.Bytes())
	}
}

// BenchmarkHTTPCreate creates ConfigMaps (256 bytes of data and a label,
// as the seeded ones) over HTTP, one at a time, each with a new name in a
// namespace of its own run.
func BenchmarkHTTPCreate(b *testing.B) {
	f := benchServer(b)
	ns := fmt.Sprintf("%s-create-%d", benchNS, rand.Int())
	o := &api.Namespace{}
	o.Meta().Name = ns
	if _, err := f.s.Create(context.Background(), o); err != nil {
		b.Fatal(err)
	}
	coll := "/api/v1/namespaces/" + ns + "/configmaps"
	data := strings.Repeat("x", 256)
	var buf bytes.Buffer
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		body := `{"metadata":{"name":"cm-` + fmt.Sprint(i) + `","labels":{"app":"a1"}},"data":{"k":"` + data + `"}}`
		postJSON(b, f, "POST", coll, "application/json", body, http.StatusCreated, &buf)
		i++
	}
}
