package server

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apisem/apisem/status"
)

// A resource with Resource.Create keeps no objects: a POST to its
// collection is decoded as any create's and handed to Create, which is
// answered with a Status of success (201) or its error; the paths of
// verbs it lacks are the router's 405 where the path takes POST, else
// 404, as kube-apiserver's bindings answer (see builtin's TestBindings).
func TestResourceCreate(t *testing.T) {
	var got []CreateRequest
	bindings := &Resource{Version: "v1", Kind: "Binding", ListKind: "BindingList", Plural: "bindings", Singular: "binding",
		Namespaced: true, Verbs: []string{"create"}, New: func() Object { return &configMap{} },
		Create: func(_ context.Context, req CreateRequest) (Object, error) {
			got = append(got, req)
			switch req.Object.Meta().Name {
			case "refused":
				return nil, status.NewBadRequest("refused")
			case "answered": // a review answers the object itself
				return req.Object, nil
			}
			return nil, nil
		}}
	s := newTestServer(t, Options{Resources: []*Resource{bindings}})
	const created = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`
	for _, tc := range []struct {
		method, path, body string
		code               int
		want               string // the body's prefix
	}{
		{"POST", "/api/v1/namespaces/ns/bindings", `{"metadata":{"name":"a","uid":"u","creationTimestamp":"2020-01-01T00:00:00Z","labels":{"k":"v"}}}`, 201, created},
		{"POST", "/api/v1/namespaces/ns/bindings?dryRun=All", `{"metadata":{"name":"b","namespace":"ns"}}`, 201, created},
		{"POST", "/api/v1/namespaces//bindings", `{"metadata":{"name":"c","namespace":"other"}}`, 201, created},
		{"POST", "/api/v1/namespaces/ns/bindings", `{"metadata":{"name":"answered","uid":"u"},"data":{"k":"v"}}`, 201,
			`{"kind":"Binding","apiVersion":"v1","metadata":{"name":"answered","namespace":"ns","managedFields":[{"manager":"unknown","operation":"Update","apiVersion":"v1","time":`},
		{"POST", "/api/v1/namespaces/ns/bindings", `{"metadata":{"name":"refused"}}`, 400, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"refused"`},
		{"POST", "/api/v1/namespaces/ns/bindings", `{"metadata":{"name":"d","namespace":"other"}}`, 400, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the namespace of the provided object does not match`},
		{"POST", "/api/v1/namespaces/ns/bindings?dryRun=x", `{"metadata":{"name":"e"}}`, 422, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"CreateOptions.meta.k8s.io`},
		{"POST", "/api/v1/namespaces/ns/bindings?fieldValidation=Strict", `{"metadata":{"name":"f"},"x":1}`, 400, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Binding in version \"v1\" cannot be handled as a Binding: strict decoding error: unknown field \"x\""`},
		{"GET", "/api/v1/namespaces/ns/bindings", "", 405, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method`},
		{"DELETE", "/api/v1/namespaces/ns/bindings", "", 405, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method`},
		{"GET", "/api/v1/namespaces/ns/bindings/a", "", 404, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource"`},
		{"DELETE", "/api/v1/namespaces/ns/bindings/a", "", 404, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource"`},
		{"GET", "/api/v1/bindings", "", 404, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource"`},
		{"GET", "/api/v1/watch/namespaces/ns/bindings", "", 404, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource"`},
	} {
		r := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != tc.code || !strings.HasPrefix(w.Body.String(), tc.want) {
			t.Errorf("%s %s %s: %d %s; want %d %s", tc.method, tc.path, tc.body, w.Code, w.Body, tc.code, tc.want)
		}
	}
	// Create got the objects decoded, their namespace the URL's and the
	// system fields a client may not set dropped.
	var seen []string
	for _, req := range got {
		m := req.Object.Meta()
		seen = append(seen, m.Name+" ns="+req.Namespace+"/"+m.Namespace)
		if req.Server != s || m.UID != "" || !m.CreationTimestamp.IsZero() || req.DryRun != (m.Name == "b") {
			t.Errorf("%s: %+v", m.Name, req)
		}
	}
	if strings.Join(seen, ",") != "a ns=ns/ns,b ns=ns/ns,c ns=/,answered ns=ns/ns,refused ns=ns/ns" {
		t.Errorf("Create saw %v", seen)
	}
	if got[0].Object.Meta().Labels["k"] != "v" {
		t.Errorf("a's labels: %v", got[0].Object.Meta().Labels)
	}

	// Discovery lists the verb, and no storage version: nothing is stored.
	var l struct{ Resources []map[string]any }
	if err := json.Unmarshal(get(s, "/api/v1").Body.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Resources) != 1 || l.Resources[0]["storageVersionHash"] != nil || len(l.Resources[0]["verbs"].([]any)) != 1 {
		t.Errorf("/api/v1 lists %v", l.Resources)
	}

	// OpenAPI documents the POST alone, and no list type.
	for _, path := range []string{"/openapi/v3/api/v1", "/openapi/v2"} {
		var doc struct {
			Paths       map[string]map[string]json.RawMessage
			Definitions map[string]json.RawMessage
			Components  struct{ Schemas map[string]json.RawMessage }
		}
		if err := json.Unmarshal(get(s, path).Body.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var ops []string
		for p, m := range doc.Paths {
			for op := range m {
				if op != "parameters" {
					ops = append(ops, op+" "+p)
				}
			}
		}
		if len(ops) != 1 || ops[0] != "post /api/v1/namespaces/{namespace}/bindings" {
			t.Errorf("%s: operations %v", path, ops)
		}
		for name := range doc.Definitions {
			if strings.HasSuffix(name, "BindingList") {
				t.Errorf("%s: definition %s", path, name)
			}
		}
		for name := range doc.Components.Schemas {
			if strings.HasSuffix(name, "BindingList") {
				t.Errorf("%s: schema %s", path, name)
			}
		}
	}

	// Create serves create alone.
	for _, verbs := range [][]string{nil, {"create", "get"}} {
		r := *bindings
		r.Verbs = verbs
		if _, err := New(Options{Resources: []*Resource{&r}}); err == nil || !strings.Contains(err.Error(), "serves create alone") {
			t.Errorf("Verbs %q: %v", verbs, err)
		}
	}
}
