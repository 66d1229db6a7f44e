package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
)

// A subresource with a handler of its own, as a Pod's log: the server
// routes and authorizes the request, lists the subresource in discovery,
// answers another method with its 405, and Serve answers the rest.
func ExampleSubresource() {
	res := *gizmos
	res.Subresources = []server.Subresource{{
		Name: "describe", Verbs: []string{"get"},
		Serve: func(w http.ResponseWriter, r *http.Request, req server.SubresourceRequest) error {
			o, err := req.Store.Get(r.Context(), req.Namespace, req.Name, rv.Read{Semantics: rv.MostRecent})
			if err != nil {
				return err // the store's 404, written as a Status
			}
			w.Header().Set("Content-Type", "text/plain")
			_, err = fmt.Fprintf(w, "a %s gizmo\n", o.(*Gizmo).Spec.Color)
			return err
		},
	}}
	s, err := server.New(server.Options{Resources: []*server.Resource{&res}})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())
	g := &Gizmo{Spec: GizmoSpec{Color: "red"}}
	g.Name, g.Namespace = "g", "default"
	if _, err := s.Create(context.Background(), &res, g); err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	for _, rq := range []struct{ method, path string }{
		{"GET", "/apis/demo.io/v1/namespaces/default/gizmos/g/describe"},
		{"GET", "/apis/demo.io/v1/namespaces/default/gizmos/nope/describe"},
		{"DELETE", "/apis/demo.io/v1/namespaces/default/gizmos/g/describe"},
	} {
		req, _ := http.NewRequest(rq.method, ts.URL+rq.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b = []byte(resp.Status + "\n")
		}
		fmt.Print(string(b))
	}
	// Output:
	// a red gizmo
	// 404 Not Found
	// 405 Method Not Allowed
}
