package demo

import (
	"bytes"
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata")

// step is one request of a transcript and why it is there.
type step struct {
	reason               string
	method, path, body   string
	contentType, accept  string
	compactBeforeRequest bool
}

// TestTranscript records what the server answers to a session of
// requests, byte for byte (uids and times are deterministic), in
// testdata/TestTranscript.golden. Run with -update after a deliberate
// change and review the diff.
func TestTranscript(t *testing.T) {
	const kubectlTable = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	steps := []step{
		{reason: "core discovery, as client-go asks for it", method: "GET", path: "/api/v1",
			accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"},
		{reason: "a namespace gets the kubernetes finalizer and phase Active", method: "POST", path: "/api/v1/namespaces",
			body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`},
		{reason: "create: generated uid, resourceVersion and creationTimestamp", method: "POST", path: "/api/v1/namespaces/demo/configmaps",
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","labels":{"tier":"web"}},"data":{"mode":"fast"}}`},
		{reason: "generateName", method: "POST", path: "/api/v1/namespaces/demo/configmaps",
			body: `{"metadata":{"generateName":"gen-"},"data":{"a":"1","b":"2"}}`},
		{reason: "fieldValidation=Warn (the default): Warning headers", method: "POST", path: "/api/v1/namespaces/demo/secrets",
			body: `{"metadata":{"name":"creds"},"stringData":{"user":"u"},"extra":true}`},
		{reason: "a single object as YAML", method: "GET", path: "/api/v1/namespaces/demo/configmaps/app", accept: "application/yaml"},
		{reason: "a single object in the protobuf envelope", method: "GET", path: "/api/v1/namespaces/demo/configmaps/app",
			accept: "application/vnd.kubernetes.protobuf,application/json"},
		{reason: "kubectl get: a Table with kubectl's Accept header", method: "GET", path: "/api/v1/namespaces/demo/configmaps?limit=500", accept: kubectlTable},
		{reason: "a paged list: continue token and remainingItemCount", method: "GET", path: "/api/v1/configmaps?limit=1"},
		{reason: "PartialObjectMetadataList, as the metadata client asks", method: "GET", path: "/api/v1/namespaces",
			accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"},
		{reason: "kubectl label: a strategic merge patch", method: "PATCH", path: "/api/v1/namespaces/demo/configmaps/app",
			contentType: "application/strategic-merge-patch+json", body: `{"metadata":{"labels":{"release":"v2"}}}`},
		{reason: "a stale resourceVersion is a 409 Conflict", method: "PUT", path: "/api/v1/namespaces/demo/configmaps/app",
			body: `{"metadata":{"name":"app","resourceVersion":"2"},"data":{}}`},
		{reason: "fieldValidation=Strict: a 400 naming every unknown and duplicate field", method: "POST",
			path: "/api/v1/namespaces/demo/configmaps?fieldValidation=Strict", body: `{"metadata":{"name":"x","name":"y"},"dta":{}}`},
		{reason: "server-side apply is not served", method: "PATCH", path: "/api/v1/namespaces/demo/configmaps/app",
			contentType: "application/apply-patch+yaml", body: `{}`},
		{reason: "delete of a core object answers a Status", method: "DELETE", path: "/api/v1/namespaces/demo/secrets/creds"},
		{reason: "a missing object", method: "GET", path: "/api/v1/namespaces/demo/secrets/creds"},
		{reason: "a custom resource: list items keep kind and apiVersion", method: "POST", path: "/apis/example.apisem.dev/v1/namespaces/demo/widgets",
			body: `{"metadata":{"name":"w"},"spec":{"color":"red","size":3}}`},
		{reason: "the custom resource's own Table columns", method: "GET", path: "/apis/example.apisem.dev/v1/widgets", accept: kubectlTable},
		{reason: "a watch from a compacted resourceVersion: one ERROR event", method: "GET",
			path: "/api/v1/namespaces/demo/configmaps?watch=true&resourceVersion=3", compactBeforeRequest: true},
		{reason: "deleting a namespace starts its two-phase deletion", method: "DELETE", path: "/api/v1/namespaces/demo"},
	}
	start := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	s, err := New(Options{Now: func() time.Time { return start }, Rand: rand.NewChaCha8([32]byte{1})})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	defer s.Shutdown(context.Background())

	var out bytes.Buffer
	for i, st := range steps {
		if st.reason == "" {
			panic(fmt.Sprintf("step %d has no reason", i))
		}
		if st.compactBeforeRequest {
			s.Compact()
		}
		req, _ := http.NewRequest(st.method, hs.URL+st.path, strings.NewReader(st.body))
		if st.contentType != "" {
			req.Header.Set("Content-Type", st.contentType)
		}
		if st.accept != "" {
			req.Header.Set("Accept", st.accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Fprintf(&out, "### %s\n%s %s\n", st.reason, st.method, st.path)
		if st.accept != "" {
			fmt.Fprintf(&out, "Accept: %s\n", st.accept)
		}
		if st.contentType != "" {
			fmt.Fprintf(&out, "Content-Type: %s\n", st.contentType)
		}
		if st.body != "" {
			fmt.Fprintf(&out, "\n%s\n", st.body)
		}
		fmt.Fprintf(&out, "--> %d %s\n", resp.StatusCode, resp.Header.Get("Content-Type"))
		for _, w := range resp.Header.Values("Warning") {
			fmt.Fprintf(&out, "Warning: %s\n", w)
		}
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.kubernetes.protobuf") {
			fmt.Fprintf(&out, "\n%s\n", hex.Dump(body))
		} else {
			fmt.Fprintf(&out, "\n%s\n\n", bytes.TrimRight(body, "\n"))
		}
	}
	got := regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAll(out.Bytes(), []byte("127.0.0.1:PORT"))

	golden := filepath.Join("testdata", t.Name()+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("transcript differs from %s (run with -update and review the diff):\n%s", golden, firstDiff(string(got), string(want)))
	}
}

// firstDiff shows the first differing line with some context.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, gl, wl)
		}
	}
	return ""
}
