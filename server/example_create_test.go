package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/store"
)

// A resource that keeps no objects and answers a create by acting on
// another, as kube-apiserver's bindings bind Pods: a Repaint names a
// gizmo and gives it a color. The server decodes the body as any
// create's and answers 201 with a Status; the resource has no object
// paths (404) and its collection serves POST alone (405).
func ExampleResource_create() {
	res := *gizmos
	repaints := &server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Repaint", ListKind: "RepaintList",
		Plural: "repaints", Singular: "repaint", Namespaced: true,
		New:   func() server.Object { return &Gizmo{} }, // the gizmo's name and color
		Verbs: []string{"create"},
		Create: func(ctx context.Context, req server.CreateRequest) (server.Object, error) {
			want := req.Object.(*Gizmo)
			_, err := req.Server.StoreOf(&res).GuaranteedUpdate(ctx, req.Namespace, want.Name, store.UpdateOptions{DryRun: req.DryRun},
				func(cur server.Object) (server.Object, error) {
					g := cur.DeepCopyObject().(*Gizmo)
					g.Spec.Color = want.Spec.Color
					return g, nil
				})
			return nil, err // the store's 404 for a gizmo that is not there; nil: a Status of success
		},
	}
	s, err := server.New(server.Options{Resources: []*server.Resource{&res, repaints}})
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
	const path = "/apis/demo.io/v1/namespaces/default/repaints"
	for _, rq := range []struct{ method, path, body string }{
		{"POST", path, `{"metadata":{"name":"g"},"spec":{"color":"blue"}}`},
		{"POST", path, `{"metadata":{"name":"nope"},"spec":{"color":"blue"}}`},
		{"GET", path, ""},
		{"GET", path + "/g", ""},
	} {
		req, _ := http.NewRequest(rq.method, ts.URL+rq.path, strings.NewReader(rq.body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b = []byte(resp.Status + "\n")
		}
		fmt.Print(string(b))
	}
	o, _ := s.StoreOf(&res).Get(context.Background(), "default", "g", rv.Read{Semantics: rv.MostRecent})
	fmt.Println("gizmo g is", o.(*Gizmo).Spec.Color)
	// Output:
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}
	// 404 Not Found
	// 405 Method Not Allowed
	// 404 Not Found
	// gizmo g is blue
}
