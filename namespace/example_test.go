package namespace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
)

// A server with a cluster's namespaces: the system namespaces exist, and
// default may not be deleted
func Example() {
	l := namespace.New(namespace.Options{})
	s, err := server.New(server.Options{
		Resources: []*server.Resource{l.Resource()},
		Admission: l.Admission(server.Admission{}),
	})
	if err != nil {
		panic(err)
	}
	l.Bind(s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- l.Run(ctx) }()
	if err := l.CreateSystemNamespaces(ctx); err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s)

	for _, req := range []struct{ method, path string }{
		{"GET", "/api/v1/namespaces/kube-system"},
		{"DELETE", "/api/v1/namespaces/default"},
		{"DELETE", "/api/v1/namespaces"},
	} {
		r, _ := http.NewRequest(req.method, ts.URL+req.path, nil)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			panic(err)
		}
		var st struct{ Message string }
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		fmt.Println(strings.TrimSpace(fmt.Sprint(req.method, " ", req.path, " ", resp.StatusCode, " ", st.Message)))
	}

	cancel()
	<-done
	s.Shutdown(context.Background())
	ts.Close()
	// Output:
	// GET /api/v1/namespaces/kube-system 200
	// DELETE /api/v1/namespaces/default 403 namespaces "default" is forbidden: this namespace may not be deleted
	// DELETE /api/v1/namespaces 405 the server does not allow this method on the requested resource
}
