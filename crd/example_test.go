package crd_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/server"
)

// Example installs the definitions of a directory at start, as envtest
// does, and uses the custom resource over HTTP.
func Example() {
	defs := crd.Resource()
	s, err := server.New(server.Options{Resources: []*server.Resource{defs}})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	c := crd.Start(s, defs)
	defer c.Stop() // before Shutdown

	list, err := crd.Load("testdata/definitions")
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Install(context.Background(), list...); err != nil {
		log.Fatal(err)
	}
	for _, d := range list {
		fmt.Println("installed", d.Name)
	}

	hs := httptest.NewServer(s)
	defer hs.Close()
	post := func(body string) {
		resp, err := http.Post(hs.URL+"/apis/example.com/v1/namespaces/default/widgets", "application/json", strings.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		fmt.Println(strings.TrimSpace(fmt.Sprint(resp.StatusCode, " ", resp.Header.Get("Warning"))))
		if resp.StatusCode != http.StatusCreated {
			fmt.Println(string(b))
		}
	}
	post(`{"metadata":{"name":"w1"},"spec":{"color":"red","size":3}}`)
	post(`{"metadata":{"name":"w2"},"spec":{"color":"pink"}}`)
	// Output:
	// installed widgets.example.com
	// 201 299 - "unknown field \"spec.size\""
	// 422
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.example.com \"w2\" is invalid: spec.color: Unsupported value: \"pink\": supported values: \"red\", \"green\", \"blue\"","reason":"Invalid","details":{"name":"w2","group":"example.com","kind":"Widget","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: \"pink\": supported values: \"red\", \"green\", \"blue\"","field":"spec.color"}]},"code":422}
}
