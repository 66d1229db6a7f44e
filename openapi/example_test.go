package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"

	"github.com/apisem/apisem/openapi"
	"github.com/apisem/apisem/server"
)

// A resource's schema, given by hand: the server publishes it in its
// OpenAPI documents, where kubectl explain reads the descriptions, with
// metadata referring to Kubernetes' ObjectMeta.
func ExampleSchema() {
	gizmos := server.UnstructuredResource(server.Resource{
		Group: "example.com", Version: "v1", Kind: "Gizmo", ListKind: "GizmoList",
		Plural: "gizmos", Singular: "gizmo", Namespaced: true,
		Schema: &openapi.Schema{Type: "object", Description: "A Gizmo is a made-up thing.",
			Properties: map[string]*openapi.Schema{
				"spec": {Type: "object", Properties: map[string]*openapi.Schema{
					"color": {Type: "string", Enum: []string{"red", "blue"}, Description: "The color of the gizmo."},
				}},
			}},
	})
	s, err := server.New(server.Options{Resources: []*server.Resource{gizmos}})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "/openapi/v3/apis/example.com/v1", nil))
	type schema struct {
		Description string
		Properties  map[string]*schema
		AllOf       []struct {
			Ref string `json:"$ref"`
		}
	}
	var doc struct {
		Components struct{ Schemas map[string]*schema }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		panic(err)
	}
	g := doc.Components.Schemas["com.example.v1.Gizmo"]
	fmt.Println(g.Description)
	fmt.Println(g.Properties["spec"].Properties["color"].Description)
	fmt.Println(g.Properties["metadata"].AllOf[0].Ref == "#/components/schemas/"+openapi.ObjectMetaSchema)
	// Output:
	// A Gizmo is a made-up thing.
	// The color of the gizmo.
	// true
}
