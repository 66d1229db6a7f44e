package server_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/apisem/apisem/metrics"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/connlimit"
)

// TestServeCapsConnections: Serve applies Options.Limits.Connections. With one
// connection held, a new one is served health checks only.
func TestServeCapsConnections(t *testing.T) {
	spy := &refusals{}
	s, err := server.New(server.Options{
		Resources: []*server.Resource{gizmos},
		Limits:    server.LimitOptions{Connections: connlimit.Limits{Max: 1, Reserve: 2}},
		Hooks:     server.HookOptions{Metrics: spy},
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	base := "http://" + l.Addr().String()
	get := func(c *http.Client, path string) (int, string) {
		t.Helper()
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	first := &http.Client{Transport: &http.Transport{}}
	defer first.CloseIdleConnections()
	if code, _ := get(first, "/version"); code != 200 {
		t.Fatalf("first connection: GET /version = %d; want 200", code)
	}
	// The first connection stays open: the second client is over the cap.
	second := &http.Client{Transport: &http.Transport{}}
	defer second.CloseIdleConnections()
	if code, body := get(second, "/version"); code != 429 || body != "Too many requests, please try again later.\n" {
		t.Errorf("over the cap: GET /version = %d %q; want 429", code, body)
	}
	if code, body := get(second, "/readyz"); code != 200 || body != "ok" {
		t.Errorf("over the cap: GET /readyz = %d %q; want 200 ok", code, body)
	}
	// The refusal is counted as the in-flight limits' are: a request
	// answered 429, and a termination.
	spy.mu.Lock()
	defer spy.mu.Unlock()
	want := metrics.Request{Verb: "GET", Component: "apiserver", Code: 429, Duration: -1, ResponseSize: -1}
	if len(spy.terminated) != 1 || spy.terminated[0] != want || !slices.Contains(spy.requests, want) {
		t.Errorf("terminations %+v, requests %+v; want one each of %+v", spy.terminated, spy.requests, want)
	}
}

// refusals records the requests and terminations a server reports.
type refusals struct {
	mu         sync.Mutex
	requests   []metrics.Request
	terminated []metrics.Request
}

func (r *refusals) Request(m metrics.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, m)
}

func (r *refusals) Terminated(m metrics.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.terminated = append(r.terminated, m)
}

func (*refusals) LongRunning(metrics.Request, int)       {}
func (*refusals) WatchEvent(string, string, string, int) {}
