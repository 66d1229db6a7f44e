package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/apisem/apisem/server"
)

// A resource with CreateOnUpdate answers a PUT of a missing object as
// kube-apiserver answers one of a Lease: it creates it (201); the next
// PUT updates it (200). Without it the PUT is a 404, as for a ConfigMap.
func ExampleResource_createOnUpdate() {
	leases := *gizmos
	leases.CreateOnUpdate = true
	plain := *gizmos
	plain.Plural, plain.Singular, plain.Kind, plain.ListKind = "plains", "plain", "Plain", "PlainList"
	s, err := server.New(server.Options{Resources: []*server.Resource{&leases, &plain}})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())
	ts := httptest.NewServer(s)
	defer ts.Close()
	for _, path := range []string{"gizmos/g", "gizmos/g", "plains/p"} {
		name := path[strings.Index(path, "/")+1:]
		req, _ := http.NewRequest("PUT", ts.URL+"/apis/demo.io/v1/namespaces/default/"+path,
			strings.NewReader(`{"metadata":{"name":"`+name+`"},"spec":{"color":"red"}}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println("PUT", path, resp.Status)
	}
	// Output:
	// PUT gizmos/g 201 Created
	// PUT gizmos/g 200 OK
	// PUT plains/p 404 Not Found
}
