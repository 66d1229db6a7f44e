// Package servertest starts apisem servers for tests: on a loopback
// listener, stopped when the test ends, so that a test can start one per
// case (a server.Server starts in microseconds).
//
// # Usage
//
//	s, url := servertest.New(t, server.Options{Resources: []*server.Resource{gizmos}})
//	cfg := &rest.Config{Host: url}     // client-go, kubectl, plain net/http
//
// Start serves a server built otherwise (a composition that wraps
// server.Server, as examples/apiserver/demo does), and StartHandler puts a
// handler of the test's own in front of it, for instance one that records
// requests.
//
// # Cleanup
//
// When the test ends the server is shut down first, which ends its
// watches, and the listener after it, so no connection is left for a
// leak check to find. A Shutdown that fails or takes over five seconds
// fails the test.
package servertest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/server"
)

// Server is what Start needs of a server: to serve, and to shut down.
type Server interface {
	http.Handler
	Shutdown(ctx context.Context) error
}

// New builds a server.Server from opts and starts it as Start does. It
// returns the server and its base URL.
func New(tb testing.TB, opts server.Options) (*server.Server, string) {
	tb.Helper()
	s, err := server.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return s, Start(tb, s)
}

// Start serves s on a loopback listener until the test ends and returns
// its base URL.
func Start(tb testing.TB, s Server) string {
	tb.Helper()
	return StartHandler(tb, s, s)
}

// StartHandler serves h, which calls s (or not, as the test likes), until
// the test ends, then shuts s down and closes the listener. It returns the
// base URL.
func StartHandler(tb testing.TB, s Server, h http.Handler) string {
	tb.Helper()
	hs := httptest.NewServer(h)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			tb.Errorf("servertest: Shutdown: %v", err)
		}
		hs.Close()
	})
	return hs.URL
}

// Reply is a response as tests look at it: read whole, body as a string.
type Reply struct {
	Code   int
	Header http.Header
	Body   string
}

// Do sends one request to url with body (none when empty) and header
// name/value pairs hdr, and reads the whole response. A request that
// cannot be sent or read fails the test; any status code is returned.
func Do(tb testing.TB, method, url, body string, hdr ...string) Reply {
	tb.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return Reply{resp.StatusCode, resp.Header, string(b)}
}
