package jsonvalue

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/apisem/apisem/meta"
)

func decode(t *testing.T, js string) map[string]any {
	t.Helper()
	m, err := MapOf(json.RawMessage(js))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const doc = `{"spec":{"color":"red","size":3,"ratio":0.5,"on":true,"tags":["a"],"sub":{"k":"v"},"none":null}}`

func TestNested(t *testing.T) {
	obj := decode(t, doc)
	type result struct {
		v     any
		found bool
		err   string
	}
	res := func(v any, found bool, err error) result {
		r := result{v: v, found: found}
		if err != nil {
			r.err = err.Error()
		}
		return r
	}
	for _, tt := range []struct {
		name string
		got  result
		want result
	}{
		{"string", res(NestedString(obj, "spec", "color")), result{"red", true, ""}},
		{"int64", res(NestedInt64(obj, "spec", "size")), result{int64(3), true, ""}},
		{"float64", res(NestedFloat64(obj, "spec", "ratio")), result{0.5, true, ""}},
		{"bool", res(NestedBool(obj, "spec", "on")), result{true, true, ""}},
		{"slice", res(NestedSlice(obj, "spec", "tags")), result{[]any{"a"}, true, ""}},
		{"map", res(NestedMap(obj, "spec", "sub")), result{map[string]any{"k": "v"}, true, ""}},
		{"field", res(NestedField(obj, "spec", "none")), result{nil, true, ""}},
		{"missing", res(NestedString(obj, "spec", "shape")), result{"", false, ""}},
		{"missing on the way", res(NestedString(obj, "status", "phase")), result{"", false, ""}},
		{"null on the way", res(NestedString(obj, "spec", "none", "x")), result{"", false, ""}},
		{"no fields", res(NestedMap(obj)), result{obj, true, ""}},
		{"wrong type", res(NestedString(obj, "spec", "size")), result{"", false,
			".spec.size accessor error: 3 is of the type int64, expected string"}},
		{"integer wanted", res(NestedInt64(obj, "spec", "ratio")), result{int64(0), false,
			".spec.ratio accessor error: 0.5 is of the type float64, expected int64"}},
		{"not an object on the way", res(NestedField(obj, "spec", "color", "deeper")), result{nil, false,
			".spec.color.deeper accessor error: red is of the type string, expected map[string]interface{}"}},
		{"array wanted", res(NestedSlice(obj, "spec", "sub")), result{[]any(nil), false,
			".spec.sub accessor error: map[k:v] is of the type map[string]interface {}, expected []interface{}"}},
	} {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: got %#v; want %#v", tt.name, tt.got, tt.want)
		}
	}
}

func TestSetNestedField(t *testing.T) {
	for _, tt := range []struct {
		name   string
		value  any
		fields []string
		want   string // the object after, or the error
	}{
		{"replace", "blue", []string{"spec", "color"}, `{"spec":{"color":"blue","n":null}}`},
		{"make the way", int64(1), []string{"status", "observed", "generation"},
			`{"spec":{"color":"red","n":null},"status":{"observed":{"generation":1}}}`},
		{"through a string", 1, []string{"spec", "color", "x"}, "value cannot be set because .spec.color is not a map[string]interface{}"},
		{"through null", 1, []string{"spec", "n", "x"}, "value cannot be set because .spec.n is not a map[string]interface{}"},
		{"no field", 1, nil, "jsonvalue: SetNestedField needs a field"},
	} {
		obj := decode(t, `{"spec":{"color":"red","n":null}}`)
		got := ""
		if err := SetNestedField(obj, tt.value, tt.fields...); err != nil {
			got = err.Error()
		} else {
			b, _ := json.Marshal(obj)
			got = string(b)
		}
		if got != tt.want {
			t.Errorf("%s: %s; want %s", tt.name, got, tt.want)
		}
	}
}

func TestDeepCopy(t *testing.T) {
	obj := decode(t, doc)
	c := DeepCopyMap(obj)
	if !reflect.DeepEqual(c, obj) {
		t.Fatalf("copy %v; want %v", c, obj)
	}
	// Change every object and array of the copy: the original stays.
	c["spec"].(map[string]any)["sub"].(map[string]any)["k"] = "changed"
	c["spec"].(map[string]any)["tags"].([]any)[0] = "changed"
	c["spec"].(map[string]any)["color"] = "changed"
	if !reflect.DeepEqual(obj, decode(t, doc)) {
		t.Errorf("the original changed with its copy: %v", obj)
	}
	for _, v := range []any{nil, "s", int64(1), 1.5, true, json.Number("1"), map[string]any(nil), []any(nil)} {
		if got := DeepCopy(v); !reflect.DeepEqual(got, v) {
			t.Errorf("DeepCopy(%#v) = %#v", v, got)
		}
	}
}

func TestMapOf(t *testing.T) {
	gen := int64(1) << 60 // beyond float64's integers
	m, err := MapOf(&meta.ObjectMeta{Name: "n", Generation: gen, Labels: map[string]string{"b": "2", "a": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "n", "generation": gen, "labels": map[string]any{"a": "1", "b": "2"}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("MapOf: %#v; want %#v", m, want)
	}
	if _, err := MapOf([]int{1}); err == nil {
		t.Error("MapOf of an array succeeded")
	}
	if _, err := MapOf(func() {}); err == nil {
		t.Error("MapOf of a func succeeded")
	}
}
