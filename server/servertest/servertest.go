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
	"net/http"
	"net/http/httptest"
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
