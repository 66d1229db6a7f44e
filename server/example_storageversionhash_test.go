package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"

	"github.com/apisem/apisem/server"
)

// Two versions of one custom resource, stored as v1: both give v1's
// hash in discovery, as kube-apiserver gives them.
func ExampleStorageVersionHash() {
	stored := server.StorageVersionHash("example.apisem.dev", "v1", "Widget")
	var res []*server.Resource
	for _, v := range []string{"v1", "v1beta1"} {
		res = append(res, server.UnstructuredResource(server.Resource{
			Group: "example.apisem.dev", Version: v, Kind: "Widget", ListKind: "WidgetList",
			Plural: "widgets", Singular: "widget", Namespaced: true, Custom: true,
			StorageVersionHash: stored,
		}))
	}
	s, err := server.New(server.Options{Resources: res})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())
	for _, v := range []string{"v1", "v1beta1"} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", "/apis/example.apisem.dev/"+v, nil))
		var l struct {
			Resources []struct{ StorageVersionHash string }
		}
		if err := json.Unmarshal(w.Body.Bytes(), &l); err != nil {
			panic(err)
		}
		fmt.Println(v, l.Resources[0].StorageVersionHash)
	}
	fmt.Println("a ConfigMap:", server.StorageVersionHash("", "v1", "ConfigMap"))
	// Output:
	// v1 xAgbw+S4sYA=
	// v1beta1 xAgbw+S4sYA=
	// a ConfigMap: qFsyl6wFWjQ=
}
