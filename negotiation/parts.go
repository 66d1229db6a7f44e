package negotiation

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// A Part is one piece of a response body that WriteParts writes without
// joining the pieces in memory: a list's head, each of its items, its
// tail. Its bytes are Sep followed by Plain, so that a separator (a comma
// between JSON items, a protobuf field header) needs no copy of the item
// it precedes, typically a cached encoding.
type Part struct {
	Sep, Plain []byte
}

// Len is the number of bytes of the part.
func (p *Part) Len() int { return len(p.Sep) + len(p.Plain) }

// Gzips reports whether a successful response body of size bytes to r is
// gzip-compressed by WriteResponse and WriteParts: larger than
// GzipThreshold, for a request whose Accept-Encoding allows gzip.
func Gzips(r *http.Request, size int) bool {
	return size > GzipThreshold && r != nil && acceptsGzip(r.Header["Accept-Encoding"])
}

// gzipWriters pools level-1 compressors: Reset reuses the compressor's
// tables, which NewWriterLevel allocates anew.
//
// The compressor is github.com/klauspost/compress's gzip, not
// compress/gzip: its level 1 writes the same format (clients decompress
// it with compress/gzip, at the same cost) and compresses a list of
// Kubernetes objects about twice as fast, for output about as small
// (BenchmarkGzipList). Compression is most of what a large list costs.
var gzipWriters sync.Pool

// newGzipWriter returns a pooled gzip.BestSpeed writer writing to w.
func newGzipWriter(w http.ResponseWriter) *gzip.Writer {
	if zw, ok := gzipWriters.Get().(*gzip.Writer); ok {
		zw.Reset(w)
		return zw
	}
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed) // a valid level: cannot fail
	return zw
}

// chunkSize is the size of the writes WriteParts makes.
const chunkSize = 64 << 10

var chunks = sync.Pool{New: func() any { b := make([]byte, 0, chunkSize); return &b }}

// WriteParts writes a successful response whose body is the concatenation
// of parts, byte for byte what WriteResponse writes for the joined body:
// the same headers, and gzip for a body larger than GzipThreshold when the
// request allows it. The parts are gathered into large writes and never
// joined in memory, so a list of cached item encodings costs little more
// than copying them to the connection (and compressing them, for gzip).
// The error is the writer's.
func WriteParts(w http.ResponseWriter, r *http.Request, res Result, code int, parts []Part) error {
	size := 0
	for i := range parts {
		size += parts[i].Len()
	}
	h := w.Header()
	h.Set("Content-Type", res.ContentType())
	h.Set("X-Content-Type-Options", "nosniff")
	var zw *gzip.Writer
	if Gzips(r, size) {
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
		h.Del("Content-Length")
		zw = newGzipWriter(w)
		defer gzipWriters.Put(zw)
	} else {
		h.Set("Content-Length", strconv.Itoa(size))
	}
	w.WriteHeader(code)
	cw := chunkWriter{w: w}
	if zw != nil {
		cw.w = zw
	}
	bp := chunks.Get().(*[]byte)
	cw.b = (*bp)[:0]
	defer func() {
		*bp = cw.b[:0]
		chunks.Put(bp)
	}()
	for i := range parts {
		cw.write(parts[i].Sep)
		cw.write(parts[i].Plain)
	}
	if err := cw.flush(); err != nil || zw == nil {
		return err
	}
	return zw.Close()
}

// chunkWriter gathers small pieces into large writes and passes large
// pieces through.
type chunkWriter struct {
	w interface {
		Write([]byte) (int, error)
	}
	b   []byte
	err error
}

func (c *chunkWriter) write(p []byte) {
	if c.err != nil {
		return
	}
	if len(c.b)+len(p) > chunkSize {
		if c.flush() != nil {
			return
		}
		if len(p) >= chunkSize {
			_, c.err = c.w.Write(p)
			return
		}
	}
	c.b = append(c.b, p...)
}

func (c *chunkWriter) flush() error {
	if c.err == nil && len(c.b) > 0 {
		_, c.err = c.w.Write(c.b)
	}
	c.b = c.b[:0]
	return c.err
}
