package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// exampleCall sends one request to base and prints its status, its
// Warning headers and the message of an error.
func exampleCall(base, method, path, ctype, body string) {
	req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var st status.Status
	json.NewDecoder(resp.Body).Decode(&st)
	fmt.Println(strings.TrimSpace(fmt.Sprintln(method, path, resp.StatusCode, st.Message)))
	for _, w := range resp.Header.Values("Warning") {
		fmt.Println("  Warning:", w)
	}
}

// Admission on update: a mutating hook labels every gizmo it sees
// written, a validating one keeps a gizmo's color once it is set and
// warns of a change of team, as a cluster's admission webhooks would.
func ExampleAdmission_update() {
	admission := server.Admission{
		Mutate: func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
			m := obj.Meta()
			if m.Labels == nil {
				m.Labels = map[string]string{}
			}
			m.Labels["admitted-by"] = "example"
			return nil
		},
		Validate: func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
			if a.Operation != server.OperationUpdate {
				return nil
			}
			g, was := obj.(*Gizmo), old.(*Gizmo)
			if was.Spec.Color != "" && g.Spec.Color != was.Spec.Color {
				gr := status.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Plural}
				return status.NewForbidden(gr, a.Name, errors.New("the color is fixed once set"))
			}
			if g.Labels["team"] != was.Labels["team"] {
				server.AddWarning(ctx, "team changed by "+a.Verb)
			}
			return nil
		},
	}
	s, err := server.New(server.Options{Resources: []*server.Resource{gizmos}, Admission: admission})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Shutdown(context.Background())

	const gz = "/apis/demo.io/v1/namespaces/ns/gizmos"
	exampleCall(ts.URL, "POST", gz, "application/json", `{"metadata":{"name":"g"},"spec":{"color":"red"}}`)
	exampleCall(ts.URL, "PATCH", gz+"/g", "application/merge-patch+json", `{"spec":{"color":"blue"}}`)
	exampleCall(ts.URL, "PATCH", gz+"/g", "application/merge-patch+json", `{"metadata":{"labels":{"team":"a"}}}`)
	exampleCall(ts.URL, "PUT", gz+"/g", "application/json", `{"metadata":{"name":"g","labels":{"team":"b"}},"spec":{"color":"red"}}`)
	// Output:
	// POST /apis/demo.io/v1/namespaces/ns/gizmos 201
	// PATCH /apis/demo.io/v1/namespaces/ns/gizmos/g 403 gizmos.demo.io "g" is forbidden: the color is fixed once set
	// PATCH /apis/demo.io/v1/namespaces/ns/gizmos/g 200
	//   Warning: 299 - "team changed by patch"
	// PUT /apis/demo.io/v1/namespaces/ns/gizmos/g 200
	//   Warning: 299 - "team changed by update"
}

// Admission on delete: the validating hook sees the object to delete
// (old; obj is nil) and keeps the protected ones, for a DELETE and for
// each object of a deletecollection.
func ExampleAdmission_delete() {
	admission := server.Admission{
		Validate: func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
			if a.Operation == server.OperationDelete && old.Meta().Labels["protected"] == "true" {
				server.AddWarning(ctx, fmt.Sprintf("%s kept by the %s", old.Meta().Name, a.Verb))
				gr := status.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Plural}
				return status.NewForbidden(gr, a.Name, errors.New("it is protected"))
			}
			return nil
		},
	}
	s, err := server.New(server.Options{Resources: []*server.Resource{gizmos}, Admission: admission})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Shutdown(context.Background())

	const gz = "/apis/demo.io/v1/namespaces/ns/gizmos"
	exampleCall(ts.URL, "POST", gz, "application/json", `{"metadata":{"name":"a","labels":{"protected":"true"}}}`)
	exampleCall(ts.URL, "POST", gz, "application/json", `{"metadata":{"name":"b"}}`)
	exampleCall(ts.URL, "DELETE", gz+"/a", "", "")
	exampleCall(ts.URL, "DELETE", gz+"/b", "", "")
	exampleCall(ts.URL, "DELETE", gz, "", "")
	// Output:
	// POST /apis/demo.io/v1/namespaces/ns/gizmos 201
	// POST /apis/demo.io/v1/namespaces/ns/gizmos 201
	// DELETE /apis/demo.io/v1/namespaces/ns/gizmos/a 403 gizmos.demo.io "a" is forbidden: it is protected
	//   Warning: 299 - "a kept by the delete"
	// DELETE /apis/demo.io/v1/namespaces/ns/gizmos/b 200
	// DELETE /apis/demo.io/v1/namespaces/ns/gizmos 403 gizmos.demo.io "a" is forbidden: it is protected
	//   Warning: 299 - "a kept by the deletecollection"
}

// A resource's own admission check: while the resource is frozen, its
// objects may change and go, but no new one is created, with a 403, as
// a custom resource whose definition is being deleted refuses creates.
func ExampleResource_admit() {
	var frozen atomic.Bool
	frozenGizmos := *gizmos
	frozenGizmos.Admit = func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
		if a.Operation == server.OperationCreate && frozen.Load() {
			gr := status.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Plural}
			return status.NewForbidden(gr, a.Name, errors.New("create not allowed while frozen"))
		}
		return nil
	}
	s, err := server.New(server.Options{Resources: []*server.Resource{&frozenGizmos}})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Shutdown(context.Background())

	const gz = "/apis/demo.io/v1/namespaces/ns/gizmos"
	exampleCall(ts.URL, "POST", gz, "application/json", `{"metadata":{"name":"a"},"spec":{"color":"red"}}`)
	frozen.Store(true)
	exampleCall(ts.URL, "POST", gz, "application/json", `{"metadata":{"name":"b"}}`)
	exampleCall(ts.URL, "PATCH", gz+"/a", "application/merge-patch+json", `{"spec":{"color":"blue"}}`)
	exampleCall(ts.URL, "DELETE", gz+"/a", "", "")
	// Output:
	// POST /apis/demo.io/v1/namespaces/ns/gizmos 201
	// POST /apis/demo.io/v1/namespaces/ns/gizmos 403 gizmos.demo.io "b" is forbidden: create not allowed while frozen
	// PATCH /apis/demo.io/v1/namespaces/ns/gizmos/a 200
	// DELETE /apis/demo.io/v1/namespaces/ns/gizmos/a 200
}
