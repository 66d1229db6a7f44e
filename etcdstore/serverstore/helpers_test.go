package serverstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apisem/apisem/etcdstore/internal/etcdtest"
	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/server/servertest"
)

// newEtcd starts an etcd for the test and returns a client of it.
func newEtcd(t testing.TB) (*etcdtest.Etcd, *clientv3.Client) {
	t.Helper()
	e := etcdtest.Start(t, t.TempDir(), "http://127.0.0.1:0")
	return e, etcdtest.Client(t, e.URL)
}

// newDemo returns the demo server on etcd (not serving).
func newDemo(t testing.TB, c *clientv3.Client) *demo.Server {
	t.Helper()
	s, err := demo.New(demo.Options{Storage: serverstore.Storage(serverstore.Options{Client: c})})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newServer starts the demo server on etcd on a loopback listener;
// Cleanup shuts it down.
func newServer(t testing.TB, c *clientv3.Client) (*demo.Server, string) {
	t.Helper()
	s := newDemo(t, c)
	return s, servertest.Start(t, s)
}

// reply is a response as the tests look at it.
type reply struct {
	code int
	body string
}

func call(t testing.TB, base, method, path, body string) reply {
	t.Helper()
	var hdr []string
	if method == "PATCH" {
		hdr = []string{"Content-Type", "application/merge-patch+json"}
	}
	r := servertest.Do(t, method, base+path, body, hdr...)
	return reply{r.Code, r.Body}
}

// must sends a request that must answer code.
func must(t testing.TB, code int, base, method, path, body string) reply {
	t.Helper()
	r := call(t, base, method, path, body)
	if r.code != code {
		t.Fatalf("%s %s: %d %s; want %d", method, path, r.code, r.body, code)
	}
	return r
}

// field returns the value at a dotted path of a JSON document.
func field(t testing.TB, doc, path string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("%v: %s", err, doc)
	}
	for _, k := range strings.Split(path, ".") {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

func str(t testing.TB, doc, path string) string {
	t.Helper()
	s, _ := field(t, doc, path).(string)
	return s
}

// names returns the metadata.name of a list's items.
func names(t testing.TB, list string) []string {
	t.Helper()
	items, _ := field(t, list, "items").([]any)
	out := []string{}
	for _, it := range items {
		out = append(out, it.(map[string]any)["metadata"].(map[string]any)["name"].(string))
	}
	return out
}

// watchEvent is one event of a JSON watch stream.
type watchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// watchStream reads a watch response event by event.
type watchStream struct {
	t      testing.TB
	body   io.ReadCloser
	dec    *json.Decoder
	cancel context.CancelFunc
}

func openWatch(t testing.TB, base, path string) *watchStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		cancel()
		t.Fatalf("watch %s: %d %s", path, resp.StatusCode, b)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	return &watchStream{t: t, body: resp.Body, dec: json.NewDecoder(bufio.NewReader(resp.Body)), cancel: cancel}
}

// next returns the next event; a test fails if none comes within 10
// seconds (the request is cancelled then, so that the read ends).
func (w *watchStream) next() watchEvent {
	w.t.Helper()
	timer := time.AfterFunc(10*time.Second, w.cancel)
	defer timer.Stop()
	var e watchEvent
	if err := w.dec.Decode(&e); err != nil {
		w.t.Fatalf("reading a watch event: %v", err)
	}
	return e
}

// eventually polls cond until it holds, failing the test after 10 seconds
// (a deadline for a broken server, not a speed goal).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}
