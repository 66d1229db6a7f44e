package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync/atomic"

	"github.com/apisem/apisem/server"
)

// A composition adds its own checks to the health endpoints: here a
// readiness check that passes once a startup task is done, as
// kube-apiserver's /readyz waits for its post-start hooks.
func ExampleHealthCheck() {
	var started atomic.Bool
	s, err := server.New(server.Options{
		Resources: []*server.Resource{gizmos},
		Hooks: server.HookOptions{
			HealthChecks: []server.HealthCheck{{
				Name:      "poststarthook/load-fixtures",
				Endpoints: server.Readyz,
				Check: func(context.Context) error {
					if !started.Load() {
						return errors.New("fixtures not loaded yet")
					}
					return nil
				},
			}},
		},
	})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())
	probe := func(path string) {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		fmt.Printf("GET %s: %d\n%s\n", path, w.Code, w.Body)
	}
	probe("/readyz?verbose")
	started.Store(true)
	probe("/readyz?verbose")
	probe("/livez?verbose")
	// Output:
	// GET /readyz?verbose: 500
	// [+]ping ok
	// [-]poststarthook/load-fixtures failed: reason withheld
	// [+]shutdown ok
	// readyz check failed
	//
	// GET /readyz?verbose: 200
	// [+]ping ok
	// [+]poststarthook/load-fixtures ok
	// [+]shutdown ok
	// readyz check passed
	//
	// GET /livez?verbose: 200
	// [+]ping ok
	// livez check passed
}
