package patch_test

import (
	"errors"
	"fmt"

	"github.com/apisem/apisem/patch"
	"github.com/apisem/apisem/status"
)

// A server applies a PATCH body to the object's JSON and decodes the result
// into its typed object; a failure is already the status Kubernetes sends.
func ExampleApply() {
	doc := []byte(`{"metadata":{"name":"demo","resourceVersion":"7"},"data":{"a":"1"}}`)

	res, err := patch.Apply(doc, []byte(`{"data":{"a":null,"b":"2"}}`), "application/merge-patch+json", patch.Options{})
	fmt.Println(string(res.Doc), err)

	res, err = patch.Apply(doc, []byte(`[{"op":"test","path":"/metadata/resourceVersion","value":"7"},
		{"op":"replace","path":"/data/a","value":"3","valu":"typo"}]`),
		"application/json-patch+json", patch.Options{CheckFields: true})
	fmt.Println(string(res.Doc), res.FieldProblems, err)

	_, err = patch.Apply(doc, []byte(`[{"op":"test","path":"/data/a","value":"9"}]`), "application/json-patch+json", patch.Options{})
	var se *status.Error
	if errors.As(err, &se) {
		fmt.Println(se.Status.Code, se.Status.Reason, se.Status.Message)
		fmt.Println("cause:", errors.Unwrap(err))
	}

	_, err = patch.Apply(doc, []byte(`{}`), "application/strategic-merge-patch+json", patch.Options{})
	fmt.Println(err)
	// Output:
	// {"metadata":{"name":"demo","resourceVersion":"7"},"data":{"b":"2"}} <nil>
	// {"metadata":{"name":"demo","resourceVersion":"7"},"data":{"a":"3"}} [json patch unknown field "[1].valu"] <nil>
	// 422 Invalid the server rejected our request due to an error in our request
	// cause: testing value /data/a failed: test failed
	// the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json
}

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

// A type's strategic merge patch schema puts ObjectMetaSchema under
// "metadata": a patch then adds finalizers and owner references to the
// object's rather than replacing them (the patch's first, as Kubernetes
// orders them).
func ExampleObjectMetaSchema() {
	schema := &patch.Schema{Fields: map[string]*patch.Schema{"metadata": patch.ObjectMetaSchema()}}
	doc := []byte(`{"metadata":{"name":"demo","finalizers":["a"],"ownerReferences":[{"uid":"1","name":"x"}]}}`)
	res, err := patch.Apply(doc, []byte(`{"metadata":{"finalizers":["b"],"ownerReferences":[{"uid":"2","name":"y"}]}}`),
		"application/strategic-merge-patch+json", patch.Options{Schema: schema})
	fmt.Println(string(res.Doc), err)
	// Output:
	// {"metadata":{"finalizers":["b","a"],"name":"demo","ownerReferences":[{"name":"y","uid":"2"},{"name":"x","uid":"1"}]}} <nil>
}
