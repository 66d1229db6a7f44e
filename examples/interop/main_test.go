package interop

import (
	"context"
	"github.com/apisem/apisem/server/servertest"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apisem/apisem/examples/apiserver/demo"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// testServer is the example server on an httptest listener, with the
// requests it served.
type testServer struct {
	*demo.Server
	URL string

	mu       sync.Mutex
	requests []string // "METHOD path?query"
}

// start runs a server for the test; Cleanup shuts it down (ending its
// watches first, so httptest's Close does not wait for them). It is for the
// tests that are not in package suite (controller-runtime's, CEL's: too
// heavy for every module that runs the suite).
func start(t *testing.T, opts demo.Options) *testServer {
	t.Helper()
	s, err := demo.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: s}
	ts.URL = servertest.StartHandler(t, s, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		ts.requests = append(ts.requests, r.Method+" "+r.URL.RequestURI())
		ts.mu.Unlock()
		s.ServeHTTP(w, r)
	}))
	return ts
}

// served returns the requests whose "METHOD uri" contains every part.
func (ts *testServer) served(parts ...string) []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var out []string
next:
	for _, r := range ts.requests {
		for _, p := range parts {
			if !strings.Contains(r, p) {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

// config is a client configuration for the server, JSON unless protobuf.
func (ts *testServer) config(protobuf bool) *rest.Config {
	c := &rest.Config{Host: ts.URL, QPS: -1}
	if protobuf {
		c.ContentType = "application/vnd.kubernetes.protobuf"
		c.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	return c
}

func (ts *testServer) clientset(t *testing.T, protobuf bool) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(ts.config(protobuf))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// namespace creates a namespace through the API.
func namespace(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond until it holds or 10 seconds pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func ptr[T any](v T) *T { return &v }

func isEstablished(d *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}
