package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
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
			`"spec":{"allOf":[{"$ref":"#/components/schemas/com.github.apisem.apisem.server_test.GizmoSpec"}],"description":"What the gizmo should be."}},` +
			`"required":["spec"],"type":"object",` +
			`"x-kubernetes-group-version-kind":[{"group":"demo.io","kind":"Gizmo","version":"v1"}]}`},
		{"com.github.apisem.apisem.server_test.GizmoSpec", `{"properties":{"color":{"description":"The gizmo's color.","enum":["blue","red"],"type":"string"}},"type":"object"}`},
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

// doohickey has a status subresource and no Schema.
type doohickey struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            struct {
		Size  int      `json:"size,omitempty"`
		Parts []string `json:"parts" apisem:"listType=set"` // null when nil
	} `json:"spec,omitzero"`
	Status struct {
		Ready bool `json:"ready,omitempty"`
	} `json:"status,omitzero"`
}

func (d *doohickey) Types() *meta.TypeMeta { return &d.TypeMeta }
func (d *doohickey) DeepCopyObject() server.Object {
	c := *d
	d.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Parts = slices.Clone(d.Spec.Parts)
	return &c
}

// Applies to a Go type's object and to its status, each typed by the
// derived schema: each owns its own fields, a set merges by value, and an
// undeclared status field is refused like a spec one.
func TestApplyStatusOfGoType(t *testing.T) {
	res := &server.Resource{Group: "demo.io", Version: "v1", Kind: "Doohickey", ListKind: "DoohickeyList",
		Plural: "doohickeys", Namespaced: true, StatusSubresource: true, New: func() server.Object { return &doohickey{} }}
	_, base := servertest.New(t, server.Options{Resources: []*server.Resource{res}})
	url := base + "/apis/demo.io/v1/namespaces/ns/doohickeys/d"
	const head = `{"apiVersion":"demo.io/v1","kind":"Doohickey","metadata":{"name":"d"},`
	for _, tt := range []struct {
		name, path, manager, body string
		code                      int
		want                      string // managedFields, or the error's message
	}{
		{"create by apply, parts nil (null)", "", "a", head + `"spec":{"size":1}}`, 201,
			`a Apply  {"f:spec":{"f:size":{}}}`},
		{"a second manager's part of the set", "", "b", head + `"spec":{"parts":["y"]}}`, 200,
			`a Apply  {"f:spec":{"f:size":{}}}` + "\n" + `b Apply  {"f:spec":{"f:parts":{"v:\"y\"":{}}}}`},
		{"the first manager's part", "", "a", head + `"spec":{"size":1,"parts":["x"]}}`, 200,
			`a Apply  {"f:spec":{"f:parts":{"v:\"x\"":{}},"f:size":{}}}` + "\n" + `b Apply  {"f:spec":{"f:parts":{"v:\"y\"":{}}}}`},
		{"status", "/status", "c", head + `"status":{"ready":true}}`, 200,
			`a Apply  {"f:spec":{"f:parts":{"v:\"x\"":{}},"f:size":{}}}` + "\n" + `b Apply  {"f:spec":{"f:parts":{"v:\"y\"":{}}}}` + "\n" + `c Apply status {"f:status":{"f:ready":{}}}`},
		{"an undeclared status field", "/status", "c", head + `"status":{"ready":true,"bogus":1}}`, 500,
			`failed to create typed patch object (/d; demo.io/v1, Kind=Doohickey): .status.bogus: field not declared in schema`},
	} {
		r := servertest.Do(t, "PATCH", url+tt.path+"?fieldManager="+tt.manager, tt.body, "Content-Type", "application/apply-patch+yaml")
		var got struct {
			Message  string
			Metadata struct{ ManagedFields []meta.ManagedFieldsEntry }
		}
		json.Unmarshal([]byte(r.Body), &got)
		summary := got.Message
		if r.Code < 400 {
			var lines []string
			for _, e := range got.Metadata.ManagedFields {
				f, _ := json.Marshal(e.FieldsV1)
				lines = append(lines, e.Manager+" "+e.Operation+" "+e.Subresource+" "+string(f))
			}
			summary = strings.Join(lines, "\n")
		}
		if r.Code != tt.code || summary != tt.want {
			t.Errorf("%s: %d\n%s\nwant %d\n%s", tt.name, r.Code, summary, tt.code, tt.want)
		}
	}
}
