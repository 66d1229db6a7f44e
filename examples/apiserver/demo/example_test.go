package demo_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// Start a server in-process, create a namespace and a ConfigMap, and list
// the ConfigMaps as kubectl would, as a Table.
func ExampleNew() {
	s, err := demo.New(demo.Options{})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Shutdown(context.Background())

	post := func(path, body string) {
		resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println("POST", path, resp.Status)
	}
	post("/api/v1/namespaces", `{"metadata":{"name":"demo"}}`)
	post("/api/v1/namespaces/demo/configmaps", `{"metadata":{"name":"settings"},"data":{"a":"1","b":"2"}}`)

	req, _ := http.NewRequest("GET", ts.URL+"/api/v1/namespaces/demo/configmaps?includeObject=None", nil)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	// The row's last cell is the age, e.g. "0s".
	i := strings.Index(string(body), `"rows":`)
	fmt.Println(string(body[i : i+32]))
	// Output:
	// POST /api/v1/namespaces 201 Created
	// POST /api/v1/namespaces/demo/configmaps 201 Created
	// "rows":[{"cells":["settings",2,"
}
