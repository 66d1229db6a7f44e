package demo

import (
	"encoding/json"
	"github.com/apisem/apisem/server/servertest"
	"net/http"
	"strings"
	"testing"
	"time"
)

// newTestServer starts a Server on a loopback httptest listener; Cleanup
// shuts both down (the Server first, which ends its watches).
func newTestServer(t testing.TB, opts Options) (*Server, string) {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, servertest.Start(t, s)
}

// reply is a response as the tests look at it.
type reply struct {
	code   int
	header http.Header
	body   string
}

// call sends one request; hdr holds header name/value pairs.
func call(t testing.TB, base, method, path, body string, hdr ...string) reply {
	t.Helper()
	r := servertest.Do(t, method, base+path, body, hdr...)
	return reply{r.Code, r.Header, r.Body}
}

// must sends a request that must answer code.
func must(t testing.TB, code int, base, method, path, body string, hdr ...string) reply {
	t.Helper()
	r := call(t, base, method, path, body, hdr...)
	if r.code != code {
		t.Fatalf("%s %s: %d %s; want %d", method, path, r.code, r.body, code)
	}
	return r
}

// field returns the value at a dotted path of a JSON body ("metadata.name").
func field(t testing.TB, body, path string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// seed creates namespace ns with a configmap "cm" in it.
func seed(t testing.TB, base, ns string) {
	t.Helper()
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"`+ns+`"}}`)
	must(t, 201, base, "POST", "/api/v1/namespaces/"+ns+"/configmaps", `{"metadata":{"name":"cm","labels":{"app":"x"}},"data":{"k":"v"}}`)
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
