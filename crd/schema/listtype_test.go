package schema

import (
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// listsSchema has set and map lists of every kind of item.
const listsSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      max: {type: integer, maximum: 3}
      set: {type: array, x-kubernetes-list-type: set, items: {type: string}}
      anyset: {type: array, x-kubernetes-list-type: set, items: {x-kubernetes-preserve-unknown-fields: true}}
      m:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items: {type: object, required: [name], properties: {name: {type: string}, v: {type: integer}}}
      m2:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [a, b]
        items: {type: object, required: [a, b], properties: {a: {type: string}, b: {type: integer}}}
      labels: {type: object, additionalProperties: {type: array, x-kubernetes-list-type: set, items: {type: integer}}}
      nested:
        type: array
        items: {type: array, x-kubernetes-list-type: set, items: {type: string}}
      atomic: {type: array, x-kubernetes-list-type: atomic, items: {type: string}}
`

// TestListTypeDuplicates checks the errors of set and map lists against
// those kube-apiserver 1.37 gives the same objects (observed on a real
// one): after the schema's errors, each duplicate once, at its second
// appearance.
func TestListTypeDuplicates(t *testing.T) {
	var s JSONSchemaProps
	if err := yaml.UnmarshalStrict([]byte(listsSchema), &s); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, obj, want string }{
		{"no lists", `{"spec":{}}`, ``},
		{"distinct", `{"spec":{"set":["a","b"],"m":[{"name":"a"},{"name":"b"}],"m2":[{"a":"x","b":1},{"a":"x","b":2}]}}`, ``},
		{"a set", `{"spec":{"set":["a","b","a","a","b","c"]}}`,
			`spec.set[2]: Duplicate value: "a"; spec.set[4]: Duplicate value: "b"`},
		{"after the schema's errors", `{"spec":{"max":5,"set":["a","a"]}}`,
			`spec.max: Invalid value: 5: spec.max in body should be less than or equal to 3; spec.set[1]: Duplicate value: "a"`},
		// 1 and 1.0 decode as an int64 and a float64: distinct, while
		// objects and lists compare as JSON, where they are equal.
		{"items of any kind", `{"spec":{"anyset":[1,1.0,{"x":1},{"x":1.0},[1],[1],null,null,"1",true,true]}}`,
			`spec.anyset[3]: Duplicate value: {"x":1}; spec.anyset[5]: Duplicate value: [1]; spec.anyset[7]: Duplicate value: null; spec.anyset[10]: Duplicate value: true`},
		{"a map list by one key", `{"spec":{"m":[{"name":"a"},{"name":"a","v":1},{"v":2},{"v":3},null]}}`,
			`spec.m[2].name: Required value; spec.m[3].name: Required value; spec.m[4]: Invalid value: "null": spec.m[4] in body must be of type object: "null"; ` +
				`spec.m[1]: Duplicate value: {"name":"a"}; spec.m[3]: Duplicate value: {}`},
		{"a map list item that is no object", `{"spec":{"m":[{"name":"a"},{"name":"a"},"x",1]}}`,
			`spec.m[2]: Invalid value: "string": spec.m[2] in body must be of type object: "string"; ` +
				`spec.m[3]: Invalid value: "integer": spec.m[3] in body must be of type object: "integer"; ` +
				`spec.m[2]: Invalid value: "x": must be an object for an array of list-type map`},
		{"a map list by two keys", `{"spec":{"m2":[{"a":"x","b":1},{"b":1,"a":"x"},{},{},{"a":"x"},null]}}`,
			`spec.m2[2].a: Required value; spec.m2[2].b: Required value; spec.m2[3].a: Required value; spec.m2[3].b: Required value; spec.m2[4].b: Required value; ` +
				`spec.m2[5]: Invalid value: "null": spec.m2[5] in body must be of type object: "null"; ` +
				`spec.m2[1]: Duplicate value: {"a":"x","b":1}; spec.m2[3]: Duplicate value: {}`},
		// Kubernetes' own check without the schema's pruning of nulls
		// first: a null key is a value of its own.
		{"a null key", `{"spec":{"m":[{"name":null},{"name":null}]}}`,
			`spec.m[0].name: Invalid value: "null": spec.m[0].name in body must be of type string: "null"; spec.m[1].name: Invalid value: "null": spec.m[1].name in body must be of type string: "null"; ` +
				`spec.m[1]: Duplicate value: {"name":null}`},
		{"under additionalProperties", `{"spec":{"labels":{"k":[1,1],"j":[2]}}}`, `spec.labels[k][1]: Duplicate value: 1`},
		{"in the items of a list", `{"spec":{"nested":[["a","a"],["a"]]}}`, `spec.nested[0][1]: Duplicate value: "a"`},
		{"an atomic list", `{"spec":{"atomic":["a","a"]}}`, ``},
		{"several lists, in the order of their names", `{"spec":{"set":["b","b"],"nested":[["c","c"]],"labels":{"z":[1,1],"a":[3,3]},"anyset":[2,2],"atomic":["d","d"]}}`,
			`spec.anyset[1]: Duplicate value: 2; spec.labels[a][1]: Duplicate value: 3; spec.labels[z][1]: Duplicate value: 1; spec.nested[0][1]: Duplicate value: "c"; spec.set[1]: Duplicate value: "b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var obj map[string]any
			if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(tc.obj), &obj); err != nil {
				t.Fatal(err)
			}
			errs, err := Validate(&s, obj)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if g := strings.Join(got, "; "); g != tc.want {
				t.Errorf("got  %s\nwant %s", g, tc.want)
			}
		})
	}
}
