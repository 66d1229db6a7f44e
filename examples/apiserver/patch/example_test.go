package patch_test

import (
	"fmt"

	"github.com/apisem/apisem/examples/apiserver/patch"
)

// What kubectl apply sends when the last applied finalizers [a, b] became
// [a, c] while a controller added z on the server.
func ExampleStrategicMergePatch() {
	schema := &patch.Schema{Fields: map[string]*patch.Schema{
		"metadata": {Fields: map[string]*patch.Schema{
			"finalizers": {MergeList: true},
		}},
	}}
	live := []byte(`{"metadata":{"name":"demo","finalizers":["a","b","z"]}}`)
	p := []byte(`{"metadata":{
		"$setElementOrder/finalizers":["a","c"],
		"$deleteFromPrimitiveList/finalizers":["b"],
		"finalizers":["c"]}}`)
	out, err := patch.StrategicMergePatch(live, p, schema)
	fmt.Println(string(out), err)
	// Output: {"metadata":{"finalizers":["a","c","z"],"name":"demo"}} <nil>
}

func ExampleJSONPatch() {
	doc := []byte(`{"metadata":{"resourceVersion":"7"},"data":{"a":"1"}}`)
	p := []byte(`[{"op":"test","path":"/metadata/resourceVersion","value":"7"},
		{"op":"replace","path":"/data/a","value":"2"}]`)
	out, err := patch.JSONPatch(doc, p, patch.Limits{})
	fmt.Println(string(out), err)

	_, err = patch.JSONPatch(doc, []byte(`[{"op":"test","path":"/data/a","value":"9"}]`), patch.Limits{})
	fmt.Println(err)
	// Output:
	// {"data":{"a":"2"},"metadata":{"resourceVersion":"7"}} <nil>
	// patch: cannot be applied: test: the value at "/data/a" is not the expected value (operation 0)
}

func ExampleMergePatch() {
	out, err := patch.MergePatch([]byte(`{"a":"b","c":{"d":"e","f":"g"}}`), []byte(`{"a":"z","c":{"f":null}}`))
	fmt.Println(string(out), err)
	// Output: {"a":"z","c":{"d":"e"}} <nil>
}
