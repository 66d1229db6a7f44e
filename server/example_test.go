package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/table"
)

// Gizmo is a user's own type: TypeMeta and ObjectMeta embedded, its spec
// its own. Its OpenAPI schema (kubectl explain, server-side apply) comes
// from the json tags and the doc and apisem tags.
type Gizmo struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            GizmoSpec `json:"spec" doc:"What the gizmo should be."`
}

type GizmoSpec struct {
	Color string `json:"color,omitempty" doc:"The gizmo's color." apisem:"enum=blue|red"`
}

func (g *Gizmo) Types() *meta.TypeMeta { return &g.TypeMeta }

func (g *Gizmo) DeepCopyObject() server.Object {
	c := *g
	g.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// gizmos serves gizmos.demo.io/v1: every verb, watch, Tables, selectors,
// generation, dry run and field validation come with the server.
var gizmos = &server.Resource{
	Group: "demo.io", Version: "v1", Kind: "Gizmo", ListKind: "GizmoList",
	Plural: "gizmos", Singular: "gizmo", Namespaced: true,
	TypedListItems: true, Generation: true,
	New: func() server.Object { return &Gizmo{} },
	Columns: []table.Column{table.NameColumn,
		{Name: "Color", Type: "string", Cell: func(o meta.Object, _ time.Time) any { return o.(*Gizmo).Spec.Color }},
		table.AgeColumn},
	Fields: map[string]func(server.Object) string{"spec.color": func(o server.Object) string { return o.(*Gizmo).Spec.Color }},
	Validate: func(o, _ server.Object) []status.FieldError {
		if c := o.(*Gizmo).Spec.Color; c != "" && c != "red" && c != "blue" {
			return []status.FieldError{status.NotSupported("spec.color", c, "blue", "red")}
		}
		return nil
	},
}

// Serve a new resource: describe it, start the server, use it over HTTP
// as kubectl or client-go would.
func Example() {
	s, err := server.New(server.Options{Resources: []*server.Resource{gizmos}})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Shutdown(context.Background())

	do := func(method, path, body string) {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if method == "PATCH" {
			req.Header.Set("Content-Type", "application/merge-patch+json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var st status.Status // the body of an error
		json.NewDecoder(resp.Body).Decode(&st)
		fmt.Println(strings.TrimSpace(fmt.Sprintln(method, path, resp.StatusCode, st.Message)))
	}
	const gz = "/apis/demo.io/v1/namespaces/ns/gizmos"
	do("POST", gz, `{"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"name":"g1"},"spec":{"color":"red"}}`)
	do("POST", gz, `{"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"name":"g2"},"spec":{"color":"green"}}`)
	do("PATCH", gz+"/g1", `{"spec":{"color":"blue"}}`)

	do("PATCH", gz+"/g1", `{"metadata":{"labels":{"team":"a"}}}`) // not a spec change
	g, err := s.StoreOf(gizmos).Get(context.Background(), "ns", "g1", rv.Read{Semantics: rv.MostRecent})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("g1:", g.(*Gizmo).Spec.Color, "generation", g.Meta().Generation)
	// Output:
	// POST /apis/demo.io/v1/namespaces/ns/gizmos 201
	// POST /apis/demo.io/v1/namespaces/ns/gizmos 422 Gizmo.demo.io "g2" is invalid: spec.color: Unsupported value: "green": supported values: "blue", "red"
	// PATCH /apis/demo.io/v1/namespaces/ns/gizmos/g1 200
	// PATCH /apis/demo.io/v1/namespaces/ns/gizmos/g1 200
	// g1: blue generation 2
}
