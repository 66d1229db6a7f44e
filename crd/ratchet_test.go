package crd

import (
	"strings"
	"testing"
)

// ratchetsYAML is a loose definition; ratchetsV2 tightens every member
// of its spec, so that objects created under the first are invalid under
// the second.
const ratchetsYAML = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ratchets.test.apisem.dev}
spec:
  group: test.apisem.dev
  names: {kind: Ratchet, listKind: RatchetList, plural: ratchets, singular: ratchet}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            properties:
              name: {type: string}
              count: {type: integer}
              tags: {type: array, items: {type: string}}
              set: {type: array, x-kubernetes-list-type: set, items: {type: string}}
              items:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [key]
                items: {type: object, required: [key], properties: {key: {type: string}, value: {type: string}}}
              labels: {type: object, additionalProperties: {type: string}}
              nested: {type: object, properties: {a: {type: string}, b: {type: string}}}
              free: {type: object, x-kubernetes-preserve-unknown-fields: true}
              other: {type: string}
              color: {type: string}
              list: {type: array, items: {type: object, properties: {v: {type: string}}}}
              m: {type: object, additionalProperties: {type: object, properties: {v: {type: string}, w: {type: string}}}}
          status: {type: object, properties: {n: {type: integer}}}
`

var ratchetsV2 = strings.NewReplacer(
	"        type: object\n        properties:\n          apiVersion", "        type: object\n        required: [status]\n        properties:\n          apiVersion",
	"          spec:\n            type: object\n", "          spec:\n            type: object\n            required: [other]\n",
	"name: {type: string}", "name: {type: string, maxLength: 5}",
	"count: {type: integer}", "count: {type: integer, maximum: 10}",
	"tags: {type: array, items: {type: string}}", "tags: {type: array, items: {type: string, maxLength: 3}}",
	"set: {type: array, x-kubernetes-list-type: set, items: {type: string}}", "set: {type: array, x-kubernetes-list-type: set, items: {type: string, maxLength: 3}}",
	"value: {type: string}}}", "value: {type: string, pattern: '^[a-z]+$'}}}",
	"labels: {type: object, additionalProperties: {type: string}}", "labels: {type: object, additionalProperties: {type: string, pattern: '^[a-z]+$'}}",
	"nested: {type: object, properties:", "nested: {type: object, required: [b], properties:",
	"free: {type: object, x-kubernetes-preserve-unknown-fields: true}", "free: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {w: {type: string, pattern: '^[a-z]+$'}}}",
	"color: {type: string}", "color: {type: string, enum: [red, green]}",
	"list: {type: array, items: {type: object, properties: {v: {type: string}}}}", "list: {type: array, items: {type: object, properties: {v: {type: string, maxLength: 1}}}}",
	"m: {type: object, additionalProperties: {type: object, properties:", "m: {type: object, additionalProperties: {type: object, required: [w], properties:",
).Replace(ratchetsYAML)

// TestValidationRatcheting updates objects created under a loose schema
// after the schema was tightened, and checks the answers against
// kube-apiserver 1.37's to the same requests (observed on a real one):
// the errors of members an update left as they were are dropped, those of
// changed members stay. An object with a member its schema does not name
// (under x-kubernetes-preserve-unknown-fields) is never unchanged, nor is
// an object's root, whose metadata no schema names entirely.
func TestValidationRatcheting(t *testing.T) {
	url, serve := gadgetServer(t, ratchetsYAML)
	const (
		invalid = `{"name":"TOOLONGNAME","count":50,"tags":["x","toolongtag"],"set":["toolong"],"items":[{"key":"a","value":"BAD"},{"key":"b","value":"ok"}],"labels":{"k1":"BAD"},"nested":{"a":"x"},"free":{"z":1,"w":"BAD"},"color":"blue"}`
		// plain has no member the schema does not name.
		plain = `{"name":"TOOLONG","list":[{"v":"xx"},{"v":"y"}],"m":{"a":{"v":"xx"},"b":{"v":"y"}}}`
		merge = "application/merge-patch+json"
	)
	steps := []writeStep{}
	for _, name := range []string{"o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o9", "o10", "o11", "o12", "o13"} {
		steps = append(steps, writeStep{method: "POST", body: `{"apiVersion":"test.apisem.dev/v1","kind":"Ratchet","metadata":{"name":"` + name + `"},"spec":` + invalid + `}`, code: 201})
	}
	for _, name := range []string{"p1", "p2", "p3", "p4", "p5", "p6"} {
		steps = append(steps, writeStep{method: "POST", body: `{"apiVersion":"test.apisem.dev/v1","kind":"Ratchet","metadata":{"name":"` + name + `"},"spec":` + plain + `}`, code: 201})
	}
	steps = append(steps, writeStep{name: "the schema tightens", schema: ratchetsV2})
	for _, tc := range []struct{ name, object, patch, msg string }{
		// The root's required status is never ratcheted.
		{"no change", "o1", `{}`, `[spec.other: Required value, status: Required value]`},
		{"metadata alone", "o1", `{"metadata":{"labels":{"x":"y"}}}`, `[spec.other: Required value, status: Required value]`},
		{"a changed member", "o2", `{"spec":{"count":60}}`,
			`[spec.count: Invalid value: 60: spec.count in body should be less than or equal to 10, spec.other: Required value, status: Required value]`},
		{"a changed list, not correlated by index", "o3", `{"spec":{"tags":["y","toolongtag"]}}`,
			`[spec.tags[1]: Too long: may not be more than 3 bytes, spec.other: Required value, status: Required value]`},
		{"a changed set", "o4", `{"spec":{"set":["toolong","z"]}}`,
			`[spec.set[0]: Too long: may not be more than 3 bytes, spec.other: Required value, status: Required value]`},
		{"a map list correlates by key", "o5", `{"spec":{"items":[{"key":"a","value":"BAD"},{"key":"b","value":"okay"}]}}`,
			`[spec.other: Required value, status: Required value]`},
		{"in any order", "o6", `{"spec":{"items":[{"key":"b","value":"ok"},{"key":"a","value":"BAD"}]}}`,
			`[spec.other: Required value, status: Required value]`},
		{"a map correlates by key", "o7", `{"spec":{"labels":{"k2":"fine"}}}`, `[spec.other: Required value, status: Required value]`},
		{"a named member of a preserving object", "o8", `{"spec":{"free":{"z":2}}}`, `[spec.other: Required value, status: Required value]`},
		{"required in a changed object", "o9", `{"spec":{"nested":{"a":"y"}}}`,
			`[spec.nested.b: Required value, spec.other: Required value, status: Required value]`},
		{"a changed element of a map list", "o12", `{"spec":{"items":[{"key":"a","value":"BAD2"},{"key":"b","value":"ok"}]}}`,
			`[spec.items[0].value: Invalid value: "BAD2": spec.items[0].value in body should match '^[a-z]+$', spec.other: Required value, status: Required value]`},
		{"the update that fixes what changed", "o10", `{"spec":{"other":"x"},"status":{"n":1}}`, ``},
		{"and more", "o11", `{"metadata":{"labels":{"x":"y"}},"spec":{"other":"x","name":"ok"},"status":{"n":1}}`, ``},
		// Without unnamed members, an unchanged spec is ratcheted whole.
		{"an unchanged spec", "p1", `{}`, `status: Required value`},
		{"an unchanged spec, metadata changed", "p2", `{"metadata":{"labels":{"x":"y"}}}`, `status: Required value`},
		{"a list of objects changed", "p3", `{"spec":{"list":[{"v":"xx"},{"v":"z"}]}}`,
			`[spec.list[0].v: Too long: may not be more than 1 byte, spec.other: Required value, status: Required value]`},
		{"a map of objects changed", "p4", `{"spec":{"m":{"b":{"v":"z"}}}}`,
			`[spec.m.b.w: Required value, spec.other: Required value, status: Required value]`},
		{"only the root changed", "p5", `{"status":{"n":1}}`, ``},
	} {
		st := writeStep{name: tc.name, method: "PATCH", path: "/" + tc.object, ctype: merge, body: tc.patch, code: 422}
		if tc.msg == "" {
			st.code = 200
		} else {
			st.msg = `Ratchet.test.apisem.dev "` + tc.object + `" is invalid: ` + tc.msg
		}
		steps = append(steps, st)
	}
	runWriteSteps(t, url+"/apis/test.apisem.dev/v1/namespaces/demo/ratchets", serve, steps)
}
