package crd

import "testing"

// junctionsYAML has logical junctors at several levels: oneOf at spec,
// anyOf on a number and on an object, not and allOf on a string.
const junctionsYAML = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: junctions.test.apisem.dev}
spec:
  group: test.apisem.dev
  names: {kind: Junction, listKind: JunctionList, plural: junctions, singular: junction}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              a: {type: string}
              b: {type: string}
              'n': {type: integer, anyOf: [{minimum: 10}, {maximum: 0}]}
              s: {type: string, not: {enum: [forbidden]}, allOf: [{minLength: 2}, {pattern: '^[a-z]+$'}]}
              o: {type: object, properties: {x: {type: integer}, y: {type: integer}}, anyOf: [{required: [y]}, {properties: {x: {minimum: 5}}}]}
            oneOf:
            - required: [a]
            - required: [b]
`

// TestJunctorsRecorded creates objects that break the junctors and
// checks the answers against kube-apiserver 1.37's to the same requests
// (the definition above, created on a real one, and each object POSTed to
// it): the messages and their order are its.
func TestJunctorsRecorded(t *testing.T) {
	url, serve := gadgetServer(t, junctionsYAML)
	var steps []writeStep
	for i, tc := range []struct{ spec, msg string }{
		{`{}`, `[<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid, spec.a: Required value]`},
		{`{"a":"x","b":"y"}`, `<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives`},
		{`{"a":"x","n":5}`, `[<nil>: Invalid value: "": "spec.n" must validate at least one schema (anyOf), spec.n: Invalid value: 5: spec.n in body should be greater than or equal to 10]`},
		{`{"a":"x","s":"forbidden"}`, `<nil>: Invalid value: "": "spec.s" must not validate the schema (not)`},
		{`{"a":"x","s":"A"}`, `[spec.s: Invalid value: "A": spec.s in body should be at least 2 chars long, spec.s: Invalid value: "A": spec.s in body should match '^[a-z]+$', <nil>: Invalid value: "": "spec.s" must validate all the schemas (allOf). None validated]`},
		// The alternative that matched most is reported: the second,
		// whose member counts.
		{`{"a":"x","o":{"x":3}}`, `[<nil>: Invalid value: "": "spec.o" must validate at least one schema (anyOf), spec.o.x: Invalid value: 3: spec.o.x in body should be greater than or equal to 5]`},
		{`{"a":"x","o":{"x":7}}`, ``},
		// A bound does not apply to a string: anyOf holds.
		{`{"a":"x","n":"str"}`, `spec.n: Invalid value: "string": spec.n in body must be of type integer: "string"`},
	} {
		name := "j" + string(rune('a'+i))
		st := writeStep{name: tc.spec, method: "POST", code: 422,
			body: `{"apiVersion":"test.apisem.dev/v1","kind":"Junction","metadata":{"name":"` + name + `"},"spec":` + tc.spec + `}`}
		if tc.msg == "" {
			st.code = 201
		} else {
			st.msg = `Junction.test.apisem.dev "` + name + `" is invalid: ` + tc.msg
		}
		steps = append(steps, st)
	}
	runWriteSteps(t, url+"/apis/test.apisem.dev/v1/namespaces/demo/junctions", serve, steps)
}
