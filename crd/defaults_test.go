package crd

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// TestApplyCreateIntegerDefault creates an object by server-side apply
// whose spec.replicas, a scale path, takes its schema default: the
// default is an integer (int64) as in a decoded request, so the scale
// check accepts it. The definition's status writes once turned its
// defaults into float64s.
func TestApplyCreateIntegerDefault(t *testing.T) {
	_, c, url := newServer(t)
	do(t, "POST", url+crdsURL, widgetCRD(t), 201)
	if _, err := c.WaitEstablished(context.Background(), "widgets.example.com"); err != nil {
		t.Fatal(err)
	}
	r := do(t, "PATCH", url+widgetsURL+"/w1?fieldManager=a", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red"}}`,
		201, "Content-Type", "application/apply-patch+yaml")
	if !strings.Contains(r.body, `"spec":{"color":"red","replicas":1}`) {
		t.Errorf("apply create: %s", r.body)
	}
}

// gadgetsYAML is a definition whose schema defaults members at several
// depths, with the status and scale subresources. gadgetsV2 adds a
// default to it, as an update of the definition would.
const gadgetsYAML = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.test.apisem.dev}
spec:
  group: test.apisem.dev
  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string, default: red}
              size: {type: integer}
              replicas: {type: integer, default: 1}
              nested:
                type: object
                default: {}
                properties:
                  a: {type: string, default: x}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
`

const gadgetsPath = "/apis/test.apisem.dev/v1/namespaces/demo/gadgets"

var gadgetsV2 = strings.Replace(gadgetsYAML, "size: {type: integer}", "size: {type: integer}\n              shape: {type: string, default: round}", 1)

// gadgetServer serves the custom resources of def (YAML) without a
// controller, at a fixed time, so that managedFields entries sort by
// manager; serve swaps the definition served, keeping the objects.
func gadgetServer(t *testing.T, def string) (url string, serve func(def string)) {
	t.Helper()
	resources := func(def string) []*server.Resource {
		var d CustomResourceDefinition
		if err := yaml.UnmarshalStrict([]byte(def), &d); err != nil {
			t.Fatal(err)
		}
		d.Status.AcceptedNames = d.Spec.Names
		rs, err := customResources(&d, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	cur := resources(def)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := server.New(server.Options{Resources: cur, Rand: rand.NewChaCha8([32]byte{1}), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	url = servertest.Start(t, s)
	return url, func(def string) {
		for _, r := range cur {
			if err := s.RemoveResource(r); err != nil {
				t.Fatal(err)
			}
		}
		cur = resources(def)
		for _, r := range cur {
			if err := s.AddResource(r); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// managedFieldsOf renders the entries of o one per line, as
// "manager Operation[/subresource] fieldsV1", with "(no time)" after
// the operation of an entry without time.
func managedFieldsOf(entries []meta.ManagedFieldsEntry) string {
	var lines []string
	for _, e := range entries {
		op := e.Operation
		if e.Subresource != "" {
			op += "/" + e.Subresource
		}
		if e.Time == nil {
			op += " (no time)"
		}
		var f []byte
		if e.FieldsV1 != nil {
			f = e.FieldsV1.Raw
		}
		lines = append(lines, fmt.Sprintf("%s %s %s", e.Manager, op, f))
	}
	return strings.Join(lines, "\n")
}

// writeStep is one request of a table of writes, and what the object it
// names looks like afterwards (GET): its managedFields (as
// managedFieldsOf renders them) and its spec.
type writeStep struct {
	name string
	// schema, when set, is the definition to serve from this step on.
	schema       string
	method, path string // path: after the collection's
	ctype, body  string // "RV" in body is the object's resourceVersion
	code         int
	// object is the object to GET after the request; mf and spec are
	// what it must show (spec as JSON).
	object   string
	mf, spec string
	msg      string // the message of a failure
}

// runWriteSteps runs steps against the collection at base.
func runWriteSteps(t *testing.T, base string, serve func(string), steps []writeStep) {
	t.Helper()
	for _, st := range steps {
		if st.schema != "" {
			serve(st.schema)
		}
		if st.method != "" {
			body := st.body
			if strings.Contains(body, "RV") {
				name := strings.Split(strings.TrimPrefix(st.path, "/"), "/")[0]
				cur := unstructured(t, do(t, "GET", base+"/"+name, "", 200).body)
				body = strings.Replace(body, "RV", cur.ResourceVersion, 1)
			}
			ctype := st.ctype
			if ctype == "" {
				ctype = "application/json"
			}
			r := servertest.Do(t, st.method, base+st.path, body, "Content-Type", ctype)
			if r.Code != st.code {
				t.Fatalf("%s: %s %s = %d %s; want %d", st.name, st.method, st.path, r.Code, r.Body, st.code)
			}
			if st.msg != "" {
				if got := statusOf(t, r.Body).Message; got != st.msg {
					t.Errorf("%s: message %q\nwant %q", st.name, got, st.msg)
				}
			}
		}
		if st.object == "" {
			continue
		}
		o := unstructured(t, do(t, "GET", base+"/"+st.object, "", 200).body)
		if got := managedFieldsOf(o.ManagedFields); got != strings.TrimSpace(st.mf) {
			t.Errorf("%s: managedFields\n%s\nwant\n%s", st.name, got, strings.TrimSpace(st.mf))
		}
		spec, err := json.Marshal(o.Content["spec"])
		if err != nil {
			t.Fatal(err)
		}
		if st.spec != "" && string(spec) != st.spec {
			t.Errorf("%s: spec %s; want %s", st.name, spec, st.spec)
		}
	}
}

// TestDefaultsAndManagedFields writes objects whose schema defaults
// members, and an object stored before its schema gained a default, and
// checks their managedFields and specs against what kube-apiserver 1.37
// answered to the same requests (observed on a real one): the defaults
// of a write are set as its body is decoded, so an Update owns those its
// body lacked when the old object lacked them too, and an Apply owns only
// its configuration; a stored object is defaulted as it is read, so the
// default a newer schema adds is nobody's.
func TestDefaultsAndManagedFields(t *testing.T) {
	url, serve := gadgetServer(t, gadgetsYAML)
	const (
		g1 = `{"apiVersion":"test.apisem.dev/v1","kind":"Gadget","metadata":{"name":"g1"`
		g2 = `{"apiVersion":"test.apisem.dev/v1","kind":"Gadget","metadata":{"name":"g2"`
		r1 = `{"apiVersion":"test.apisem.dev/v1","kind":"Gadget","metadata":{"name":"r1"`
		r2 = `{"apiVersion":"test.apisem.dev/v1","kind":"Gadget","metadata":{"name":"r2"`
		r3 = `{"apiVersion":"test.apisem.dev/v1","kind":"Gadget","metadata":{"name":"r3"`
		r4 = `{"apiVersion":"test.apisem.dev/v1","kind":"Gadget","metadata":{"name":"r4"`
	)
	apply := "application/apply-patch+yaml"
	runWriteSteps(t, url+gadgetsPath, serve, []writeStep{{
		name: "create", method: "POST", path: "?fieldManager=creator", body: g1 + `},"spec":{"size":1}}`, code: 201,
		object: "g1",
		mf:     `creator Update {"f:spec":{".":{},"f:color":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{},"f:size":{}}}`,
		spec:   `{"color":"red","nested":{"a":"x"},"replicas":1,"size":1}`,
	}, {
		name: "update without the defaulted members", method: "PUT", path: "/g1?fieldManager=updater",
		body: g1 + `,"resourceVersion":"RV"},"spec":{"size":2}}`, code: 200,
		object: "g1",
		mf: `
creator Update {"f:spec":{".":{},"f:color":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{}}}
updater Update {"f:spec":{"f:size":{}}}`,
		spec: `{"color":"red","nested":{"a":"x"},"replicas":1,"size":2}`,
	}, {
		name: "update of a defaulted member", method: "PUT", path: "/g1?fieldManager=updater2",
		body: g1 + `,"resourceVersion":"RV"},"spec":{"size":2,"color":"blue"}}`, code: 200,
		object: "g1",
		mf: `
creator Update {"f:spec":{".":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{}}}
updater Update {"f:spec":{"f:size":{}}}
updater2 Update {"f:spec":{"f:color":{}}}`,
	}, {
		name: "forced apply", method: "PATCH", path: "/g1?fieldManager=applier&force=true", ctype: apply,
		body: g1 + `},"spec":{"size":5,"color":"red"}}`, code: 200,
		object: "g1",
		mf: `
applier Apply {"f:spec":{"f:color":{},"f:size":{}}}
creator Update {"f:spec":{".":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{}}}`,
		spec: `{"color":"red","nested":{"a":"x"},"replicas":1,"size":5}`,
	}, {
		name: "apply that creates", method: "PATCH", path: "/g2?fieldManager=applier", ctype: apply,
		body: g2 + `},"spec":{"size":3,"nested":{}}}`, code: 201,
		object: "g2",
		mf:     `applier Apply {"f:spec":{"f:nested":{},"f:size":{}}}`,
		spec:   `{"color":"red","nested":{"a":"x"},"replicas":1,"size":3}`,
	}, {
		name: "apply that drops a member", method: "PATCH", path: "/g2?fieldManager=applier", ctype: apply,
		body: g2 + `},"spec":{"color":"green"}}`, code: 200,
		object: "g2",
		mf:     `applier Apply {"f:spec":{"f:color":{}}}`,
		spec:   `{"color":"green","nested":{"a":"x"},"replicas":1}`,
	}, {
		name: "merge patch of nulls, defaulted again", method: "PATCH", path: "/g1?fieldManager=patcher", ctype: "application/merge-patch+json",
		body: `{"spec":{"nested":null,"replicas":null}}`, code: 200,
		object: "g1",
		mf: `
applier Apply {"f:spec":{"f:color":{},"f:size":{}}}
creator Update {"f:spec":{".":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{}}}`,
		spec: `{"color":"red","nested":{"a":"x"},"replicas":1,"size":5}`,
	}, {
		name: "status update", method: "PUT", path: "/g1/status?fieldManager=statuser",
		body: g1 + `,"resourceVersion":"RV"},"spec":{},"status":{"replicas":2,"selector":"a=b"}}`, code: 200,
		object: "g1",
		mf: `
applier Apply {"f:spec":{"f:color":{},"f:size":{}}}
creator Update {"f:spec":{".":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{}}}
statuser Update/status {"f:status":{".":{},"f:replicas":{},"f:selector":{}}}`,
	}, {
		name: "objects of the old schema", method: "POST", path: "?fieldManager=creator", body: r1 + `},"spec":{"size":1}}`, code: 201,
	}, {
		method: "PATCH", path: "/r2?fieldManager=applier", ctype: apply, body: r2 + `},"spec":{"size":1}}`, code: 201,
	}, {
		method: "POST", path: "?fieldManager=creator", body: r3 + `},"spec":{"size":1}}`, code: 201,
	}, {
		method: "POST", path: "?fieldManager=creator", body: r4 + `},"spec":{"size":1}}`, code: 201,
	}, {
		name: "read with the new schema's default", schema: gadgetsV2,
		object: "r1",
		mf:     `creator Update {"f:spec":{".":{},"f:color":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{},"f:size":{}}}`,
		spec:   `{"color":"red","nested":{"a":"x"},"replicas":1,"shape":"round","size":1}`,
	}, {
		name: "update of an object defaulted on read", method: "PUT", path: "/r1?fieldManager=u3",
		body: r1 + `,"resourceVersion":"RV"},"spec":{"size":2}}`, code: 200,
		object: "r1",
		mf: `
creator Update {"f:spec":{".":{},"f:color":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{}}}
u3 Update {"f:spec":{"f:size":{}}}`,
		spec: `{"color":"red","nested":{"a":"x"},"replicas":1,"shape":"round","size":2}`,
	}, {
		name: "apply to an object defaulted on read", method: "PATCH", path: "/r2?fieldManager=applier", ctype: apply,
		body: r2 + `},"spec":{"size":2}}`, code: 200,
		object: "r2",
		mf:     `applier Apply {"f:spec":{"f:size":{}}}`,
		spec:   `{"color":"red","nested":{"a":"x"},"replicas":1,"shape":"round","size":2}`,
	}, {
		name: "merge patch of an object defaulted on read", method: "PATCH", path: "/r3?fieldManager=mp", ctype: "application/merge-patch+json",
		body: `{"spec":{"size":3}}`, code: 200,
		object: "r3",
		mf: `
creator Update {"f:spec":{".":{},"f:color":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{}}}
mp Update {"f:spec":{"f:size":{}}}`,
		spec: `{"color":"red","nested":{"a":"x"},"replicas":1,"shape":"round","size":3}`,
	}, {
		name: "status update of an object defaulted on read", method: "PUT", path: "/r4/status?fieldManager=st",
		body: r4 + `,"resourceVersion":"RV"},"spec":{"size":1},"status":{"replicas":1}}`, code: 200,
		object: "r4",
		mf: `
creator Update {"f:spec":{".":{},"f:color":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{},"f:size":{}}}
st Update/status {"f:status":{".":{},"f:replicas":{}}}`,
		spec: `{"color":"red","nested":{"a":"x"},"replicas":1,"shape":"round","size":1}`,
	}, {
		name: "update that sets the default itself", method: "PUT", path: "/r1?fieldManager=u4",
		body: r1 + `,"resourceVersion":"RV"},"spec":{"size":2,"shape":"round"}}`, code: 200,
		object: "r1",
		mf: `
creator Update {"f:spec":{".":{},"f:color":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{}}}
u3 Update {"f:spec":{"f:size":{}}}`,
	}})
}
