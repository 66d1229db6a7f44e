package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/google/go-cmp/cmp"
)

// Gizmo has no Schema: /openapi/v3 publishes the one of its Go type, with
// its members' types and descriptions, for kubectl explain.
func TestOpenAPIOfGoType(t *testing.T) {
	_, base := servertest.New(t, server.Options{Resources: []*server.Resource{gizmos}})
	r := servertest.Do(t, "GET", base+"/openapi/v3/apis/demo.io/v1", "")
	if r.Code != 200 {
		t.Fatalf("GET: %d %s", r.Code, r.Body)
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(r.Body), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, want string }{
		{"io.demo.v1.Gizmo", `{"properties":{` +
			`"apiVersion":{"description":"APIVersion is the versioned schema of this representation of an object: group/version, or the version alone for the core group.","type":"string"},` +
			`"kind":{"description":"Kind is the type of the object, in CamelCase: the REST resource it is written to or read from.","type":"string"},` +
			`"metadata":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}],"default":{},"description":"Standard object's metadata: its name, namespace, labels, annotations and the fields the server maintains."},` +
			`"spec":{"allOf":[{"$ref":"#/components/schemas/io.demo.v1.GizmoSpec"}],"description":"What the gizmo should be."}},` +
			`"required":["spec"],"type":"object",` +
			`"x-kubernetes-group-version-kind":[{"group":"demo.io","kind":"Gizmo","version":"v1"}]}`},
		{"io.demo.v1.GizmoSpec", `{"properties":{"color":{"description":"The gizmo's color.","enum":["blue","red"],"type":"string"}},"type":"object"}`},
	} {
		if d := cmp.Diff(tt.want, string(doc.Components.Schemas[tt.name])); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

// An unknown field: POST refuses it under Strict, warns of it under Warn
// and drops it under Ignore, as Kubernetes' strict decoding does; a
// server-side apply is typed by the schema, the one of the Go type when
// the resource has none, and refuses it whatever fieldValidation says, as
// a cluster does (structured-merge-diff's error, a 500: Kubernetes'
// fieldmanager returns it unwrapped).
func TestUnknownFieldOfGoType(t *testing.T) {
	_, base := servertest.New(t, server.Options{Resources: []*server.Resource{gizmos}})
	const gz = "/apis/demo.io/v1/namespaces/ns/gizmos"
	body := func(name string) string {
		return `{"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"name":"` + name + `"},"spec":{"color":"red","foo":1}}`
	}
	apply := "application/apply-patch+yaml"
	const notDeclared = `failed to create typed patch object (/a; demo.io/v1, Kind=Gizmo): .spec.foo: field not declared in schema`
	for _, tt := range []struct {
		name, method, path, ctype, body string
		code                            int
		message, warning                string
	}{
		{"POST, Strict", "POST", gz + "?fieldValidation=Strict", "application/json", body("p1"), 400,
			`Gizmo in version "v1" cannot be handled as a Gizmo: strict decoding error: unknown field "spec.foo"`, ""},
		{"POST, Warn", "POST", gz + "?fieldValidation=Warn", "application/json", body("p2"), 201, "", `299 - "unknown field \"spec.foo\""`},
		{"POST, Ignore", "POST", gz + "?fieldValidation=Ignore", "application/json", body("p3"), 201, "", ""},
		{"apply, Strict", "PATCH", gz + "/a?fieldManager=m&fieldValidation=Strict", apply, body("a"), 500, notDeclared, ""},
		{"apply, Warn", "PATCH", gz + "/a?fieldManager=m&fieldValidation=Warn", apply, body("a"), 500, notDeclared, ""},
		{"apply, Ignore", "PATCH", gz + "/a?fieldManager=m&fieldValidation=Ignore", apply, body("a"), 500, notDeclared, ""},
		{"apply of known fields", "PATCH", gz + "/a?fieldManager=m&fieldValidation=Strict", apply,
			strings.Replace(body("a"), `,"foo":1`, "", 1), 201, "", ""},
		{"apply to the object, Strict", "PATCH", gz + "/a?fieldManager=m&fieldValidation=Strict", apply, body("a"), 500, notDeclared, ""},
	} {
		r := servertest.Do(t, tt.method, base+tt.path, tt.body, "Content-Type", tt.ctype)
		var st struct{ Message string }
		json.Unmarshal([]byte(r.Body), &st)
		if r.Code != tt.code || r.Code >= 400 && st.Message != tt.message || r.Header.Get("Warning") != tt.warning {
			t.Errorf("%s: %d %q, Warning %q; want %d %q, Warning %q", tt.name, r.Code, st.Message, r.Header.Get("Warning"), tt.code, tt.message, tt.warning)
		}
		if r.Code == 201 && strings.Contains(r.Body, "foo") {
			t.Errorf("%s: the unknown field was kept: %s", tt.name, r.Body)
		}
	}
}
