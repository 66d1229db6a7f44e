package server

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha512"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	openapiv3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"

	"github.com/apisem/apisem/status"
)

// Serving the OpenAPI documents as kube-apiserver serves them
// (k8s.io/kube-openapi's handler for /openapi/v2, handler3 for
// /openapi/v3):
//
//   - Each document is JSON or, for clients that ask, the protobuf of
//     github.com/google/gnostic-models (client-go's OpenAPISchema reads
//     /openapi/v2 only so). The ETag is the quoted SHA-512 of the JSON in
//     upper-case hex, the same for both forms, and If-None-Match with it
//     answers 304 (net/http's ServeContent, as kube-openapi's).
//   - /openapi/v3 lists each group version's document at a URL with its
//     hash. Asked with the current hash, a document is immutable
//     (Cache-Control: public, immutable, Expires a year on); with a stale
//     one, 301 to the current URL.
//   - /openapi/v2 is gzipped for clients that accept it, from 1400 bytes
//     (kube-openapi wraps it in NYTimes/gziphandler, whose minimum that
//     is); /openapi/v3 is not, as a cluster's is not.
//   - A request that accepts none of the forms gets a bare 406, as from a
//     cluster. A path that names no document is a 404 as a cluster's: empty
//     under /openapi/v3/, plain text under /openapi/v2/.
//
// The documents belong to one registry version: a change of resources (a
// CustomResourceDefinition) builds a new registry and with it new
// documents, so every encoding is done once per change, on first use, and
// never per request.

// Media types of the OpenAPI protobuf forms. A cluster accepts both
// spellings and answers with the second.
const (
	openAPIv2Proto           = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	openAPIv2ProtoDeprecated = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	openAPIv3Proto           = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
	openAPIv3ProtoDeprecated = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

// gzipMinSize is the smallest body gzipped: gziphandler's DefaultMinSize.
const gzipMinSize = 1400

// openAPIDocs are the OpenAPI documents of one registry version.
type openAPIDocs struct {
	modified time.Time              // when they were built: Last-Modified
	root     *openAPIDoc            // /openapi/v3
	docs     map[string]*openAPIDoc // /openapi/v3/<path>
	v2       *openAPIDoc            // /openapi/v2
}

// openAPIDoc is one document: its JSON and ETag, and the forms derived
// from the JSON, each encoded on first use and kept.
type openAPIDoc struct {
	json  []byte
	hash  string // SHA-512 of json, upper-case hex
	etag  string // hash, quoted
	proto func() ([]byte, error)
	// gzipped forms, by whether the body is the protobuf.
	gzipJSON  func() ([]byte, error)
	gzipProto func() ([]byte, error)
}

// newOpenAPIDocs wraps the documents buildOpenAPI returns.
func newOpenAPIDocs(root []byte, docs map[string][]byte, v2 []byte, err error) (*openAPIDocs, error) {
	if err != nil {
		return nil, err
	}
	d := &openAPIDocs{
		modified: time.Now(),
		root:     newOpenAPIDoc(root, nil),
		docs:     make(map[string]*openAPIDoc, len(docs)),
		v2:       newOpenAPIDoc(v2, parseOpenAPIv2),
	}
	for p, b := range docs {
		d.docs[p] = newOpenAPIDoc(b, parseOpenAPIv3)
	}
	return d, nil
}

func parseOpenAPIv2(b []byte) (proto.Message, error) { return openapiv2.ParseDocument(b) }
func parseOpenAPIv3(b []byte) (proto.Message, error) { return openapiv3.ParseDocument(b) }

// newOpenAPIDoc wraps a document's JSON; parse, if not nil, turns it into
// its gnostic message, for the protobuf forms.
func newOpenAPIDoc(b []byte, parse func([]byte) (proto.Message, error)) *openAPIDoc {
	sum := sha512.Sum512(b)
	hash := strings.ToUpper(hex.EncodeToString(sum[:]))
	d := &openAPIDoc{json: b, hash: hash, etag: strconv.Quote(hash)}
	if parse != nil {
		d.proto = sync.OnceValues(func() ([]byte, error) {
			m, err := parse(b)
			if err != nil {
				return nil, err
			}
			return proto.MarshalOptions{Deterministic: true}.Marshal(m)
		})
		d.gzipProto = sync.OnceValues(func() ([]byte, error) {
			p, err := d.proto()
			if err != nil {
				return nil, err
			}
			return gzipBytes(p)
		})
	}
	d.gzipJSON = sync.OnceValues(func() ([]byte, error) { return gzipBytes(b) })
	return d
}

func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// openAPIForm is a form a client may ask for: the media types it is
// asked by and the one it is answered with.
type openAPIForm struct {
	typ, sub    string
	contentType string
	proto       bool
}

var (
	openAPIv2Forms = []openAPIForm{
		{"application", "json", contentTypeJSON, false},
		{"application", strings.TrimPrefix(openAPIv2ProtoDeprecated, "application/"), openAPIv2Proto, true},
		{"application", strings.TrimPrefix(openAPIv2Proto, "application/"), openAPIv2Proto, true},
	}
	openAPIv3Forms = []openAPIForm{
		{"application", "json", contentTypeJSON, false},
		{"application", strings.TrimPrefix(openAPIv3Proto, "application/"), openAPIv3Proto, true},
		{"application", strings.TrimPrefix(openAPIv3ProtoDeprecated, "application/"), openAPIv3Proto, true},
	}
)

// negotiateOpenAPI picks the form for an Accept header as kube-openapi
// does: the ranges by weight, the specific before wildcards, and in each
// the first form it matches. An absent header accepts anything. The
// header is parsed here rather than by package negotiation because the
// media types of the protobuf forms have an "@", which is no token
// character, and a cluster accepts it all the same.
func negotiateOpenAPI(accept string, forms []openAPIForm) (openAPIForm, bool) {
	if strings.TrimSpace(accept) == "" {
		accept = "*/*"
	}
	ranges := parseOpenAPIAccept(accept)
	slices.SortStableFunc(ranges, func(a, b openAPIRange) int {
		if a.q != b.q {
			return cmp.Compare(b.q, a.q)
		}
		return a.wildcards() - b.wildcards()
	})
	for _, m := range ranges {
		for _, f := range forms {
			if (m.typ == "*" || strings.EqualFold(m.typ, f.typ)) && (m.sub == "*" || strings.EqualFold(m.sub, f.sub)) {
				return f, true
			}
		}
	}
	return openAPIForm{}, false
}

// openAPIRange is a media range of an Accept header.
type openAPIRange struct {
	typ, sub string
	q        float64
}

func (m openAPIRange) wildcards() int {
	n := 0
	if m.typ == "*" {
		n += 2
	}
	if m.sub == "*" {
		n++
	}
	return n
}

// maxOpenAPIRanges bounds the ranges read from one header.
const maxOpenAPIRanges = 64

// parseOpenAPIAccept reads the media ranges of an Accept header with a
// weight above zero, as goautoneg (kube-openapi's parser) reads them:
// "type/subtype" or "*", then ";"-separated parameters of which only q
// matters. Malformed ranges are skipped.
func parseOpenAPIAccept(header string) []openAPIRange {
	var out []openAPIRange
	for part := range strings.SplitSeq(header, ",") {
		if len(out) == maxOpenAPIRanges {
			break
		}
		mt, params, _ := strings.Cut(part, ";")
		mt = strings.TrimSpace(mt)
		m := openAPIRange{q: 1}
		if mt == "*" {
			m.typ, m.sub = "*", "*"
		} else {
			var ok bool
			if m.typ, m.sub, ok = strings.Cut(mt, "/"); !ok || strings.Contains(m.sub, "/") {
				continue
			}
			m.typ, m.sub = strings.TrimSpace(m.typ), strings.TrimSpace(m.sub)
			if m.typ == "" || m.sub == "" {
				continue
			}
		}
		for p := range strings.SplitSeq(params, ";") {
			k, v, _ := strings.Cut(p, "=")
			if strings.TrimSpace(k) == "q" {
				q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					q = 0
				}
				m.q = q
			}
		}
		if m.q > 0 {
			out = append(out, m)
		}
	}
	return out
}

// serveOpenAPI answers /openapi/v2, /openapi/v3 and /openapi/v3/<path>;
// segs are the path's segments.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, d *discovery, segs []string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		// discoveryDoc answers the method with the Status a cluster does.
		s.discoveryDoc(w, r, nil, "", "")
		return
	}
	docs, err := d.openAPI()
	if err != nil {
		s.writeError(w, r, nil, err)
		return
	}
	h := w.Header()
	switch {
	case segs[1] == "v2" && len(segs) == 2:
		h.Add("Vary", "Accept-Encoding")
		h.Add("Vary", "Accept")
		f, ok := negotiateOpenAPI(r.Header.Get("Accept"), openAPIv2Forms)
		if !ok {
			w.WriteHeader(http.StatusNotAcceptable)
			return
		}
		s.serveOpenAPIDoc(w, r, docs, docs.v2, f, true)
	case segs[1] == "v2":
		// Nothing is served under /openapi/v2/: kube-apiserver's mux
		// answers its plain-text 404.
		http.NotFound(w, r)
	case len(segs) == 2:
		h.Set("Etag", docs.root.etag)
		h.Set("Content-Type", contentTypeJSON)
		http.ServeContent(bodyWriter{w}, r, "", docs.modified, bytes.NewReader(docs.root.json))
	default:
		p := strings.Join(segs[2:], "/")
		doc := docs.docs[p]
		if doc == nil {
			// kube-openapi's v3 handler answers a document it does not
			// have with an empty 404.
			w.WriteHeader(http.StatusNotFound)
			return
		}
		h.Add("Vary", "Accept")
		f, ok := negotiateOpenAPI(r.Header.Get("Accept"), openAPIv3Forms)
		if !ok {
			w.WriteHeader(http.StatusNotAcceptable)
			return
		}
		if hash := r.URL.Query().Get("hash"); hash != "" {
			if hash != doc.hash {
				// A stale link: where the document is now. The headers are
				// set first, so Redirect writes no body, as a cluster's.
				h.Set("Content-Type", f.contentType)
				h.Set("Etag", doc.etag)
				http.Redirect(w, r, openAPIv3URL(p, doc.hash), http.StatusMovedPermanently)
				return
			}
			h.Set("Cache-Control", "public, immutable")
			h.Set("Expires", time.Now().UTC().AddDate(1, 0, 0).Format(time.RFC1123))
		}
		s.serveOpenAPIDoc(w, r, docs, doc, f, false)
	}
}

// openAPIv3URL is the server-relative URL of a document with its hash.
func openAPIv3URL(path, hash string) string {
	return "/openapi/v3/" + path + "?" + url.Values{"hash": {hash}}.Encode()
}

// serveOpenAPIDoc writes doc in form f; gzipped, if gz and the client
// accepts it.
func (s *Server) serveOpenAPIDoc(w http.ResponseWriter, r *http.Request, docs *openAPIDocs, doc *openAPIDoc, f openAPIForm, gz bool) {
	body, zipped := doc.json, doc.gzipJSON
	if f.proto {
		var err error
		if body, err = doc.proto(); err != nil {
			s.writeError(w, r, nil, status.NewInternalError(err))
			return
		}
		zipped = doc.gzipProto
	}
	h := w.Header()
	// A range request is served from the identity body, whose length
	// ServeContent knows.
	if gz && len(body) >= gzipMinSize && r.Header.Get("Range") == "" && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		z, err := zipped()
		if err != nil {
			s.writeError(w, r, nil, status.NewInternalError(err))
			return
		}
		body = z
		// ServeContent leaves an encoded body's length unset.
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(len(z)))
	}
	h.Set("Content-Type", f.contentType)
	h.Set("Etag", doc.etag)
	http.ServeContent(bodyWriter{w}, r, "", docs.modified, bytes.NewReader(body))
}

// acceptsGzip reports whether an Accept-Encoding header gives gzip a
// weight above zero.
func acceptsGzip(header string) bool {
	for _, e := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(e, ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(p, "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				var err error
				if q, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
					q = 0
				}
			}
		}
		return q > 0
	}
	return false
}

// bodyWriter lets http.ServeContent write an in-memory body without a
// copy buffer: it copies with io.CopyN, which allocates one per response
// unless the writer is an io.ReaderFrom, and the server's writers are
// wrapped by its filters, which hides net/http's.
type bodyWriter struct{ http.ResponseWriter }

func (w bodyWriter) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if br, ok := lr.R.(*bytes.Reader); ok && int64(br.Len()) <= lr.N {
			return br.WriteTo(w.ResponseWriter)
		}
	}
	return io.Copy(w.ResponseWriter, r)
}
