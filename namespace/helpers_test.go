package namespace_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// testServer serves namespaces with their lifecycle, plus configmaps and
// secrets as unstructured core resources; the controller runs until the
// test ends.
func testServer(t testing.TB, opts namespace.Options) (*server.Server, *namespace.Lifecycle, string) {
	t.Helper()
	l := namespace.New(opts)
	core := func(kind, plural string) *server.Resource {
		return server.UnstructuredResource(server.Resource{Version: "v1", Kind: kind, ListKind: kind + "List",
			Plural: plural, Singular: strings.ToLower(kind), Namespaced: true})
	}
	s, err := server.New(server.Options{
		Resources: []*server.Resource{l.Resource(), core("ConfigMap", "configmaps"), core("Secret", "secrets")},
		Admission: l.Admission(server.Admission{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	l.Bind(s)
	base := servertest.Start(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Run returned %v; want context.Canceled", err)
		}
	})
	return s, l, base
}

// reply is a response as the tests look at it.
type reply struct {
	code int
	body string
}

// call sends one request; hdr holds header name/value pairs.
func call(t testing.TB, base, method, path, body string, hdr ...string) reply {
	t.Helper()
	r := servertest.Do(t, method, base+path, body, hdr...)
	return reply{r.Code, r.Body}
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

// waitStore waits until cond holds, looking again after every write to
// the server's store.
func waitStore(t testing.TB, s *server.Server, what string, cond func() bool) {
	t.Helper()
	timeout := time.NewTimer(10 * time.Second) // a guard for a broken server, not a sync
	defer timeout.Stop()
	for {
		rev := s.Revision()
		if cond() {
			return
		}
		select {
		case <-s.Store().Changed(rev):
		case <-timeout.C:
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}
