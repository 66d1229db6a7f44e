package demo

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apisem/apisem/internal/cputime"
)

// BenchmarkHTTPFloor measures the server against the floor, as the floor
// tool does (../shared/tools/floor in the project's workspace), in one
// run: each response of the server, and the same bytes sent by a bare
// net/http handler from memory (compress/gzip at BestSpeed over 128 KiB
// when the client accepts gzip, in 64 KiB writes), over loopback to the
// same client. Besides the time, which a loaded machine inflates, it
// reports the process's CPU time per request, client and server
// (cpu-µs/op): server / bare of that is the cost over the floor.
func BenchmarkHTTPFloor(b *testing.B) {
	f := benchServer(b)
	for _, bc := range []struct{ name, path, accept string }{
		{"list-json", benchColl, "application/json"},
		{"list-protobuf", benchColl, "application/vnd.kubernetes.protobuf"},
		{"list-table", benchColl, "application/json;as=Table;g=meta.k8s.io;v=v1"},
		{"get", benchColl + "/cm-000042", "application/json"},
	} {
		body, ctype := fetchIdentity(b, f.base+bc.path, bc.accept)
		bare := httptest.NewServer(bareHandler(body, ctype))
		for _, target := range []struct{ name, url string }{{"server", f.base + bc.path}, {"bare", bare.URL}} {
			b.Run(bc.name+"/"+target.name, func(b *testing.B) {
				var buf bytes.Buffer
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				cpu0 := cputime.Process()
				for b.Loop() {
					req, _ := http.NewRequest(http.MethodGet, target.url, nil)
					req.Header.Set("Accept", bc.accept)
					resp, err := f.client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					buf.Reset()
					buf.ReadFrom(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("%s: %d", target.url, resp.StatusCode)
					}
				}
				b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
			})
		}
		bare.Close()
	}
}

// fetchIdentity returns the uncompressed body and Content-Type of a GET.
func fetchIdentity(b *testing.B, url, accept string) ([]byte, string) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", accept)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return body, resp.Header.Get("Content-Type")
}

// bareHandler is the floor tool's bare handler.
func bareHandler(body []byte, ctype string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		out := io.Writer(w)
		var zw *gzip.Writer
		if len(body) >= 128<<10 && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			zw, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
			out = zw
		}
		for off := 0; off < len(body); off += 64 << 10 {
			out.Write(body[off:min(off+64<<10, len(body))])
		}
		if zw != nil {
			zw.Close()
		}
	})
}
