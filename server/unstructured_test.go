package server

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apisem/apisem/jsonpath"
	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/table"
)

// TestUnstructuredJSON: decoding then encoding gives Kubernetes' bytes for
// an unstructured object, which encoding/json writes from a generic map.
func TestUnstructuredJSON(t *testing.T) {
	tests := []struct {
		reason, in, want string
	}{{
		reason: "members sorted: metadata where the alphabet puts it, data before kind",
		in:     `{"kind":"Gizmo","apiVersion":"demo.io/v1","spec":{"b":1,"a":2},"metadata":{"name":"g","namespace":"ns"},"data":{}}`,
		want:   `{"apiVersion":"demo.io/v1","data":{},"kind":"Gizmo","metadata":{"name":"g","namespace":"ns"},"spec":{"a":2,"b":1}}`,
	}, {
		reason: "metadata's own members are sorted too, unlike a typed object's",
		in:     `{"metadata":{"uid":"u","name":"g","labels":{"z":"1","a":"2"},"generation":3,"creationTimestamp":"2024-05-06T07:08:09Z","resourceVersion":"7"}}`,
		want:   `{"metadata":{"creationTimestamp":"2024-05-06T07:08:09Z","generation":3,"labels":{"a":"2","z":"1"},"name":"g","resourceVersion":"7","uid":"u"}}`,
	}, {
		reason: "integers within int64 stay exact; others are float64, written by encoding/json",
		in:     `{"n":{"max":9223372036854775807,"min":-9223372036854775808,"big":9223372036854775808,"one":1.0,"half":0.5,"tiny":1e-7,"huge":1e21,"exp":1E+2}}`,
		want:   `{"metadata":{},"n":{"big":9223372036854776000,"exp":100,"half":0.5,"huge":1e+21,"max":9223372036854775807,"min":-9223372036854775808,"one":1,"tiny":1e-7}}`,
	}, {
		reason: "HTML characters escaped as encoding/json escapes them",
		in:     `{"s":"<a&b>\u2028"}`,
		want:   `{"metadata":{},"s":"\u003ca\u0026b\u003e\u2028"}`,
	}, {
		reason: "upper case sorts before lower case (byte order)",
		in:     `{"b":null,"B":[],"a":true,"_":false}`,
		want:   `{"B":[],"_":false,"a":true,"b":null,"metadata":{}}`,
	}, {
		reason: "null metadata, kind and apiVersion are as absent",
		in:     `{"metadata":null,"kind":null,"apiVersion":null}`,
		want:   `{"metadata":{}}`,
	}, {
		reason: "unknown metadata fields are dropped by non-strict decoding",
		in:     `{"metadata":{"name":"g","colour":"red"}}`,
		want:   `{"metadata":{"name":"g"}}`,
	}}
	for _, tt := range tests {
		var u Unstructured
		if err := json.Unmarshal([]byte(tt.in), &u); err != nil {
			t.Errorf("%s:\nUnmarshal(%s) = %v", tt.reason, tt.in, err)
			continue
		}
		got, err := json.Marshal(&u)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\nMarshal(Unmarshal(%s))\n = %s, %v\nwant %s", tt.reason, tt.in, got, err, tt.want)
		}
	}
}

func TestUnstructuredJSONErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[]`, "cannot unmarshal array"},
		{`"x"`, "cannot unmarshal string"},
		{`{"kind":5}`, "cannot unmarshal number into Go struct field .kind of type string"},
		{`{"apiVersion":{}}`, "cannot unmarshal object into Go struct field .apiVersion"},
		{`{"metadata":[]}`, "cannot unmarshal array into Go struct field .metadata"},
		{`{"metadata":{"name":5}}`, "metadata: json: cannot unmarshal number"},
		{`{"metadata":{"creationTimestamp":"yesterday"}}`, "metadata: "},
		{`{"n":1e400}`, "cannot unmarshal number 1e400"},
	}
	for _, tt := range tests {
		var u Unstructured
		err := json.Unmarshal([]byte(tt.in), &u)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Unmarshal(%s) = %v; want an error containing %q", tt.in, err, tt.want)
		}
	}
}

// TestUnstructuredStrict: with no schema nothing outside metadata is
// unknown; duplicates are found at any depth and unknown metadata fields
// are reported with their path from the root, as Kubernetes reports them
// for a custom resource.
func TestUnstructuredStrict(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`{"spec":{"anything":1},"whatever":[{"x":1}]}`, nil},
		{`{"spec":{"a":1,"a":2}}`, []string{`duplicate field "spec.a"`}},
		{`{"spec":1,"spec":2}`, []string{`duplicate field "spec"`}},
		{`{"metadata":{"name":"g","colour":"red"}}`, []string{`unknown field "metadata.colour"`}},
		{`{"metadata":{"name":"a","name":"b"}}`, []string{`duplicate field "metadata.name"`}},
	}
	for _, tt := range tests {
		var u Unstructured
		strict, err := u.UnmarshalJSONStrict([]byte(tt.in))
		var got []string
		for _, e := range strict {
			got = append(got, e.Error())
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("UnmarshalJSONStrict(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	// Through negotiation.Decode, as the server decodes bodies.
	var u Unstructured
	_, err := negotiation.Decode([]byte(`{"metadata":{"name":"g","colour":"red"},"spec":{"x":1}}`), negotiation.JSON, &u,
		negotiation.DecodeOptions{Kind: "Gizmo", Version: "v1", FieldValidation: negotiation.FieldValidationStrict})
	want := `Gizmo in version "v1" cannot be handled as a Gizmo: strict decoding error: unknown field "metadata.colour"`
	if err == nil || err.Error() != want {
		t.Errorf("strict Decode = %v; want %s", err, want)
	}
}

func TestUnstructuredDeepCopy(t *testing.T) {
	var u Unstructured
	in := `{"metadata":{"name":"g","labels":{"a":"b"},"finalizers":["f"]},"spec":{"list":[{"x":1}],"m":{"k":"v"}}}`
	if err := json.Unmarshal([]byte(in), &u); err != nil {
		t.Fatal(err)
	}
	c := u.DeepCopy()
	if diff := cmp.Diff(&u, c); diff != "" {
		t.Fatalf("DeepCopy differs (-orig +copy):\n%s", diff)
	}
	// Change everything in the copy; the original must not see it.
	c.Labels["a"] = "changed"
	c.Finalizers[0] = "changed"
	c.Content["spec"].(map[string]any)["list"].([]any)[0].(map[string]any)["x"] = int64(2)
	c.Content["spec"].(map[string]any)["m"].(map[string]any)["k"] = "changed"
	c.Content["new"] = true
	got, _ := json.Marshal(&u)
	want := `{"metadata":{"finalizers":["f"],"labels":{"a":"b"},"name":"g"},"spec":{"list":[{"x":1}],"m":{"k":"v"}}}`
	if string(got) != want {
		t.Errorf("original after changing the copy = %s; want %s", got, want)
	}
	if (&Unstructured{}).DeepCopy().Content != nil {
		t.Error("DeepCopy of an empty object has Content")
	}
}

func TestParseFieldPath(t *testing.T) {
	var u Unstructured
	err := json.Unmarshal([]byte(`{"metadata":{"name":"g","creationTimestamp":"2024-05-06T07:08:09Z","labels":{"app.kubernetes.io/name":"x"}},
		"spec":{"color":"red","list":[{"type":"Ready","status":"True"},{"type":"Other"}],"nil":null}}`), &u)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want any // errParse: does not parse; errMissing: no value
	}{
		{".spec.color", "red"},
		{"{.spec.color}", "red"},
		{".spec.list[0].status", "True"},
		{".spec.list[-1].type", "Other"},
		{".spec.list[2]", errMissing},
		{".spec['color']", "red"},
		{`.spec["color"]`, "red"},
		{".metadata.labels['app.kubernetes.io/name']", "x"},
		{".metadata.name", "g"},
		{".metadata.creationTimestamp", "2024-05-06T07:08:09Z"},
		{".spec.nil", nil},
		{".spec.absent", errMissing},
		{".spec.color.deeper", errMissing},
		{".spec.list.type", errMissing},
		{"spec.color", errParse},
		{"..color", errParse},
		{".spec.list[*].type", errParse},
		{`.spec.list[?(@.type=="Ready")].status`, errParse},
		{".spec.list[0:1]", errParse},
		{".spec.list[0", errParse},
		{"", errParse},
	}
	for _, tt := range tests {
		p, err := parseFieldPath(tt.path)
		if err != nil {
			if tt.want != errParse {
				t.Errorf("parseFieldPath(%q) = %v", tt.path, err)
			}
			continue
		}
		if tt.want == errParse {
			t.Errorf("parseFieldPath(%q) parses; want an error", tt.path)
			continue
		}
		got, ok := p.Get(&u)
		if !ok {
			got = errMissing
		}
		if got != tt.want {
			t.Errorf("parseFieldPath(%q).Get = %v; want %v", tt.path, got, tt.want)
		}
	}
}

const (
	errParse   = "<parse error>"
	errMissing = "<missing>"
)

// TestJSONCell: a printer column's cell per type, as Kubernetes'
// custom-resource table convertor makes it.
func TestJSONCell(t *testing.T) {
	now := time.Date(2024, 5, 6, 8, 8, 9, 0, time.UTC)
	tests := []struct {
		typ  string
		v    any
		want any
	}{
		{"string", "red", "red"},
		{"string", int64(3), "3"},
		{"string", 0.5, "0.5"},
		{"string", true, "true"},
		{"string", nil, "<no value>"},
		{"string", map[string]any{"b": int64(1), "a": "<"}, `{"a":"\u003c","b":1}`},
		{"string", []any{"x"}, `["x"]`},
		{"integer", int64(3), int64(3)},
		{"integer", 3.9, int64(3)},
		{"integer", "3", nil},
		{"number", int64(3), float64(3)},
		{"number", 0.5, 0.5},
		{"boolean", true, true},
		{"boolean", "true", nil},
		{"date", "2024-05-06T07:08:09Z", "60m"},
		{"date", "yesterday", "<invalid>"},
		{"date", int64(1), nil},
		{"date", "", "<unknown>"},
		{"date", "null", "<unknown>"},
		{"date", "0001-01-01T00:00:00Z", "<unknown>"},
		{"date", nil, nil},
		{"integer", nil, nil},
		{"integer", 1, nil}, // a template's literal is an int, not an int64
		{"integer", json.Number("7"), int64(7)},
		{"number", json.Number("0.5"), 0.5},
		{"string", json.Number("0.50"), "0.50"},
		{"string", uint8('a'), "97"},
		{"string", jsonpath.Missing{}, nil},
	}
	for _, tt := range tests {
		if got := jsonCell(tt.typ, tt.v, now); got != tt.want {
			t.Errorf("jsonCell(%q, %#v) = %#v; want %#v", tt.typ, tt.v, got, tt.want)
		}
	}
}

// TestJSONPathColumn: cells of columns with kubectl's full JSONPath, on
// the whole object, the first value found.
func TestJSONPathColumn(t *testing.T) {
	var u Unstructured
	if err := json.Unmarshal([]byte(`{"apiVersion":"demo.io/v1","kind":"Gizmo",
		"metadata":{"name":"g1","labels":{"tier":"web"},"creationTimestamp":"2024-05-06T07:08:09Z"},
		"spec":{"containers":[{"name":"a","port":80},{"name":"b","port":81}],"size":2.5},
		"status":{"conditions":[{"type":"Synced","status":"False"},{"type":"Ready","status":"True"}]}}`), &u); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2024, 5, 6, 8, 8, 9, 0, time.UTC)
	tests := []struct {
		path, typ string
		want      any
	}{
		{`.status.conditions[?(@.type=="Ready")].status`, "string", "True"},
		{`.status.conditions[?(@.type=="Gone")].status`, "string", nil},
		{`.status.conditions[?(@.type==1)].status`, "string", nil}, // an evaluation error
		{".spec.containers[*].name", "string", "a"},
		{".spec.containers[*].port", "integer", int64(80)},
		{".spec.containers[-1:].port", "number", float64(81)},
		{".spec.size", "integer", int64(2)},
		{".spec", "string", `{"containers":[{"name":"a","port":80},{"name":"b","port":81}],"size":2.5}`},
		{".metadata.name", "string", "g1"},
		{".metadata.labels.tier", "string", "web"},
		{".metadata.creationTimestamp", "date", "60m"},
		{".kind", "string", "Gizmo"},
		{"..type", "string", "Synced"},
		{".spec.missing", "string", nil},
		{`.metadata.labels['tier']`, "string", "web"},
	}
	for _, tt := range tests {
		col, err := JSONPathColumn(table.Column{Name: "c", Type: tt.typ}, tt.path)
		if err != nil {
			t.Errorf("JSONPathColumn(%q) = %v", tt.path, err)
			continue
		}
		if got := col.Cell(&u, now); got != tt.want {
			t.Errorf("cell of %q (%s) = %#v; want %#v", tt.path, tt.typ, got, tt.want)
		}
	}
	if _, err := JSONPathColumn(table.Column{Name: "c", Type: "string"}, ".a[x]"); err == nil {
		t.Errorf("JSONPathColumn(.a[x]) parses; want an error")
	}
}

// ExampleUnstructured decodes an object of a type the program has no Go
// type for, reads a nested field and writes it back in Kubernetes' order.
func ExampleUnstructured() {
	var u Unstructured
	err := json.Unmarshal([]byte(`{"kind":"Gizmo","apiVersion":"demo.io/v1",
		"metadata":{"name":"g1","labels":{"tier":"web"}},
		"spec":{"color":"red","size":3}}`), &u)
	if err != nil {
		panic(err)
	}
	color, _, _ := jsonvalue.NestedString(u.Content, "spec", "color")
	size, _, _ := jsonvalue.NestedInt64(u.Content, "spec", "size")
	fmt.Println(u.Kind, u.Name, color, size)

	u.Labels["tier"] = "db"
	_ = jsonvalue.SetNestedField(u.Content, "blue", "spec", "color")
	b, _ := json.Marshal(&u)
	fmt.Println(string(b))
	// Output:
	// Gizmo g1 red 3
	// {"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"labels":{"tier":"db"},"name":"g1"},"spec":{"color":"blue","size":3}}
}

// Paths into metadata read it without managedFields only when they go
// through another member: every cell and field path is what it is with
// the whole metadata.
func TestMetadataPathsWithoutManagedFields(t *testing.T) {
	var u Unstructured
	if err := json.Unmarshal([]byte(`{"apiVersion":"demo.io/v1","kind":"Gizmo",
		"metadata":{"name":"g1","labels":{"tier":"web"},"creationTimestamp":"2024-05-06T07:08:09Z",
			"managedFields":[{"manager":"m","operation":"Apply","apiVersion":"demo.io/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:x":{}}}}]},
		"spec":{"x":1}}`), &u); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2024, 5, 6, 8, 8, 9, 0, time.UTC)
	for _, tt := range []struct {
		path string
		skip bool
		want any
	}{
		{".metadata.creationTimestamp", true, "60m"},
		{".metadata.labels.tier", true, "web"},
		{".metadata.labels['tier']", true, "web"},
		{".metadata.name", true, "g1"},
		{".metadata.managedFields[0].manager", false, "m"},
		{".metadata.managedFields[*].operation", false, "Apply"},
		{".metadata['managedFields'][0].manager", false, "m"},
		{".metadata..manager", false, "m"},
		{"..manager", false, "m"},
		{".metadata.managedFields", false, `[{"apiVersion":"demo.io/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:x":{}}},"manager":"m","operation":"Apply"}]`},
		{".metadata.*", false, nil}, // the first of metadata's values: any
	} {
		if got := skipsManagedFields(tt.path); got != tt.skip {
			t.Errorf("skipsManagedFields(%q) = %v", tt.path, got)
		}
		typ := "string"
		if tt.path == ".metadata.creationTimestamp" {
			typ = "date"
		}
		col, err := JSONPathColumn(table.Column{Name: "c", Type: typ}, tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := col.Cell(&u, now); tt.want != nil && got != tt.want {
			t.Errorf("cell of %q = %#v; want %#v", tt.path, got, tt.want)
		}
	}
	for path, want := range map[string]any{
		".metadata.name":                          "g1",
		".metadata.managedFields[0].manager":      "m",
		".metadata['managedFields'][0].operation": "Apply",
		".metadata.labels.tier":                   "web",
	} {
		p, err := parseFieldPath(path)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := p.Get(&u); !ok || got != want {
			t.Errorf("%s = %#v %v; want %#v", path, got, ok, want)
		}
	}
	// An entry that does not encode fails the metadata, as before.
	bad := u.DeepCopy()
	bad.ManagedFields[0].FieldsV1.Raw = []byte(`{`)
	p, _ := parseFieldPath(".metadata.name")
	if v, ok := p.Get(bad); ok {
		t.Errorf("metadata with an invalid entry read: %v", v)
	}
}
