package jsonvalue_test

import (
	"encoding/json"
	"fmt"

	"github.com/apisem/apisem/jsonvalue"
)

func Example() {
	var obj map[string]any
	_ = json.Unmarshal([]byte(`{"spec":{"replicas":"three"}}`), &obj)

	_, _, err := jsonvalue.NestedInt64(obj, "spec", "replicas")
	fmt.Println(err)
	_ = jsonvalue.SetNestedField(obj, int64(3), "spec", "replicas")
	n, found, _ := jsonvalue.NestedInt64(obj, "spec", "replicas")
	fmt.Println(n, found)
	// Output:
	// .spec.replicas accessor error: three is of the type string, expected int64
	// 3 true
}

func ExampleAppendJSON() {
	var obj map[string]any
	_ = json.Unmarshal([]byte(`{"spec":{"size":1e-7,"note":"<b>"},"kind":"K"}`), &obj)

	b, _ := jsonvalue.AppendJSON(nil, obj)
	fmt.Println(string(b))
	// Output:
	// {"kind":"K","spec":{"note":"\u003cb\u003e","size":1e-7}}
}
