package suite

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server/servertest"
)

// Server is the example server as the suite drives it: it serves,
// compacts its history (as demo.Server.Compact) and shuts down. A
// *demo.Server is one; so is a handler spreading requests over several
// replicas of one storage.
type Server interface {
	servertest.Server
	Compact() rv.Version
}

// NewServer returns a new, empty example server built from opts, which
// the caller completes (with a Storage, say); the suite serves it and
// shuts it down when the test ends.
type NewServer func(t *testing.T, opts demo.Options) Server

// Run runs every test of the suite, each as a subtest on servers of its
// own from newServer. Runs may be parallel if their servers share no
// storage (a compaction, say, must not reach another run's servers).
func Run(t *testing.T, newServer NewServer) {
	e := env{newServer: newServer}
	for _, tc := range []struct {
		name string
		test func(*testing.T)
	}{
		{"TypedConfigMapCRUD", e.typedConfigMapCRUD},
		{"CreateRules", e.createRules},
		{"StrictFieldValidation", e.strictFieldValidation},
		{"FinalizerDeletion", e.finalizerDeletion},
		{"NamespaceDeletion", e.namespaceDeletion},
		{"DynamicClientCustomResource", e.dynamicClientCustomResource},
		{"MetadataClient", e.metadataClient},
		{"DynamicClientStatusSubresource", e.dynamicClientStatusSubresource},
		{"PagerConstantResourceVersion", e.pagerConstantResourceVersion},
		{"ContinueAfterCompaction", e.continueAfterCompaction},
		{"TableWithKubectlAccept", e.tableWithKubectlAccept},
		{"Informer", e.informer},
		{"ReflectorRecoversFrom410", e.reflectorRecoversFrom410},
		{"WatchBookmarks", e.watchBookmarks},
		{"TypedApplyConfigMap", e.typedApplyConfigMap},
		{"DynamicApplyWidget", e.dynamicApplyWidget},
		{"ApplyStatusSubresource", e.applyStatusSubresource},
		{"EventRecorderAndSearch", e.eventRecorderAndSearch},
		{"CustomResourceDefinition", e.customResourceDefinition},
		{"AggregatedDiscovery", e.aggregatedDiscovery},
		{"OpenAPIV3Client", e.openAPIV3Client},
		{"KubectlServerSideApply", e.kubectlServerSideApply},
		{"KubectlScaleCustomResource", e.kubectlScaleCustomResource},
		{"GarbageCollection", e.garbageCollection},
	} {
		t.Run(tc.name, tc.test)
	}
}

// env is what the tests share: how to get a server.
type env struct{ newServer NewServer }

// testServer is a server on an httptest listener, with the requests it
// served.
type testServer struct {
	Server
	URL string

	mu       sync.Mutex
	requests []string // "METHOD path?query"
}

// start serves a new server for the test; Cleanup shuts it down (ending
// its watches first, so httptest's Close does not wait for them).
func (e env) start(t *testing.T, opts demo.Options) *testServer {
	t.Helper()
	s := e.newServer(t, opts)
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

// Eventually polls cond until it holds or 10 seconds pass (a deadline
// for a broken server, not a speed goal).
func Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Next returns the next event of w, failing the test if none comes within
// 10 seconds or the watch ends (a deadline for a broken server, not a
// speed goal): a test must never wait on a watch for ever.
func Next(t *testing.T, w watch.Interface, what string) watch.Event {
	t.Helper()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("the watch ended before %s", what)
		}
		return ev
	case <-timer.C:
		t.Fatalf("timed out waiting for %s", what)
	}
	panic("unreachable")
}
