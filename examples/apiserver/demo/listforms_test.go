package demo

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestListFormsGolden lists 60 ConfigMaps (about 250 KiB: past the gzip
// threshold) and 40 Widgets in every form a client may ask for, with and
// without gzip, and records each body's length and SHA-256 in
// testdata/TestListFormsGolden.golden. The records were made by the
// server that built list bodies whole; the streaming encoder must write
// the same bytes. Run with -update after a deliberate change.
func TestListFormsGolden(t *testing.T) {
	start := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	s, err := New(Options{Now: func() time.Time { return start }, Rand: rand.NewChaCha8([32]byte{2})})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	defer s.Shutdown(context.Background())
	post := func(path, body string) {
		resp, err := http.Post(hs.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %s", path, resp.Status)
		}
	}
	post("/api/v1/namespaces", `{"metadata":{"name":"demo"}}`)
	// Text that YAML folds at 80 columns, block scalars, strings YAML
	// must quote, and Unicode.
	text := strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit ", 80)
	for i := range 60 {
		post("/api/v1/namespaces/demo/configmaps", fmt.Sprintf(
			`{"metadata":{"name":"cm-%02d","labels":{"n":"%d"},"annotations":{"note":%q}},"data":{"text":%q,"script":"#!/bin/sh\nset -e\n  echo: %d\n","yes":"on","unicode":"héllo ✓ \u2028 %d"}}`,
			i, i, text[:1500+i*40], text[i:], i, i))
	}
	for i := range 40 {
		post("/apis/example.apisem.dev/v1/namespaces/demo/widgets", fmt.Sprintf(
			`{"metadata":{"name":"w-%02d"},"spec":{"color":"red","size":%d}}`, i, i))
	}
	const (
		table   = ";as=Table;v=v1;g=meta.k8s.io"
		partial = ";as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
	)
	forms := []struct{ path, accept string }{
		{"/api/v1/configmaps", "application/json"},
		{"/api/v1/configmaps?pretty=true", "application/json"},
		{"/api/v1/configmaps", "application/yaml"},
		{"/api/v1/configmaps", "application/vnd.kubernetes.protobuf"},
		{"/api/v1/configmaps", "application/json" + table},
		{"/api/v1/configmaps?includeObject=Object", "application/json" + table},
		{"/api/v1/configmaps?pretty=true", "application/json" + table},
		{"/api/v1/configmaps", "application/yaml" + table},
		{"/api/v1/configmaps", "application/json" + partial},
		{"/api/v1/configmaps", "application/yaml" + partial},
		{"/api/v1/configmaps", "application/vnd.kubernetes.protobuf" + partial},
		{"/api/v1/configmaps?limit=7", "application/yaml"},
		{"/api/v1/namespaces/none/configmaps", "application/yaml"},
		{"/api/v1/namespaces/none/configmaps", "application/json" + table},
		{"/apis/example.apisem.dev/v1/widgets", "application/json"},
		{"/apis/example.apisem.dev/v1/widgets?pretty=1", "application/json"},
		{"/apis/example.apisem.dev/v1/widgets", "application/yaml"},
		{"/apis/example.apisem.dev/v1/widgets", "application/yaml" + table},
	}
	var out strings.Builder
	for _, f := range forms {
		for _, gz := range []bool{false, true} {
			req, _ := http.NewRequest("GET", hs.URL+f.path, nil)
			req.Header.Set("Accept", f.accept)
			if gz {
				// Set by hand, so the transport leaves the body compressed.
				req.Header.Set("Accept-Encoding", "gzip")
			}
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			var r io.Reader = resp.Body
			enc := resp.Header.Get("Content-Encoding")
			if enc == "gzip" {
				if r, err = gzip.NewReader(resp.Body); err != nil {
					t.Fatal(err)
				}
			}
			body, err := io.ReadAll(r)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "GET %s\nAccept: %s\ngzip accepted: %v\n--> %d %s, encoding %q, %d bytes, sha256 %x\n\n",
				f.path, f.accept, gz, resp.StatusCode, resp.Header.Get("Content-Type"), enc, len(body), sha256.Sum256(body))
		}
	}
	golden := filepath.Join("testdata", t.Name()+".golden")
	if *update {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := out.String(); got != string(want) {
		t.Errorf("list bodies differ from %s:\n%s", golden, firstDiff(got, string(want)))
	}
}
