package negotiation

import (
	"bytes"
	stdgzip "compress/gzip"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// bodyTo is a ResponseWriter whose body goes to w.
type bodyTo struct {
	h http.Header
	w io.Writer
}

func (d *bodyTo) Header() http.Header         { return d.h }
func (d *bodyTo) WriteHeader(int)             {}
func (d *bodyTo) Write(p []byte) (int, error) { return d.w.Write(p) }

// benchListParts is a JSON list of n ConfigMaps of 256 bytes of data with
// managedFields, as the floor measurements of issue #22 use, in parts.
func benchListParts(n int) ([]Part, []byte) {
	parts := []Part{{Plain: []byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"123456"},"items":[`)}}
	data := bytes.Repeat([]byte("x"), 256)
	for i := range n {
		item := fmt.Appendf(nil, `{"metadata":{"name":"cm-%05d","namespace":"floor","uid":"6b1c0e3a-%04x-4c5e-9f3d-%012x",`+
			`"resourceVersion":"%d","creationTimestamp":"2026-11-27T10:%02d:%02dZ","labels":{"app":"floor"},`+
			`"managedFields":[{"manager":"populate","operation":"Update","apiVersion":"v1","time":"2026-11-27T10:%02d:%02dZ",`+
			`"fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:d":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]},`+
			`"data":{"d":"%s"}}`, i, i, i*7919, 1000+i, i/60%60, i%60, i/60%60, i%60, data)
		p := Part{Plain: item}
		if i > 0 {
			p.Sep = []byte{','}
		}
		parts = append(parts, p)
	}
	parts = append(parts, Part{Plain: []byte("]}\n")})
	var whole []byte
	for _, p := range parts {
		whole = append(append(whole, p.Sep...), p.Plain...)
	}
	return parts, whole
}

// BenchmarkGzipList compares, in one run, a list of 10,000 ConfigMaps
// (about 6 MB) written by WriteParts for a client that accepts gzip with
// the same bytes compressed by compress/gzip at BestSpeed in 64 KiB
// writes (the bare handler of the floor tool, and kube-apiserver's
// compressor). The gunzip benchmarks are the client's side: a Go client
// decompresses either output with compress/gzip. Each reports the
// compressed size (gz-bytes).
func BenchmarkGzipList(b *testing.B) {
	parts, whole := benchListParts(10000)
	req, _ := http.NewRequest(http.MethodGet, "/api/v1/configmaps", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res := Result{MediaType: JSON}
	bare := func(w io.Writer) int {
		var out bytes.Buffer
		zw, _ := stdgzip.NewWriterLevel(io.MultiWriter(w, &out), stdgzip.BestSpeed)
		for off := 0; off < len(whole); off += 64 << 10 {
			zw.Write(whole[off:min(off+64<<10, len(whole))])
		}
		zw.Close()
		return out.Len()
	}
	ours := func(w io.Writer) {
		if err := WriteParts(&bodyTo{h: http.Header{}, w: w}, req, res, http.StatusOK, parts); err != nil {
			b.Fatal(err)
		}
	}
	var bareGz, oursGz bytes.Buffer
	bare(&bareGz)
	ours(&oursGz)
	b.Run("bare-stdlib-gzip", func(b *testing.B) {
		b.SetBytes(int64(len(whole)))
		b.ReportAllocs()
		for b.Loop() {
			bare(io.Discard)
		}
		b.ReportMetric(float64(bareGz.Len()), "gz-bytes")
	})
	b.Run("WriteParts", func(b *testing.B) {
		b.SetBytes(int64(len(whole)))
		b.ReportAllocs()
		for b.Loop() {
			ours(io.Discard)
		}
		b.ReportMetric(float64(oursGz.Len()), "gz-bytes")
	})
	for _, out := range []struct {
		name string
		gz   []byte
	}{{"bare-stdlib-gzip", bareGz.Bytes()}, {"WriteParts", oursGz.Bytes()}} {
		b.Run("client-gunzip/"+out.name, func(b *testing.B) {
			b.SetBytes(int64(len(whole)))
			b.ReportAllocs()
			for b.Loop() {
				zr, err := stdgzip.NewReader(bytes.NewReader(out.gz))
				if err != nil {
					b.Fatal(err)
				}
				if n, err := io.Copy(io.Discard, zr); err != nil || n != int64(len(whole)) {
					b.Fatalf("gunzip: %d bytes, %v; want %d", n, err, len(whole))
				}
			}
		})
	}
}
