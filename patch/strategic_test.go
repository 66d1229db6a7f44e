package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// sameJSON reports whether a and b encode the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	av, err := decode(a, "a")
	if err != nil {
		t.Fatalf("decode %s: %v", a, err)
	}
	bv, err := decode(b, "b")
	if err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return equal(av, bv)
}

// equal is the naive reference for keyOf: whether a and b are the same JSON
// value (objects with the same members in any order, numbers with the same
// numeric value, RFC 6902 section 4.6).
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && numbersEqual(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

func numbersEqual(a, b json.Number) bool {
	if x, err := strconv.ParseInt(string(a), 10, 64); err == nil {
		if y, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return x == y
		}
	}
	x, okx := parseNumber(a)
	y, oky := parseNumber(b)
	return okx && oky && x.Cmp(y) == 0
}

// From RFC 7386 Appendix A: the rows whose document and patch are objects.
var mergeTests = []struct{ doc, patch, want string }{
	{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
	{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
	{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
	{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
	{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
	{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
	{`{"n":1}`, `{"m":12345678901234567890123}`, `{"n":1,"m":12345678901234567890123}`},
}

// schema is the patch strategy of a Namespace, ConfigMap or Secret.
var schema = &Schema{Fields: map[string]*Schema{
	"metadata": {Fields: map[string]*Schema{
		"finalizers":      {MergeList: true},
		"ownerReferences": {MergeList: true, MergeKey: "uid"},
	}},
	"status": {Fields: map[string]*Schema{
		"conditions": {MergeList: true, MergeKey: "type"},
	}},
}}

var strategicTests = []struct {
	name, doc, patch, want string
	wantErr                error
}{
	{"kubectl label", `{"metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}`,
		`{"metadata":{"labels":{"y":"2"}}}`,
		`{"metadata":{"name":"a","labels":{"x":"1","y":"2"}},"data":{"k":"v"}}`, nil},
	{"kubectl label x-", `{"metadata":{"name":"a","labels":{"x":"1","y":"2"}}}`,
		`{"metadata":{"labels":{"x":null}}}`,
		`{"metadata":{"name":"a","labels":{"y":"2"}}}`, nil},
	{"null for an absent field", `{"metadata":{"name":"a"}}`, `{"metadata":{"labels":null}}`, `{"metadata":{"name":"a"}}`, nil},
	{"kubectl edit of data", `{"metadata":{"name":"a","resourceVersion":"5"},"data":{"k":"v","j":"w"}}`,
		`{"data":{"k":"v2"},"metadata":{"resourceVersion":"5"}}`,
		`{"metadata":{"name":"a","resourceVersion":"5"},"data":{"k":"v2","j":"w"}}`, nil},
	{"finalizers merge as a set", `{"metadata":{"finalizers":["a","b"]}}`,
		`{"metadata":{"finalizers":["c","a","c"]}}`,
		// Kubernetes' order: the patch's elements first where the
		// server's cannot be placed before them.
		`{"metadata":{"finalizers":["c","a","b"]}}`, nil},
	{"apply drops a finalizer and adds one", `{"metadata":{"finalizers":["a","b"]}}`,
		`{"metadata":{"$setElementOrder/finalizers":["a","c"],"$deleteFromPrimitiveList/finalizers":["b"],"finalizers":["c"]}}`,
		`{"metadata":{"finalizers":["a","c"]}}`, nil},
	{"apply adds next to a server-only finalizer", `{"metadata":{"finalizers":["a","b"]}}`,
		`{"metadata":{"$setElementOrder/finalizers":["a","c"],"finalizers":["c"]}}`,
		`{"metadata":{"finalizers":["a","c","b"]}}`, nil},
	{"delete from an absent list", `{"metadata":{}}`,
		`{"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}}`, `{"metadata":{}}`, nil},
	{"replacing list elsewhere", `{"spec":{"finalizers":["kubernetes","x"]}}`, `{"spec":{"finalizers":["y"]}}`,
		`{"spec":{"finalizers":["y"]}}`, nil},
	{"ownerReferences merge by uid", `{"metadata":{"ownerReferences":[{"uid":"1","name":"x"},{"uid":"2","name":"y","controller":true}]}}`,
		`{"metadata":{"ownerReferences":[{"uid":"2","name":"z"},{"uid":"3","name":"w"}]}}`,
		`{"metadata":{"ownerReferences":[{"uid":"1","name":"x"},{"uid":"2","name":"z","controller":true},{"uid":"3","name":"w"}]}}`, nil},
	{"ownerReferences $patch delete", `{"metadata":{"ownerReferences":[{"uid":"1"},{"uid":"2"}]}}`,
		`{"metadata":{"ownerReferences":[{"$patch":"delete","uid":"1"}]}}`,
		`{"metadata":{"ownerReferences":[{"uid":"2"}]}}`, nil},
	{"ownerReferences $patch replace", `{"metadata":{"ownerReferences":[{"uid":"1"},{"uid":"2"}]}}`,
		`{"metadata":{"ownerReferences":[{"$patch":"replace"},{"uid":"9","name":"n"}]}}`,
		`{"metadata":{"ownerReferences":[{"uid":"9","name":"n"}]}}`, nil},
	{"ownerReferences order with a server-only element", `{"metadata":{"ownerReferences":[{"uid":"a"},{"uid":"x"},{"uid":"b"}]}}`,
		`{"metadata":{"$setElementOrder/ownerReferences":[{"uid":"b"},{"uid":"a"}]}}`,
		`{"metadata":{"ownerReferences":[{"uid":"x"},{"uid":"b"},{"uid":"a"}]}}`, nil},
	{"ownerReferences a null member removes the field", `{"metadata":{"ownerReferences":[{"uid":"1","controller":true}]}}`,
		`{"metadata":{"ownerReferences":[{"uid":"1","controller":null}]}}`,
		`{"metadata":{"ownerReferences":[{"uid":"1"}]}}`, nil},
	{"conditions merge by type", `{"status":{"phase":"Active","conditions":[{"type":"A","status":"True"}]}}`,
		`{"status":{"conditions":[{"type":"B","status":"False"},{"type":"A","status":"False"}]}}`,
		`{"status":{"phase":"Active","conditions":[{"type":"B","status":"False"},{"type":"A","status":"False"}]}}`, nil},
	{"$patch replace on a map", `{"data":{"a":"1","b":"2"}}`, `{"data":{"$patch":"replace","c":"3"}}`, `{"data":{"c":"3"}}`, nil},
	{"$patch delete on a map", `{"data":{"a":"1"},"x":1}`, `{"data":{"$patch":"delete"}}`, `{"data":{},"x":1}`, nil},
	{"$patch replace at the top", `{"data":{"a":"1"},"kind":"ConfigMap"}`, `{"$patch":"replace","kind":"ConfigMap"}`, `{"kind":"ConfigMap"}`, nil},
	{"$retainKeys", `{"data":{"a":"1","b":"2","c":"3"}}`, `{"data":{"$retainKeys":["a","c"],"a":"x"}}`, `{"data":{"a":"x","c":"3"}}`, nil},
	{"new value loses its directives", `{}`,
		`{"metadata":{"ownerReferences":[{"uid":"1"},{"$patch":"delete","uid":"2"}],"labels":{"a":null,"b":"1"}}}`,
		`{"metadata":{"ownerReferences":[{"uid":"1"}],"labels":{"b":"1"}}}`, nil},
	{"type change replaces", `{"data":{"a":"1"}}`, `{"data":["x"]}`, `{"data":["x"]}`, nil},

	{"not an object", `{}`, `[1]`, "", ErrMalformed},
	{"unknown $patch", `{"data":{}}`, `{"data":{"$patch":"frob"}}`, "", ErrMalformed},
	{"$retainKeys not a list", `{"data":{}}`, `{"data":{"$retainKeys":"a"}}`, "", ErrMalformed},
	{"patch outside $retainKeys", `{"data":{}}`, `{"data":{"$retainKeys":["a"],"b":"1"}}`, "", ErrMalformed},
	{"$deleteFromPrimitiveList not a list", `{"metadata":{"finalizers":["a"]}}`, `{"metadata":{"$deleteFromPrimitiveList/finalizers":"a"}}`, "", ErrMalformed},
	{"$setElementOrder not a list", `{"metadata":{"finalizers":["a"]}}`, `{"metadata":{"$setElementOrder/finalizers":"a"}}`, "", ErrMalformed},
	{"order does not match the patch list", `{"metadata":{"finalizers":["a"]}}`,
		`{"metadata":{"$setElementOrder/finalizers":["a","b"],"finalizers":["b","a"]}}`, "", ErrMalformed},
	{"element without merge key", `{"metadata":{"ownerReferences":[{"uid":"1"}]}}`, `{"metadata":{"ownerReferences":[{"name":"x"}]}}`, "", ErrMalformed},
	{"delete without merge key", `{"metadata":{"ownerReferences":[{"uid":"1"}]}}`, `{"metadata":{"ownerReferences":[{"$patch":"delete"}]}}`, "", ErrMalformed},
	{"$patch merge in a list", `{"metadata":{"ownerReferences":[{"uid":"1"}]}}`, `{"metadata":{"ownerReferences":[{"$patch":"merge"}]}}`, "", ErrMalformed},
	{"scalar in a list of objects", `{"metadata":{"ownerReferences":[{"uid":"1"}]}}`, `{"metadata":{"ownerReferences":["x"]}}`, "", ErrMalformed},
}

func TestStrategicMergePatch(t *testing.T) {
	for _, tt := range strategicTests {
		got, err := StrategicMergePatch([]byte(tt.doc), []byte(tt.patch), schema)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("%s: StrategicMergePatch(%s, %s) = %s, err %v; want error %v", tt.name, tt.doc, tt.patch, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: StrategicMergePatch(%s, %s) = err %v; want %s", tt.name, tt.doc, tt.patch, err, tt.want)
			continue
		}
		if !bytes.Equal(got, mustCompact(t, tt.want)) && !sameJSON(t, got, []byte(tt.want)) {
			t.Errorf("%s: StrategicMergePatch(%s, %s) = %s; want %s", tt.name, tt.doc, tt.patch, got, tt.want)
		}
	}
}

func mustCompact(t *testing.T, s string) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A strategic merge patch with a nil schema, no directives and no nulls is
// a merge patch.
func TestStrategicWithoutSchemaIsMergePatch(t *testing.T) {
	for _, tt := range mergeTests {
		if !strings.HasPrefix(tt.doc, "{") || !strings.HasPrefix(tt.patch, "{") || strings.Contains(tt.patch, "null") {
			continue
		}
		got, err := StrategicMergePatch([]byte(tt.doc), []byte(tt.patch), nil)
		if err != nil || !sameJSON(t, got, []byte(tt.want)) {
			t.Errorf("StrategicMergePatch(%s, %s, nil) = %s, %v; want %s", tt.doc, tt.patch, got, err, tt.want)
		}
	}
}

// The list helpers are linear: a patch the size of a request body with one
// huge finalizer list must not take quadratic time. (Correctness here; the
// benchmark shows the cost.)
func TestStrategicLargeLists(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"metadata":{"finalizers":[`)
	for i := range 50000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"f`)
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(`"`)
	}
	b.WriteString(`]}}`)
	got, err := StrategicMergePatch([]byte(`{"metadata":{"finalizers":["a"]}}`), []byte(b.String()), schema)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"finalizers":["f","fx","fxx","fxxx","fxxxx","fxxxxx","fxxxxxx","a"]}}`
	if string(got) != want {
		t.Errorf("got %s; want %s", got, want)
	}
}

func TestKeyOfMatchesEqual(t *testing.T) {
	vals := []string{`1`, `1.0`, `1e0`, `10e-1`, `2`, `"1"`, `true`, `false`, `null`, `12345678901234567890123`,
		`1.2345678901234567890123e22`, `{"a":1}`, `{"a":1}`, `[1]`, `"x"`}
	for _, a := range vals {
		for _, b := range vals {
			av, _ := decode([]byte(a), "a")
			bv, _ := decode([]byte(b), "b")
			if e, k := equal(av, bv), keyOf(av) == keyOf(bv); e != k {
				t.Errorf("%s vs %s: equal %v, same key %v", a, b, e, k)
			}
		}
	}
}

// Huge exponents are cheap to compare (a decimal rendering of 1e99999999
// would take minutes).
func TestHugeExponents(t *testing.T) {
	got, err := StrategicMergePatch([]byte(`{"metadata":{"finalizers":[1e99999999]}}`),
		[]byte(`{"metadata":{"finalizers":[1e99999999,2e-99999999,1e9999999999999,10e99999998]}}`), schema)
	want := `{"metadata":{"finalizers":[1e99999999,2e-99999999,1e9999999999999]}}`
	if err != nil || string(got) != want {
		t.Errorf("got %s, %v; want %s", got, err, want)
	}
}
