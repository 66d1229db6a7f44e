package crd

import (
	"strings"
	"testing"
)

// gizmosYAML has a plain list that a later version makes a set.
const gizmosYAML = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.test.apisem.dev}
spec:
  group: test.apisem.dev
  names: {kind: Gizmo, listKind: GizmoList, plural: gizmos, singular: gizmo}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              tags: {type: array, items: {type: string}}
              other: {type: array, x-kubernetes-list-type: set, items: {type: string}}
              n: {type: integer}
          status: {type: object, properties: {s: {type: array, x-kubernetes-list-type: set, items: {type: string}}}}
`

// TestListTypeRatcheting checks, against kube-apiserver 1.37's answers
// to the same requests, that an update is refused for a duplicate only
// when the old object had none, of any list: the list-type errors
// ratchet as a whole, on the object and its status alike.
func TestListTypeRatcheting(t *testing.T) {
	url, serve := gadgetServer(t, gizmosYAML)
	const merge = "application/merge-patch+json"
	obj := func(name, spec string) string {
		return `{"apiVersion":"test.apisem.dev/v1","kind":"Gizmo","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	steps := []writeStep{
		{name: "a duplicate in a set", method: "POST", body: obj("x", `{"other":["y","y"]}`), code: 422,
			msg: `Gizmo.test.apisem.dev "x" is invalid: spec.other[1]: Duplicate value: "y"`},
		{name: "a plain list", method: "POST", body: obj("a", `{"tags":["x","x"]}`), code: 201},
		{name: "a clean object", method: "POST", body: obj("b", `{"tags":["x"]}`), code: 201},
		{name: "tags become a set", schema: strings.Replace(gizmosYAML, "tags: {type: array, items", "tags: {type: array, x-kubernetes-list-type: set, items", 1)},
		{name: "an old object with a duplicate", method: "PATCH", path: "/a", ctype: merge, body: `{"spec":{"n":1,"other":["y","y"]}}`, code: 200},
		{name: "an old object without", method: "PATCH", path: "/b", ctype: merge, body: `{"spec":{"n":1,"other":["y","y"]}}`, code: 422,
			msg: `Gizmo.test.apisem.dev "b" is invalid: spec.other[1]: Duplicate value: "y"`},
		{name: "status of an old object with a duplicate", method: "PATCH", path: "/a/status", ctype: merge, body: `{"status":{"s":["y","y"]}}`, code: 200},
		{name: "status of an old object without", method: "PATCH", path: "/b/status", ctype: merge, body: `{"status":{"s":["y","y"]}}`, code: 422,
			msg: `Gizmo.test.apisem.dev "b" is invalid: status.s[1]: Duplicate value: "y"`},
	}
	runWriteSteps(t, url+"/apis/test.apisem.dev/v1/namespaces/demo/gizmos", serve, steps)
}
