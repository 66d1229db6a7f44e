package negotiation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/klauspost/compress/gzip"
	"sigs.k8s.io/yaml"
)

// A ListBody is the compact JSON of a list response in pieces, which WriteList
// writes in any text representation one item at a time, so that the list
// is never held whole in memory in either form: kube-apiserver 1.33+
// streams JSON and protobuf lists the same way (KEP-5116, "Streaming
// Encoding for LIST Responses").
type ListBody struct {
	// Head and Tail surround the items: Head ends with the '[' that opens
	// the items array and Tail begins with the ']' that closes it. When
	// Len is 0 the body is Head followed by Tail, which may then write
	// the items as null.
	Head, Tail []byte
	// Len is the number of items.
	Len int
	// Item returns the compact JSON of item i, with no surrounding
	// space. WriteList neither modifies nor keeps it, so it may be a
	// cached encoding.
	Item func(i int) ([]byte, error)
}

// ErrBodyTruncated is wrapped by the error of WriteList when writing or
// encoding failed after the status line was sent: the caller can no
// longer answer with an error and should end the connection
// (panic(http.ErrAbortHandler)) so that the client does not take the cut
// body for a whole one.
var ErrBodyTruncated = errors.New("negotiation: response body cut short")

// Cost of converting an item, per byte of its JSON, reserved in a Budget:
// YAML parses the JSON into a tree of interfaces and emits it again, and
// indenting grows a buffer by doubling.
const (
	yamlCost   = 8
	indentCost = 3
)

// WriteList writes a successful list response in res's text media type
// (JSON, indented JSON or YAML; res must ask for no conversion, which the
// caller did to produce l), byte for byte what Result.Encode makes of the
// joined compact JSON: each item is converted alone, as it appears inside
// the list. b, if not nil, is reserved for each conversion (see Budget).
//
// Headers are those of WriteResponse, except that a body past
// GzipThreshold that is not compressed has no Content-Length (it is sent
// chunked, as Kubernetes sends its lists): the first GzipThreshold bytes
// are held back to decide, so that a small body and an error found early
// are answered as before: an error found before anything is sent is
// returned as is, for the caller to answer; any later one wraps
// ErrBodyTruncated.
func WriteList(w http.ResponseWriter, r *http.Request, res Result, code int, l ListBody, b *Budget) error {
	if res.MediaType == Protobuf {
		return ErrNoProtobuf
	}
	bw := newBodyWriter(w, r, code, res.ContentType())
	defer bw.release()
	err := writeList(r.Context(), bw, res, l, b)
	if err == nil {
		// Not on error: a clean end would pass a cut body for whole.
		err = bw.close()
	}
	if err != nil && bw.sent {
		err = fmt.Errorf("%w: %w", ErrBodyTruncated, err)
	}
	return err
}

func writeList(ctx context.Context, bw *bodyWriter, res Result, l ListBody, b *Budget) error {
	if l.Len == 0 {
		body, err := res.fromJSON(append(append(make([]byte, 0, len(l.Head)+len(l.Tail)+1), l.Head...), l.Tail...))
		if err != nil {
			return err
		}
		bw.write(body)
		return bw.err
	}
	var cost int64
	var pre, sep, post []byte
	// The skeleton is the list with one item, 0, rendered whole: what
	// precedes and follows the sentinel is what precedes and follows the
	// items; a string cannot hold the raw newlines around it.
	skeleton := append(append(append(make([]byte, 0, len(l.Head)+len(l.Tail)+2), l.Head...), '0'), l.Tail...)
	switch {
	case res.MediaType == YAML:
		cost = yamlCost
		y, err := yaml.JSONToYAML(skeleton)
		if err != nil {
			return err
		}
		i := bytes.Index(y, []byte("\n- 0\n"))
		if i < 0 {
			return fmt.Errorf("negotiation: the items of a list are not a top-level array")
		}
		pre, post = y[:i+1], y[i+len("\n- 0\n"):]
	case res.Pretty:
		cost = indentCost
		var buf bytes.Buffer
		if err := json.Indent(&buf, skeleton, "", "  "); err != nil {
			return err
		}
		y := buf.Bytes()
		const sentinel = "[\n    0\n  ]"
		i := bytes.Index(y, []byte(sentinel))
		if i < 0 {
			return fmt.Errorf("negotiation: the items of a list are not a top-level array")
		}
		pre, sep, post = y[:i+len("[\n    ")], []byte(",\n    "), y[i+len("[\n    0"):]
	default:
		pre, sep, post = l.Head, []byte{','}, append(l.Tail[:len(l.Tail):len(l.Tail)], '\n')
	}
	bw.write(pre)
	var out bytes.Buffer
	for i := range l.Len {
		item, err := l.Item(i)
		if err != nil {
			return err
		}
		if i > 0 {
			bw.write(sep)
		}
		if cost == 0 {
			bw.write(item)
		} else {
			n := cost * int64(len(item))
			if err := b.acquire(ctx, n); err != nil {
				return err
			}
			out.Reset()
			err = convertItem(&out, res, item)
			// Released before writing: a slow client holds no reservation,
			// only the converted item.
			b.release(n)
			if err != nil {
				return err
			}
			bw.write(out.Bytes())
		}
		if bw.err != nil {
			return bw.err
		}
	}
	bw.write(post)
	return bw.err
}

// convertItem writes to out the item's form inside a list in res's media
// type: indented two levels deep in JSON; in YAML, a sequence entry of a
// top-level key, rendered as such so that the emitter folds long lines at
// the columns where the whole list has them.
func convertItem(out *bytes.Buffer, res Result, item []byte) error {
	if res.MediaType != YAML {
		return json.Indent(out, item, "    ", "  ")
	}
	doc := make([]byte, 0, len(item)+len(`{"a":[]}`))
	doc = append(append(append(doc, `{"a":[`...), item...), "]}"...)
	y, err := yaml.JSONToYAML(doc)
	if err != nil {
		return err
	}
	out.Write(bytes.TrimPrefix(y, []byte("a:\n")))
	return nil
}

// bodyWriter writes a successful response of unknown size: it holds back
// the first GzipThreshold bytes, then commits to gzip (when the request
// allows it) or to a chunked body, and gathers small pieces into large
// writes.
type bodyWriter struct {
	w         http.ResponseWriter
	r         *http.Request
	code      int
	ctype     string
	committed bool // the headers of a large body are decided
	sent      bool // WriteHeader was called
	zw        *gzip.Writer
	cw        chunkWriter
	bp        *[]byte // the pooled buffer behind cw.b
	err       error   // the writer's
}

func newBodyWriter(w http.ResponseWriter, r *http.Request, code int, ctype string) *bodyWriter {
	bw := &bodyWriter{w: w, r: r, code: code, ctype: ctype, bp: chunks.Get().(*[]byte)}
	bw.cw.b = (*bw.bp)[:0]
	return bw
}

// write adds p to the body; errors are kept in bw.err.
func (bw *bodyWriter) write(p []byte) {
	if bw.err != nil {
		return
	}
	if !bw.committed {
		if len(bw.cw.b)+len(p) <= GzipThreshold {
			bw.cw.b = append(bw.cw.b, p...)
			return
		}
		bw.commit()
	}
	bw.cw.write(p)
	bw.err = bw.cw.err
}

// commit sends the headers of a body larger than GzipThreshold.
func (bw *bodyWriter) commit() {
	bw.committed = true
	h := bw.w.Header()
	h.Set("Content-Type", bw.ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("Content-Length")
	bw.cw.w = bw.w
	if Gzips(bw.r, GzipThreshold+1) {
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
		bw.zw = newGzipWriter(bw.w)
		bw.cw.w = bw.zw
	}
	bw.sent = true
	bw.w.WriteHeader(bw.code)
}

// close ends the body: a body that stayed small is written whole, with
// its Content-Length.
func (bw *bodyWriter) close() error {
	if !bw.committed {
		h := bw.w.Header()
		h.Set("Content-Type", bw.ctype)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Length", strconv.Itoa(len(bw.cw.b)))
		bw.sent = true
		bw.w.WriteHeader(bw.code)
		_, err := bw.w.Write(bw.cw.b)
		return err
	}
	if err := bw.cw.flush(); err != nil || bw.zw == nil {
		return err
	}
	return bw.zw.Close()
}

// release returns the pooled buffers.
func (bw *bodyWriter) release() {
	if bw.zw != nil {
		gzipWriters.Put(bw.zw)
		bw.zw = nil
	}
	if cap(bw.cw.b) <= 2*chunkSize { // the held-back body may have grown it
		*bw.bp = bw.cw.b[:0]
	}
	chunks.Put(bw.bp)
}
