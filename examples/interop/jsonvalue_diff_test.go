package interop

import (
	"encoding/json"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/apisem/apisem/jsonvalue"
)

// jsonvalue's Nested functions answer as k8s.io/apimachinery's
// unstructured helpers do, messages included: a custom resource's scale
// subresource puts them in its 422s.
func TestJSONValueNestedLikeUnstructured(t *testing.T) {
	const doc = `{"spec":{"color":"red","size":3,"ratio":0.5,"on":true,"tags":["a"],"sub":{"k":"v"},"none":null}}`
	decode := func() map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		// Integers as int64, as both decoders used here leave them.
		m["spec"].(map[string]any)["size"] = int64(3)
		return m
	}
	show := func(v any, found bool, err error) string { return fmt.Sprintf("%#v %v %v", v, found, err) }
	paths := [][]string{
		{"spec", "color"}, {"spec", "size"}, {"spec", "ratio"}, {"spec", "on"}, {"spec", "tags"},
		{"spec", "sub"}, {"spec", "none"}, {"spec", "none", "x"}, {"spec", "shape"}, {"status", "phase"},
		{"spec", "color", "deeper"}, {"spec", "tags", "0"},
	}
	obj := decode()
	for _, p := range paths {
		for _, c := range []struct {
			name      string
			got, want string
		}{
			{"NestedString", show(jsonvalue.NestedString(obj, p...)), show(unstructured.NestedString(obj, p...))},
			{"NestedInt64", show(jsonvalue.NestedInt64(obj, p...)), show(unstructured.NestedInt64(obj, p...))},
			{"NestedFloat64", show(jsonvalue.NestedFloat64(obj, p...)), show(unstructured.NestedFloat64(obj, p...))},
			{"NestedBool", show(jsonvalue.NestedBool(obj, p...)), show(unstructured.NestedBool(obj, p...))},
			{"NestedMap", show(jsonvalue.NestedMap(obj, p...)), show(unstructured.NestedMap(obj, p...))},
			{"NestedSlice", show(jsonvalue.NestedSlice(obj, p...)), show(unstructured.NestedSlice(obj, p...))},
			{"NestedField", show(jsonvalue.NestedField(obj, p...)), show(unstructured.NestedFieldNoCopy(obj, p...))},
		} {
			if c.got != c.want {
				t.Errorf("%s(%v):\n got %s\nwant %s", c.name, p, c.got, c.want)
			}
		}
		ours, theirs := decode(), decode()
		errOurs := jsonvalue.SetNestedField(ours, "v", p...)
		errTheirs := unstructured.SetNestedField(theirs, "v", p...)
		if fmt.Sprint(errOurs) != fmt.Sprint(errTheirs) || fmt.Sprint(ours) != fmt.Sprint(theirs) {
			t.Errorf("SetNestedField(%v): %v %v; unstructured %v %v", p, errOurs, ours, errTheirs, theirs)
		}
	}
}
