package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/apisem/apisem/server"
)

// A server sets only the options it changes: each group's zero value is
// its defaults. This one keeps an hour of history and refuses request
// bodies over 64 bytes with Kubernetes' 413.
func ExampleOptions() {
	s, err := server.New(server.Options{
		Resources: []*server.Resource{gizmos},
		History:   server.HistoryOptions{Window: time.Hour},
		Limits:    server.LimitOptions{MaxBodyBytes: 64},
	})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())
	for _, name := range []string{"g1", strings.Repeat("g", 64)} {
		body := `{"metadata":{"name":"` + name + `"}}`
		req := httptest.NewRequest("POST", "/apis/demo.io/v1/namespaces/default/gizmos", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		fmt.Println(len(body), "bytes:", w.Code)
	}
	// Output:
	// 26 bytes: 201
	// 88 bytes: 413
}
