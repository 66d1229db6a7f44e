package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/apisem/apisem/server"
)

// A user's filter: it counts the requests that reach the handler by verb
// and resource, from the request value the server parsed once
// (RequestInfoFrom), and names the verb in a response header.
func ExampleOptions_filters() {
	var mu sync.Mutex
	counts := map[string]int{}
	countRequests := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if info, ok := server.RequestInfoFrom(r.Context()); ok && info.ResourceRequest {
				mu.Lock()
				counts[info.Verb+" "+info.Resource]++
				mu.Unlock()
				w.Header().Set("X-Verb", info.Verb)
			}
			next.ServeHTTP(w, r)
		})
	}
	s, err := server.New(server.Options{
		Resources: []*server.Resource{gizmos},
		Hooks:     server.HookOptions{Filters: []func(http.Handler) http.Handler{countRequests}},
	})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())

	do := func(method, path, body string) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		s.ServeHTTP(rec, req)
		fmt.Println(method, path, rec.Code, rec.Header().Get("X-Verb"))
	}
	const gizmosPath = "/apis/demo.io/v1/namespaces/default/gizmos"
	do("POST", gizmosPath, `{"metadata":{"name":"g1"}}`)
	do("GET", gizmosPath+"/g1", "")
	do("GET", gizmosPath, "")
	do("GET", gizmosPath+"?w%61tch=1&timeoutSeconds=-1", "")
	do("DELETE", gizmosPath, "")
	do("GET", "/apis/demo.io/v1/namespaces/default/doohickeys", "")

	mu.Lock()
	defer mu.Unlock()
	for _, k := range []string{"create gizmos", "get gizmos", "list gizmos", "watch gizmos", "deletecollection gizmos", "list doohickeys"} {
		fmt.Printf("%-24s %d\n", k, counts[k])
	}
	// Output:
	// POST /apis/demo.io/v1/namespaces/default/gizmos 201 create
	// GET /apis/demo.io/v1/namespaces/default/gizmos/g1 200 get
	// GET /apis/demo.io/v1/namespaces/default/gizmos 200 list
	// GET /apis/demo.io/v1/namespaces/default/gizmos?w%61tch=1&timeoutSeconds=-1 200 watch
	// DELETE /apis/demo.io/v1/namespaces/default/gizmos 200 deletecollection
	// GET /apis/demo.io/v1/namespaces/default/doohickeys 404 list
	// create gizmos            1
	// get gizmos               1
	// list gizmos              1
	// watch gizmos             1
	// deletecollection gizmos  1
	// list doohickeys          1
}
