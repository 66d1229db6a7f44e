package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	openapiv3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
)

const gadgetDoc = "/openapi/v3/apis/test.apisem.dev/v1"

// jsonETag is the ETag a cluster gives a document: its JSON's SHA-512 in
// upper-case hex, quoted.
func jsonETag(b []byte) string {
	sum := sha512.Sum512(b)
	return strconv.Quote(strings.ToUpper(hex.EncodeToString(sum[:])))
}

// v3URL is the hashed URL /openapi/v3 lists for a document path.
func v3URL(t *testing.T, s *Server, path string) string {
	t.Helper()
	var root openAPIRoot
	if err := json.Unmarshal(get(s, "/openapi/v3").Body.Bytes(), &root); err != nil {
		t.Fatal(err)
	}
	ref, ok := root.Paths[strings.TrimPrefix(path, "/openapi/v3/")]
	if !ok {
		t.Fatalf("/openapi/v3 does not list %s: %v", path, root.Paths)
	}
	return ref.ServerRelativeURL
}

// The forms are negotiated as kube-openapi negotiates them: JSON or
// gnostic's protobuf under either spelling of its media type, answered
// with the current spelling; nothing acceptable is a bare 406.
func TestOpenAPINegotiation(t *testing.T) {
	s := newTestServer(t, Options{})
	const (
		v2pb  = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" // client-go's
		v2pb2 = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
		v3pb  = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf" // client-go's
		v3pb2 = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
	)
	for _, tt := range []struct {
		path, accept string
		code         int
		contentType  string
	}{
		{"/openapi/v2", "", 200, "application/json"},
		{"/openapi/v2", "application/json", 200, "application/json"},
		{"/openapi/v2", "*/*", 200, "application/json"},
		{"/openapi/v2", "application/*", 200, "application/json"},
		{"/openapi/v2", v2pb, 200, v2pb2},
		{"/openapi/v2", v2pb2, 200, v2pb2},
		{"/openapi/v2", v2pb + ", application/json", 200, v2pb2},
		{"/openapi/v2", "application/json;q=0.5, " + v2pb, 200, v2pb2},
		{"/openapi/v2", "*/*, " + v2pb, 200, v2pb2}, // the specific before the wildcard
		{"/openapi/v2", v3pb, 406, ""},
		{"/openapi/v2", "application/yaml", 406, ""},
		{"/openapi/v2", "application/json;q=0", 406, ""},
		{gadgetDoc, "", 200, "application/json"},
		{gadgetDoc, v3pb, 200, v3pb2},
		{gadgetDoc, v3pb2, 200, v3pb2},
		{gadgetDoc, v2pb, 406, ""},
		{"/openapi/v3", v3pb, 200, "application/json"}, // the index is JSON only
	} {
		w := get(s, tt.path, "Accept", tt.accept)
		if w.Code != tt.code || w.Header().Get("Content-Type") != tt.contentType {
			t.Errorf("GET %s Accept %q: %d %q; want %d %q", tt.path, tt.accept, w.Code, w.Header().Get("Content-Type"), tt.code, tt.contentType)
		}
		if w.Code == 406 && w.Body.Len() != 0 {
			t.Errorf("GET %s Accept %q: 406 with a body %q; a cluster's has none", tt.path, tt.accept, w.Body)
		}
	}
}

// The protobuf forms are gnostic's messages of the same documents.
func TestOpenAPIProtobuf(t *testing.T) {
	s := newTestServer(t, Options{})
	var j2 struct {
		Paths       map[string]any `json:"paths"`
		Definitions map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(get(s, "/openapi/v2").Body.Bytes(), &j2); err != nil {
		t.Fatal(err)
	}
	var d2 openapiv2.Document
	if err := proto.Unmarshal(get(s, "/openapi/v2", "Accept", openAPIv2ProtoDeprecated).Body.Bytes(), &d2); err != nil {
		t.Fatal(err)
	}
	if d2.GetSwagger() != "2.0" || len(d2.GetPaths().GetPath()) != len(j2.Paths) || len(d2.GetDefinitions().GetAdditionalProperties()) != len(j2.Definitions) {
		t.Errorf("v2 protobuf: swagger %q, %d paths, %d definitions; want 2.0, %d, %d", d2.GetSwagger(),
			len(d2.GetPaths().GetPath()), len(d2.GetDefinitions().GetAdditionalProperties()), len(j2.Paths), len(j2.Definitions))
	}
	found := false
	for _, p := range d2.GetDefinitions().GetAdditionalProperties() {
		if p.GetName() == "dev.apisem.test.v1.GadgetSpec" {
			found = p.GetValue().GetDescription() == "GadgetSpec is what a gadget should be."
		}
	}
	if !found {
		t.Error("v2 protobuf: GadgetSpec's definition is missing or differs")
	}

	var j3 struct {
		Paths      map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(get(s, gadgetDoc).Body.Bytes(), &j3); err != nil {
		t.Fatal(err)
	}
	var d3 openapiv3.Document
	if err := proto.Unmarshal(get(s, gadgetDoc, "Accept", openAPIv3ProtoDeprecated).Body.Bytes(), &d3); err != nil {
		t.Fatal(err)
	}
	if d3.GetOpenapi() != "3.0.0" || len(d3.GetPaths().GetPath()) != len(j3.Paths) || len(d3.GetComponents().GetSchemas().GetAdditionalProperties()) != len(j3.Components.Schemas) {
		t.Errorf("v3 protobuf: openapi %q, %d paths, %d schemas; want 3.0.0, %d, %d", d3.GetOpenapi(), len(d3.GetPaths().GetPath()),
			len(d3.GetComponents().GetSchemas().GetAdditionalProperties()), len(j3.Paths), len(j3.Components.Schemas))
	}
}

// Every document has the ETag of its JSON, in both forms, and
// If-None-Match with it is 304 Not Modified.
func TestOpenAPIETag(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, tt := range []struct{ path, accept string }{
		{"/openapi/v2", ""},
		{"/openapi/v2", openAPIv2ProtoDeprecated},
		{"/openapi/v3", ""},
		{gadgetDoc, ""},
		{gadgetDoc, openAPIv3ProtoDeprecated},
	} {
		doc := get(s, tt.path).Body.Bytes()
		w := get(s, tt.path, "Accept", tt.accept)
		etag := w.Header().Get("Etag")
		if w.Code != 200 || etag != jsonETag(doc) {
			t.Errorf("GET %s Accept %q: %d ETag %s; want 200 %s", tt.path, tt.accept, w.Code, etag, jsonETag(doc))
			continue
		}
		if w.Header().Get("Last-Modified") == "" {
			t.Errorf("GET %s: no Last-Modified", tt.path)
		}
		w = get(s, tt.path, "Accept", tt.accept, "If-None-Match", etag)
		if w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("Etag") != etag {
			t.Errorf("GET %s If-None-Match current: %d %d bytes ETag %s; want 304, no body", tt.path, w.Code, w.Body.Len(), w.Header().Get("Etag"))
		}
		if w = get(s, tt.path, "Accept", tt.accept, "If-None-Match", `"stale"`); w.Code != 200 || w.Body.Len() == 0 {
			t.Errorf("GET %s If-None-Match stale: %d", tt.path, w.Code)
		}
	}
}

// A group version's document at the URL /openapi/v3 lists is immutable;
// at a stale hash it is a 301 to the current URL, without a body; without
// a hash it is neither.
func TestOpenAPIHashedURLs(t *testing.T) {
	s := newTestServer(t, Options{})
	current := v3URL(t, s, gadgetDoc)
	for _, accept := range []string{"", openAPIv3ProtoDeprecated} {
		w := get(s, current, "Accept", accept)
		if w.Code != 200 || w.Header().Get("Cache-Control") != "public, immutable" || w.Header().Get("Expires") == "" || w.Header().Get("Vary") != "Accept" {
			t.Errorf("GET %s Accept %q: %d %v; want 200, public, immutable, Expires, Vary: Accept", current, accept, w.Code, w.Header())
		}
		stale := gadgetDoc + "?hash=0123"
		w = get(s, stale, "Accept", accept)
		if w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != current || w.Body.Len() != 0 || w.Header().Get("Cache-Control") != "" {
			t.Errorf("GET %s Accept %q: %d Location %q, %d bytes, Cache-Control %q; want 301 to %s, no body, not cacheable",
				stale, accept, w.Code, w.Header().Get("Location"), w.Body.Len(), w.Header().Get("Cache-Control"), current)
		}
	}
	if w := get(s, gadgetDoc); w.Code != 200 || w.Header().Get("Cache-Control") != "" || w.Header().Get("Expires") != "" {
		t.Errorf("GET %s without a hash: %d %v; want 200, not immutable", gadgetDoc, w.Code, w.Header())
	}
}

// /openapi/v2 is gzipped for a client that accepts it; /openapi/v3 is
// not, as on a cluster.
func TestOpenAPIGzip(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, tt := range []struct {
		path, accept, encoding string
		gzipped                bool
	}{
		{"/openapi/v2", "", "gzip", true},
		{"/openapi/v2", openAPIv2ProtoDeprecated, "gzip", true},
		{"/openapi/v2", "", "deflate, gzip;q=0.5", true},
		{"/openapi/v2", "", "gzip;q=0", false},
		{"/openapi/v2", "", "", false},
		{"/openapi/v2", "", "br", false},
		{gadgetDoc, "", "gzip", false},
		{"/openapi/v3", "", "gzip", false},
	} {
		plain := get(s, tt.path, "Accept", tt.accept).Body.Bytes()
		w := get(s, tt.path, "Accept", tt.accept, "Accept-Encoding", tt.encoding)
		body := w.Body.Bytes()
		if got := w.Header().Get("Content-Encoding") == "gzip"; got != tt.gzipped {
			t.Errorf("GET %s Accept-Encoding %q: gzipped %v; want %v", tt.path, tt.encoding, got, tt.gzipped)
			continue
		}
		if tt.gzipped {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
			if n, _ := strconv.Atoi(w.Header().Get("Content-Length")); n != w.Body.Len() {
				t.Errorf("GET %s gzipped: Content-Length %d, body %d", tt.path, n, w.Body.Len())
			}
		}
		if !bytes.Equal(body, plain) {
			t.Errorf("GET %s Accept-Encoding %q: the body differs from the identity one", tt.path, tt.encoding)
		}
		if strings.HasPrefix(tt.path, "/openapi/v2") && !strings.Contains(strings.Join(w.Header().Values("Vary"), ","), "Accept-Encoding") {
			t.Errorf("GET %s: Vary %q lacks Accept-Encoding", tt.path, w.Header().Values("Vary"))
		}
	}
}

// A range of /openapi/v2 is a range of the identity body, gzip accepted
// or not, and a byte range of what a full GET returns.
func TestOpenAPIRange(t *testing.T) {
	s := newTestServer(t, Options{})
	full := get(s, "/openapi/v2").Body.Bytes()
	w := get(s, "/openapi/v2", "Range", "bytes=10-19", "Accept-Encoding", "gzip")
	if w.Code != http.StatusPartialContent || w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), full[10:20]) ||
		w.Header().Get("Content-Length") != "10" {
		t.Errorf("GET /openapi/v2 bytes=10-19: %d %v %q; want 206 with %q", w.Code, w.Header(), w.Body, full[10:20])
	}
}

// A resource added at run time changes the documents: new ETags, a new
// hash for its group version, and a redirect from the old one; the
// encodings are kept per registry version and not redone per request.
func TestOpenAPIChangesWithResources(t *testing.T) {
	s := newTestServer(t, Options{})
	v2 := get(s, "/openapi/v2", "Accept", openAPIv2ProtoDeprecated)
	oldURL := v3URL(t, s, gadgetDoc)

	docs, err := s.reg.Load().disco.openAPI()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := s.reg.Load().disco.openAPI()
	p1, _ := docs.v2.proto()
	p2, _ := again.v2.proto()
	if docs != again || &p1[0] != &p2[0] {
		t.Error("the documents of one registry version are built more than once")
	}

	if err := s.AddResource(&Resource{Group: "test.apisem.dev", Version: "v1", Kind: "Widget", ListKind: "WidgetList",
		Plural: "widgets", Singular: "widget", New: func() Object { return &gadget{} }}); err != nil {
		t.Fatal(err)
	}
	w := get(s, "/openapi/v2", "Accept", openAPIv2ProtoDeprecated, "If-None-Match", v2.Header().Get("Etag"))
	if w.Code != 200 || bytes.Equal(w.Body.Bytes(), v2.Body.Bytes()) {
		t.Errorf("GET /openapi/v2 after AddResource with the old ETag: %d, same body %v; want 200 and the new document", w.Code, bytes.Equal(w.Body.Bytes(), v2.Body.Bytes()))
	}
	var d2 openapiv2.Document
	if err := proto.Unmarshal(w.Body.Bytes(), &d2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.Body.String(), "/apis/test.apisem.dev/v1/widgets") {
		t.Error("the new protobuf /openapi/v2 lacks the widgets' paths")
	}
	newURL := v3URL(t, s, gadgetDoc)
	if newURL == oldURL {
		t.Fatal("the hash of the changed group version is the same")
	}
	if w := get(s, oldURL); w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != newURL {
		t.Errorf("GET %s (old): %d to %q; want 301 to %s", oldURL, w.Code, w.Header().Get("Location"), newURL)
	}
	if now, _ := s.reg.Load().disco.openAPI(); now == docs {
		t.Error("the documents were not rebuilt for the new registry version")
	}
}

// Serving a cached form allocates a small constant amount whatever the
// document's size: the encodings are not redone per request.
func TestOpenAPIServedFromCache(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, tt := range []struct{ accept, encoding string }{
		{"", ""},
		{openAPIv2ProtoDeprecated, ""},
		{openAPIv2ProtoDeprecated, "gzip"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/openapi/v2", nil)
		r.Header.Set("Accept", tt.accept)
		r.Header.Set("Accept-Encoding", tt.encoding)
		w := &discardWriter{h: http.Header{}}
		s.ServeHTTP(w, r) // builds the documents and their encodings
		encode := testing.AllocsPerRun(1, func() {
			docs, _ := newOpenAPIDocs(buildOpenAPI(s.Resources(), mustDefs(t, s), "v0"))
			docs.v2.proto()
		})
		serve := testing.AllocsPerRun(20, func() {
			clear(w.h)
			s.ServeHTTP(w, r)
		})
		if serve*10 > encode {
			t.Errorf("Accept %q Accept-Encoding %q: serving allocates %.0f times, encoding %.0f; serving re-encodes", tt.accept, tt.encoding, serve, encode)
		}
	}
}

func mustDefs(t *testing.T, s *Server) *definitions {
	defs, err := buildDefinitions(s.Resources())
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

func BenchmarkOpenAPIv2(b *testing.B) {
	s, err := New(Options{Resources: testResources()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Shutdown(b.Context()) })
	for _, bb := range []struct{ name, accept, encoding, ifNoneMatch string }{
		{"json", "", "", ""},
		{"protobuf", openAPIv2ProtoDeprecated, "", ""},
		{"protobuf-gzip", openAPIv2ProtoDeprecated, "gzip", ""},
		{"not-modified", openAPIv2ProtoDeprecated, "", "current"},
	} {
		b.Run(bb.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, "/openapi/v2", nil)
			r.Header.Set("Accept", bb.accept)
			r.Header.Set("Accept-Encoding", bb.encoding)
			w := &discardWriter{h: http.Header{}}
			s.ServeHTTP(w, r)
			if bb.ifNoneMatch != "" {
				r.Header.Set("If-None-Match", w.h.Get("Etag"))
			}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				s.ServeHTTP(w, r)
			}
		})
	}
	// The cost paid once per registry version, for comparison.
	b.Run("encode-once", func(b *testing.B) {
		defs, err := buildDefinitions(s.Resources())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			docs, _ := newOpenAPIDocs(buildOpenAPI(s.Resources(), defs, "v0"))
			if _, err := docs.v2.proto(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "gzip;q=0", "deflate, gzip;q=0.5", "GZIP ; Q=1", "gzip;q=abc", "", ";;,,=", "gzip;q=0.0, gzip"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		got := acceptsGzip(h)
		if got && !strings.Contains(strings.ToLower(h), "gzip") {
			t.Errorf("acceptsGzip(%q) without gzip in it", h)
		}
	})
}

func FuzzParseOpenAPIAccept(f *testing.F) {
	for _, s := range []string{"", "*/*", "*", openAPIv2ProtoDeprecated + ";q=0.9, application/json;q=0.5", "a/b/c", "/", "application/json;q=x;q", ",,;;", "text/*;q=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		ranges := parseOpenAPIAccept(h)
		if len(ranges) > maxOpenAPIRanges {
			t.Fatalf("%d ranges", len(ranges))
		}
		for _, m := range ranges {
			if m.q <= 0 || m.typ == "" || m.sub == "" {
				t.Errorf("parseOpenAPIAccept(%q): range %+v", h, m)
			}
		}
		negotiateOpenAPI(h, openAPIv2Forms)
	})
}
