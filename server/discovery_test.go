package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/openapi"
	"github.com/apisem/apisem/version"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// gadget is the test package's own type: a custom resource with a schema.
type gadget struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		Size int64 `json:"size,omitempty"`
	} `json:"spec"`
}

func (g *gadget) Types() *meta.TypeMeta { return &g.TypeMeta }
func (g *gadget) DeepCopyObject() Object {
	c := *g
	g.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// testResources are a cluster-scoped core kind without a Schema (so with
// the one derived from its Go type) and a namespaced custom resource with
// one, in two versions of its group.
func testResources() []*Resource {
	gadgetSchema := &openapi.Schema{Type: "object", Description: "Gadget is a test kind.",
		Properties: map[string]*openapi.Schema{
			"spec": {Ref: "dev.apisem.test.v1.GadgetSpec", Description: "What the gadget should be."},
		}}
	defs := map[string]*openapi.Schema{
		"dev.apisem.test.v1.GadgetSpec": {Type: "object", Description: "GadgetSpec is what a gadget should be.",
			Properties: map[string]*openapi.Schema{
				"size":   {Type: "integer", Format: "int64", Description: "The gadget's size."},
				"labels": {Type: "object", AdditionalProperties: &openapi.Schema{Type: "string"}},
				"born":   {Ref: openapi.TimeSchema},
			}},
	}
	return []*Resource{
		{Version: "v1", Kind: "Knob", ListKind: "KnobList", Plural: "knobs", Singular: "knob",
			New: func() Object { return &gadget{} }},
		{Group: "test.apisem.dev", Version: "v1", Kind: "Gadget", ListKind: "GadgetList",
			Plural: "gadgets", Singular: "gadget", ShortNames: []string{"gd"}, Categories: []string{"all"}, StatusSubresource: true,
			Namespaced: true, TypedListItems: true, Schema: gadgetSchema, Definitions: defs,
			New: func() Object { return &gadget{} }},
		{Group: "test.apisem.dev", Version: "v1beta1", Kind: "Gadget", ListKind: "GadgetList",
			Plural: "gadgets", Singular: "gadget", Namespaced: true, TypedListItems: true,
			New: func() Object { return &gadget{} }},
	}
}

func newTestServer(t *testing.T, opts Options) *Server {
	t.Helper()
	if opts.Resources == nil {
		opts.Resources = testResources()
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return s
}

func get(s *Server, path string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// golden compares got with testdata/<name>, JSON indented for review, and
// rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	if json.Valid(got) {
		var b bytes.Buffer
		// The final newline of a compact document is not the shape's.
		if err := json.Indent(&b, bytes.TrimSuffix(got, []byte("\n")), "", "  "); err != nil {
			t.Fatal(err)
		}
		b.WriteByte('\n')
		got = b.Bytes()
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (run go test -update and review the diff):\n%s", name, path, got)
	}
}

const acceptAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

// The documents, byte for byte: each golden file states the shape a
// client parses.
func TestDocumentsGolden(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, tt := range []struct {
		path, accept, file string
		reason             string
	}{
		{"/api", acceptAggregated, "aggregated-api.json", "the core group as client-go asks for it"},
		{"/apis", acceptAggregated, "aggregated-apis.json", "named groups, versions in registration order (the first preferred)"},
		{"/apis", "application/json", "apis.json", "the unaggregated group list, both versions"},
		{"/apis/test.apisem.dev/v1beta1", "", "resources-v1beta1.json", "an unaggregated resource list"},
		{"/openapi/v3", "", "openapi-v3-root.json", "one document per group version, with its hash"},
		{"/openapi/v3/api/v1", "", "openapi-v3-api-v1.json", "a kind without a Schema has its Go type's"},
		{"/openapi/v3/apis/test.apisem.dev/v1", "", "openapi-v3-test-v1.json", "a kind with a schema, its definitions and the meta ones"},
		{"/openapi/v2", "", "openapi-v2.json", "everything in Swagger 2.0"},
	} {
		w := get(s, tt.path, "Accept", tt.accept)
		if w.Code != 200 {
			t.Errorf("GET %s: %d %s", tt.path, w.Code, w.Body)
			continue
		}
		golden(t, tt.file, w.Body.Bytes())
	}
}

// Aggregated discovery is served when the client's most preferred
// acceptable entry asks for it, as kube-apiserver negotiates.
func TestDiscoveryNegotiation(t *testing.T) {
	s := newTestServer(t, Options{})
	const (
		plain    = "application/json"
		agg      = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
		aggProto = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	)
	for _, tt := range []struct{ accept, want string }{
		{"", plain},
		{"application/json", plain},
		{"*/*", plain},
		{acceptAggregated, agg}, // client-go's header
		{"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer," + acceptAggregated, agg},
		{"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", plain}, // v2beta1 is no longer served
		{"application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", plain},     // header order
		{"application/json;q=0.5, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", agg}, // quality first
		{"application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json", aggProto},
		{"application/json;as=Table;v=v1;g=meta.k8s.io,application/json", plain},
		{"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0,application/json", plain},
		{"application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", aggProto},
		{"application/vnd.kubernetes.protobuf, application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "application/vnd.kubernetes.protobuf"},
	} {
		for _, path := range []string{"/api", "/apis"} {
			w := get(s, path, "Accept", tt.accept)
			if got := w.Header().Get("Content-Type"); w.Code != 200 || got != tt.want {
				t.Errorf("GET %s Accept %q: %d Content-Type %q; want %q", path, tt.accept, w.Code, got, tt.want)
			}
			if vary := w.Header().Get("Vary"); (tt.want == agg || tt.want == aggProto) != (vary == "Accept") {
				t.Errorf("GET %s Accept %q: Vary %q", path, tt.accept, vary)
			}
		}
	}
}

// The aggregated documents carry an ETag; a client that sends it back in
// If-None-Match gets 304 and no body.
func TestDiscoveryETag(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, path := range []string{"/api", "/apis"} {
		w := get(s, path, "Accept", acceptAggregated)
		etag := w.Header().Get("ETag")
		if len(etag) != 2+128 || etag[0] != '"' || w.Header().Get("Cache-Control") != "public" {
			t.Fatalf("GET %s: ETag %q, Cache-Control %q", path, etag, w.Header().Get("Cache-Control"))
		}
		w = get(s, path, "Accept", acceptAggregated, "If-None-Match", etag)
		if w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("ETag") != etag {
			t.Errorf("GET %s If-None-Match: %d %q", path, w.Code, w.Body)
		}
		w = get(s, path, "Accept", acceptAggregated, "If-None-Match", `"stale"`)
		if w.Code != 200 || w.Body.Len() == 0 {
			t.Errorf("GET %s stale If-None-Match: %d", path, w.Code)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, tt := range []struct {
		opt  version.Info
		want string
	}{
		// kube-apiserver 1.37.1 answers "major":"1","minor":"37","emulationMajor":"1","emulationMinor":"37",
		// "minCompatibilityMajor":"1","minCompatibilityMinor":"36","gitVersion":"v1.37.1",...
		{version.Info{}, `"major":"1","minor":"37","emulationMajor":"1","emulationMinor":"37","minCompatibilityMajor":"1","minCompatibilityMinor":"36",` +
			`"gitVersion":"v1.37.0+apisem","gitCommit":"","gitTreeState":"clean","buildDate":"1970-01-01T00:00:00Z"`},
		{version.Info{Major: "1", Minor: "36", GitCommit: "abc", BuildDate: "2026-01-02T03:04:05Z"},
			`"major":"1","minor":"36","emulationMajor":"1","emulationMinor":"36","minCompatibilityMajor":"1","minCompatibilityMinor":"35",` +
				`"gitVersion":"v1.36.0+apisem","gitCommit":"abc","gitTreeState":"clean","buildDate":"2026-01-02T03:04:05Z"`},
		{version.Info{GitVersion: "v9.9.9", GitTreeState: "dirty", EmulationMinor: "35", MinCompatibilityMinor: "34"},
			`"major":"1","minor":"37","emulationMajor":"1","emulationMinor":"35","minCompatibilityMajor":"1","minCompatibilityMinor":"34","gitVersion":"v9.9.9","gitCommit":"","gitTreeState":"dirty"`},
	} {
		s := newTestServer(t, Options{Version: tt.opt})
		// Indented as kube-apiserver's (TestTranscriptRouter); compared
		// compact.
		w := get(s, "/version")
		var b bytes.Buffer
		if err := json.Compact(&b, w.Body.Bytes()); w.Code != 200 || err != nil || !strings.Contains(b.String(), tt.want) {
			t.Errorf("Version %+v: /version %d %s; want %s", tt.opt, w.Code, w.Body, tt.want)
		}
	}
}

// The health endpoints answer as kube-apiserver's: "ok", or the checks
// with ?verbose, and readyz fails once shutdown has begun.
func TestHealth(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, tt := range []struct {
		path string
		code int
		body string
	}{
		{"/healthz", 200, "ok"},
		{"/livez", 200, "ok"},
		{"/readyz", 200, "ok"},
		{"/healthz?verbose", 200, "[+]ping ok\nhealthz check passed\n"},
		{"/readyz?verbose=1", 200, "[+]ping ok\n[+]shutdown ok\nreadyz check passed\n"},
		{"/readyz?verbose&exclude=ping", 200, "[+]ping excluded: ok\n[+]shutdown ok\nreadyz check passed\n"},
		{"/livez?verbose&exclude=etcd&exclude=b", 200, "[+]ping ok\nwarn: some health checks cannot be excluded: no matches for \"b\",\"etcd\"\nlivez check passed\n"},
		{"/livez/ping", 200, "ok"},
		{"/readyz/shutdown", 200, "ok"},
	} {
		w := get(s, tt.path)
		if w.Code != tt.code || w.Body.String() != tt.body || w.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("GET %s: %d %q; want %d %q", tt.path, w.Code, w.Body, tt.code, tt.body)
		}
	}
	if w := get(s, "/healthz/etcd"); w.Code != 404 {
		t.Errorf("GET /healthz/etcd: %d", w.Code)
	}
	s.Shutdown(context.Background())
	for _, tt := range []struct {
		path string
		code int
		body string
	}{
		{"/readyz", 500, "[+]ping ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n"},
		{"/readyz?exclude=shutdown", 200, "ok"},
		{"/livez", 200, "ok"},
	} {
		if w := get(s, tt.path); w.Code != tt.code || w.Body.String() != tt.body {
			t.Errorf("after Shutdown, GET %s: %d %q; want %d %q", tt.path, w.Code, w.Body, tt.code, tt.body)
		}
	}
}

// New refuses schemas that refer to undefined definitions or give one
// name two meanings.
func TestSchemaErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func([]*Resource)
		want string
	}{
		{"dangling ref", func(rs []*Resource) { delete(rs[1].Definitions, "dev.apisem.test.v1.GadgetSpec") },
			"dev.apisem.test.v1.Gadget refers to dev.apisem.test.v1.GadgetSpec, which is not defined"},
		{"two meanings", func(rs []*Resource) {
			rs[2].Definitions = map[string]*openapi.Schema{"dev.apisem.test.v1.GadgetSpec": {Type: "string"}}
		}, "dev.apisem.test.v1.GadgetSpec defined twice"},
	} {
		rs := testResources()
		tt.edit(rs)
		_, err := New(Options{Resources: rs})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want %q", tt.name, err, tt.want)
		}
	}
}

// A group's versions are listed by version priority, the first
// preferred, whatever the order they were registered in: a cluster
// prefers cluster-api's v1beta2 over v1beta1, and v1 over both.
func TestDiscoveryPreferredVersion(t *testing.T) {
	var rs []*Resource
	for _, v := range []string{"v1alpha1", "v1beta1", "v1", "v1beta2"} {
		rs = append(rs, &Resource{Group: "x.apisem.dev", Version: v, Kind: "Thing", ListKind: "ThingList",
			Plural: "things", Singular: "thing", New: func() Object { return &gadget{} }})
	}
	s := newTestServer(t, Options{Resources: rs})
	const versions = `"versions":[{"groupVersion":"x.apisem.dev/v1","version":"v1"},{"groupVersion":"x.apisem.dev/v1beta2","version":"v1beta2"},` +
		`{"groupVersion":"x.apisem.dev/v1beta1","version":"v1beta1"},{"groupVersion":"x.apisem.dev/v1alpha1","version":"v1alpha1"}],` +
		`"preferredVersion":{"groupVersion":"x.apisem.dev/v1","version":"v1"}`
	for _, path := range []string{"/apis", "/apis/x.apisem.dev"} {
		if w := get(s, path); !strings.Contains(w.Body.String(), versions) {
			t.Errorf("GET %s = %s\nwant %s", path, w.Body, versions)
		}
	}
	var agg struct {
		Items []struct {
			Versions []struct{ Version string }
		}
	}
	if err := json.Unmarshal(get(s, "/apis", "Accept", acceptAggregated).Body.Bytes(), &agg); err != nil || len(agg.Items) != 1 {
		t.Fatalf("aggregated /apis: %v %+v", err, agg)
	}
	var got []string
	for _, v := range agg.Items[0].Versions {
		got = append(got, v.Version)
	}
	if want := []string{"v1", "v1beta2", "v1beta1", "v1alpha1"}; !slices.Equal(got, want) {
		t.Errorf("aggregated versions %q; want %q", got, want)
	}
}
