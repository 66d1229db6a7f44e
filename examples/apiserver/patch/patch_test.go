package patch

import (
	"bytes"
	"encoding/json"
	"errors"
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

// From RFC 7386 Appendix A, row by row.
var mergeTests = []struct{ doc, patch, want string }{
	{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
	{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
	{`{"a":"b"}`, `{"a":null}`, `{}`},
	{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
	{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
	{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
	{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
	{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
	{`["a","b"]`, `["c","d"]`, `["c","d"]`},
	{`{"a":"b"}`, `["c"]`, `["c"]`},
	{`{"a":"foo"}`, `null`, `null`},
	{`{"a":"foo"}`, `"bar"`, `"bar"`},
	{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
	{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
	{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	// Not from the RFC: large integers survive unrounded.
	{`{"n":1}`, `{"m":12345678901234567890123}`, `{"n":1,"m":12345678901234567890123}`},
}

func TestMergePatch(t *testing.T) {
	for _, tt := range mergeTests {
		got, err := MergePatch([]byte(tt.doc), []byte(tt.patch))
		if err != nil {
			t.Errorf("MergePatch(%s, %s) = err %v; want %s", tt.doc, tt.patch, err, tt.want)
			continue
		}
		if !sameJSON(t, got, []byte(tt.want)) {
			t.Errorf("MergePatch(%s, %s) = %s; want %s", tt.doc, tt.patch, got, tt.want)
		}
	}
}

func TestMergePatchMalformed(t *testing.T) {
	for _, tt := range []struct{ doc, patch string }{
		{`{}`, `{`},
		{`{}`, `{} {}`},
		{`{`, `{}`},
		{`{}`, ``},
	} {
		_, err := MergePatch([]byte(tt.doc), []byte(tt.patch))
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("MergePatch(%q, %q) = err %v; want ErrMalformed", tt.doc, tt.patch, err)
		}
	}
}

// From RFC 6902 Appendix A (A.1 to A.16), then edge cases of indexes and
// pointers. want "" means an error wrapping wantErr.
var jsonPatchTests = []struct {
	name, doc, patch, want string
	wantErr                error
}{
	{"A.1 adding an object member", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux"}]`, `{"baz":"qux","foo":"bar"}`, nil},
	{"A.2 adding an array element", `{"foo":["bar","baz"]}`, `[{"op":"add","path":"/foo/1","value":"qux"}]`, `{"foo":["bar","qux","baz"]}`, nil},
	{"A.3 removing an object member", `{"baz":"qux","foo":"bar"}`, `[{"op":"remove","path":"/baz"}]`, `{"foo":"bar"}`, nil},
	{"A.4 removing an array element", `{"foo":["bar","qux","baz"]}`, `[{"op":"remove","path":"/foo/1"}]`, `{"foo":["bar","baz"]}`, nil},
	{"A.5 replacing a value", `{"baz":"qux","foo":"bar"}`, `[{"op":"replace","path":"/baz","value":"boo"}]`, `{"baz":"boo","foo":"bar"}`, nil},
	{"A.6 moving a value", `{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`,
		`[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`,
		`{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`, nil},
	{"A.7 moving an array element", `{"foo":["all","grass","cows","eat"]}`, `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`,
		`{"foo":["all","cows","eat","grass"]}`, nil},
	{"A.8 testing a value: success", `{"baz":"qux","foo":["a",2,"c"]}`,
		`[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`,
		`{"baz":"qux","foo":["a",2,"c"]}`, nil},
	{"A.9 testing a value: error", `{"baz":"qux"}`, `[{"op":"test","path":"/baz","value":"bar"}]`, "", ErrNotApplicable},
	{"A.10 adding a nested member object", `{"foo":"bar"}`, `[{"op":"add","path":"/child","value":{"grandchild":{}}}]`,
		`{"foo":"bar","child":{"grandchild":{}}}`, nil},
	{"A.11 ignoring unrecognized elements", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux","xyz":123}]`,
		`{"foo":"bar","baz":"qux"}`, nil},
	{"A.12 adding to a nonexistent target", `{"foo":"bar"}`, `[{"op":"add","path":"/baz/bat","value":"qux"}]`, "", ErrNotApplicable},
	// A.13 (a duplicate "op" member) is left to the server's strict
	// decoding of the patch, which reports duplicate fields; here the last
	// "op" wins and the remove fails.
	{"A.13 invalid JSON patch document", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux","op":"remove"}]`, "", ErrNotApplicable},
	{"A.14 ~ escape ordering", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":10}]`, `{"/":9,"~1":10}`, nil},
	{"A.15 comparing strings and numbers", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":"10"}]`, "", ErrNotApplicable},
	{"A.16 adding an array value", `{"foo":["bar"]}`, `[{"op":"add","path":"/foo/-","value":["abc","def"]}]`,
		`{"foo":["bar",["abc","def"]]}`, nil},

	{"add at the end by index", `{"a":[1]}`, `[{"op":"add","path":"/a/1","value":2}]`, `{"a":[1,2]}`, nil},
	{"add past the end", `{"a":[1]}`, `[{"op":"add","path":"/a/2","value":2}]`, "", ErrNotApplicable},
	{"leading zero index", `{"a":[1,2]}`, `[{"op":"replace","path":"/a/01","value":3}]`, "", ErrNotApplicable},
	{"negative index", `{"a":[1,2]}`, `[{"op":"remove","path":"/a/-1"}]`, "", ErrNotApplicable},
	{"dash outside add", `{"a":[1,2]}`, `[{"op":"remove","path":"/a/-"}]`, "", ErrNotApplicable},
	{"replace the root", `{"a":1}`, `[{"op":"replace","path":"","value":{"b":2}}]`, `{"b":2}`, nil},
	{"remove the root", `{"a":1}`, `[{"op":"remove","path":""}]`, "", ErrNotApplicable},
	{"replace a missing member", `{"a":1}`, `[{"op":"replace","path":"/b","value":2}]`, "", ErrNotApplicable},
	{"copy", `{"a":{"x":[1]}}`, `[{"op":"copy","from":"/a","path":"/b"},{"op":"add","path":"/b/x/-","value":2}]`,
		`{"a":{"x":[1]},"b":{"x":[1,2]}}`, nil},
	{"move into its own child", `{"a":{"b":{}}}`, `[{"op":"move","from":"/a","path":"/a/b/c"}]`, "", ErrNotApplicable},
	{"move to itself", `{"a":[1,2]}`, `[{"op":"move","from":"/a/0","path":"/a/0"}]`, `{"a":[1,2]}`, nil},
	{"test numbers numerically", `{"a":1}`, `[{"op":"test","path":"/a","value":1.0},{"op":"test","path":"/a","value":1e0}]`, `{"a":1}`, nil},
	{"test objects ignore member order", `{"a":{"x":1,"y":[true,null]}}`, `[{"op":"test","path":"/a","value":{"y":[true,null],"x":1}}]`,
		`{"a":{"x":1,"y":[true,null]}}`, nil},
	{"test arrays respect order", `{"a":[1,2]}`, `[{"op":"test","path":"/a","value":[2,1]}]`, "", ErrNotApplicable},
	{"add null", `{}`, `[{"op":"add","path":"/a","value":null}]`, `{"a":null}`, nil},
	{"all or nothing", `{"a":1}`, `[{"op":"add","path":"/b","value":2},{"op":"test","path":"/a","value":2}]`, "", ErrNotApplicable},
	{"escape in member name", `{"a/b":1}`, `[{"op":"remove","path":"/a~1b"}]`, `{}`, nil},

	{"not an array", `{}`, `{"op":"add"}`, "", ErrMalformed},
	{"operation not an object", `{}`, `[1]`, "", ErrMalformed},
	{"unknown op", `{}`, `[{"op":"frob","path":"/a"}]`, "", ErrMalformed},
	{"missing path", `{}`, `[{"op":"add","value":1}]`, "", ErrMalformed},
	{"missing value", `{}`, `[{"op":"add","path":"/a"}]`, "", ErrMalformed},
	{"missing from", `{}`, `[{"op":"copy","path":"/a"}]`, "", ErrMalformed},
	{"pointer without slash", `{}`, `[{"op":"add","path":"a","value":1}]`, "", ErrMalformed},
	{"bad escape", `{}`, `[{"op":"add","path":"/a~2","value":1}]`, "", ErrMalformed},
	{"trailing tilde", `{}`, `[{"op":"add","path":"/a~","value":1}]`, "", ErrMalformed},
}

func TestJSONPatch(t *testing.T) {
	for _, tt := range jsonPatchTests {
		got, err := JSONPatch([]byte(tt.doc), []byte(tt.patch), Limits{})
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("%s: JSONPatch(%s, %s) = %s, err %v; want error %v", tt.name, tt.doc, tt.patch, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: JSONPatch(%s, %s) = err %v; want %s", tt.name, tt.doc, tt.patch, err, tt.want)
			continue
		}
		if !sameJSON(t, got, []byte(tt.want)) {
			t.Errorf("%s: JSONPatch(%s, %s) = %s; want %s", tt.name, tt.doc, tt.patch, got, tt.want)
		}
	}
}

func TestJSONPatchLimits(t *testing.T) {
	ops := `[` + strings.Repeat(`{"op":"test","path":"","value":{}},`, 3) + `{"op":"test","path":"","value":{}}]`
	if _, err := JSONPatch([]byte(`{}`), []byte(ops), Limits{MaxOperations: 3}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("4 operations with MaxOperations 3: err %v; want ErrTooLarge", err)
	}
	if _, err := JSONPatch([]byte(`{}`), []byte(ops), Limits{MaxOperations: 4}); err != nil {
		t.Errorf("4 operations with MaxOperations 4: err %v", err)
	}

	// Each copy doubles the document: 40 of them would need a terabyte.
	var b strings.Builder
	b.WriteString(`[{"op":"add","path":"/a","value":["xxxxxxxxxxxxxxxx"]}`)
	for range 40 {
		b.WriteString(`,{"op":"copy","from":"/a","path":"/a/-"}`)
	}
	b.WriteString(`]`)
	if _, err := JSONPatch([]byte(`{}`), []byte(b.String()), Limits{MaxCopyBytes: 1 << 20}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("doubling copies: err %v; want ErrTooLarge", err)
	}
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
		`{"metadata":{"finalizers":["a","b","c"]}}`, nil},
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
		`{"status":{"phase":"Active","conditions":[{"type":"A","status":"False"},{"type":"B","status":"False"}]}}`, nil},
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
	want := `{"metadata":{"finalizers":["a","f","fx","fxx","fxxx","fxxxx","fxxxxx","fxxxxxx"]}}`
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

// Inserting at the front of a long list moves every element; a patch may
// not move more than MaxArrayMoves in total.
func TestJSONPatchShiftBudget(t *testing.T) {
	doc := `{"a":[` + strings.Repeat(`0,`, 999) + `0]}`
	lim := Limits{MaxArrayMoves: 50000}
	ops := `[` + strings.Repeat(`{"op":"add","path":"/a/0","value":1},`, 99) + `{"op":"add","path":"/a/0","value":1}]`
	if _, err := JSONPatch([]byte(doc), []byte(ops), lim); !errors.Is(err, ErrTooLarge) {
		t.Errorf("100 inserts at the front of 1,000 elements: err %v; want ErrTooLarge", err)
	}
	// Appending and removing at the end moves nothing.
	ops = `[` + strings.Repeat(`{"op":"add","path":"/a/-","value":1},`, 99) + `{"op":"remove","path":"/a/1098"}]`
	if _, err := JSONPatch([]byte(doc), []byte(ops), lim); err != nil {
		t.Errorf("100 appends: %v", err)
	}
}
