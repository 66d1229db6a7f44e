package demo

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/server"
)

// FuzzRequest sends arbitrary requests through the handler: it must never
// panic, and every failure must be a Status with a 4xx code (a 5xx would
// be the server's fault), the documented 500 for a resourceVersion on
// create, or kube-apiserver's plain-text 500 for a path it cannot make
// request info of (/api//watch, /api/v1/watch).
func FuzzRequest(f *testing.F) {
	for _, seed := range []struct{ method, path, ct, body string }{
		{"GET", "/api/v1/namespaces/ns1/configmaps?limit=1&labelSelector=app%3Dx", "", ""},
		{"POST", "/api/v1/namespaces/ns1/configmaps", "application/json", `{"metadata":{"name":"a"},"data":{"k":"v"}}`},
		{"POST", "/api/v1/namespaces/ns1/configmaps", "application/vnd.kubernetes.protobuf", "k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap\x12\x04\x0a\x02\x0a\x00\x1a\x00\x22\x00"},
		{"POST", "/api/v1/namespaces", "application/yaml", "metadata:\n  name: b\n"},
		{"PUT", "/api/v1/namespaces/ns1/configmaps/cm", "application/json", `{"metadata":{"name":"cm"},"data":{"x":"y"}}`},
		{"PATCH", "/api/v1/namespaces/ns1/configmaps/cm", "application/strategic-merge-patch+json", `{"metadata":{"$setElementOrder/finalizers":["a"],"finalizers":["a"]}}`},
		{"PATCH", "/api/v1/namespaces/ns1/configmaps/cm", "application/json-patch+json", `[{"op":"copy","from":"/data","path":"/metadata/labels"}]`},
		{"PATCH", "/api/v1/namespaces/ns1/configmaps/cm", "application/merge-patch+json", `{"metadata":{"finalizers":["x"]}}`},
		{"DELETE", "/api/v1/namespaces/ns1/configmaps/cm", "application/vnd.kubernetes.protobuf", "k8s\x00\x0a\x12\x0a\x02v1\x12\x0cDeleteOptions\x12\x02\x18\x01\x1a\x00\x22\x00"},
		{"DELETE", "/api/v1/namespaces/ns1", "", ""},
		{"DELETE", "/apis/example.apisem.dev/v1/namespaces/ns1/widgets?labelSelector=a", "", ""},
		{"GET", "/api/v1/watch/namespaces/ns1/configmaps/cm?resourceVersion=0", "", ""},
	} {
		f.Add(seed.method, seed.path, seed.ct, []byte(seed.body))
	}
	s, err := New(Options{Watch: server.WatchOptions{FutureWait: time.Millisecond, Timeout: time.Millisecond}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Shutdown(context.Background()) })
	for _, body := range []string{`{"metadata":{"name":"ns1"}}`} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("POST", "/api/v1/namespaces", strings.NewReader(body)))
	}
	f.Fuzz(func(t *testing.T, method, path, ct string, body []byte) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n#") || strings.ContainsAny(method, " /\r\n") || method == "" {
			return
		}
		req, err := http.NewRequest(method, "http://fuzz"+path, bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", ct)
		// Watches stream until their timeout; cut them short.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req.WithContext(ctx))
		// A request that outlived the deadline (a slow machine) gets the
		// server's 504 for it, which is right.
		timedOut := w.Code == http.StatusGatewayTimeout && ctx.Err() != nil
		documented := strings.Contains(w.Body.String(), "resourceVersion should not be set") ||
			strings.Contains(w.Body.String(), "failed to create RequestInfo")
		if w.Code >= 500 && !timedOut && !documented {
			t.Fatalf("%s %s (%s) %q: %d %s", method, path, ct, body, w.Code, w.Body.String())
		}
	})
}
