package server

import (
	"strings"
	"testing"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/apisem/apisem/openapi"
)

const applyCT = "application/apply-patch+yaml"

// The options and body of an apply, and of the other writes' managedFields
// parameters, answer in Kubernetes' words.
func TestApplyRequests(t *testing.T) {
	_, base := newGizmoServer(t)
	g1 := gizmos + "/g1"
	cfg := "apiVersion: demo.io/v1\nkind: Gizmo\nmetadata:\n  name: g1\nspec:\n  color: red\n"
	for _, tt := range []struct {
		name, method, path, ct, body string
		code                         int
		message                      string
	}{
		{"apply needs a manager", "PATCH", g1, applyCT, cfg, 422,
			`PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
		{"every option problem at once", "PATCH", g1 + "?dryRun=x&fieldValidation=y", applyCT, cfg, 422,
			`PatchOptions.meta.k8s.io "" is invalid: [fieldManager: Required value: is required for apply patch, ` +
				`dryRun: Unsupported value: ["x"]: supported values: "All", fieldValidation: Unsupported value: "y": supported values: "", "Ignore", "Strict", "Warn"]`},
		{"force is for apply", "PATCH", g1 + "?force=true", "application/merge-patch+json", `{}`, 422,
			`PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`},
		{"manager too long", "POST", gizmos + "?fieldManager=" + strings.Repeat("m", 129), "application/json", `{}`, 422,
			`CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes`},
		{"not YAML", "PATCH", g1 + "?fieldManager=m", applyCT, "a: [", 400,
			"error decoding YAML: error converting YAML to JSON: yaml: line 1: did not find expected node content"},
		{"not an object", "PATCH", g1 + "?fieldManager=m", applyCT, "[1]", 400,
			"error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{"no kind", "PATCH", g1 + "?fieldManager=m", applyCT, "metadata:\n  name: g1\n", 400, "invalid object type: /, Kind="},
		{"other name", "PATCH", g1 + "?fieldManager=m", applyCT, strings.Replace(cfg, "g1", "g2", 1), 400,
			"the name of the object (g2) does not match the name on the URL (g1)"},
		{"duplicate keys, Strict", "PATCH", g1 + "?fieldManager=m&fieldValidation=Strict", applyCT, cfg + "spec:\n  size: 1\n", 400,
			"error strict decoding patch: error converting YAML to JSON: yaml: unmarshal errors:\n  line 8: key \"spec\" already set in map"},
		{"dry-run create", "PATCH", g1 + "?fieldManager=m&dryRun=All", applyCT, cfg, 201, ""},
		{"create", "PATCH", g1 + "?fieldManager=m", applyCT, cfg, 201, ""},
		{"change", "PATCH", g1 + "?fieldManager=m", applyCT, strings.Replace(cfg, "red", "blue", 1), 200, ""},
		{"conflict", "PATCH", g1 + "?fieldManager=n", applyCT, cfg, 409,
			`Apply failed with 1 conflict: conflict with "m": .spec.color`},
		{"force", "PATCH", g1 + "?fieldManager=n&force=true", applyCT, cfg, 200, ""},
		{"stale resourceVersion", "PATCH", g1 + "?fieldManager=n", applyCT, strings.Replace(cfg, "name: g1", "name: g1\n  resourceVersion: \"1\"", 1), 409, ""},
		{"unknown patch type", "PATCH", g1, "application/apply-patch+cbor", cfg, 415, ""},
	} {
		r := do(t, tt.code, base, tt.method, tt.path, tt.body, "Content-Type", tt.ct)
		if tt.message != "" {
			if got := jsonField(t, r.body, "message"); got != tt.message {
				t.Errorf("%s: message\n%q\nwant\n%q", tt.name, got, tt.message)
			}
		}
	}
	// Warn mode: the duplicate key is a warning, one per line.
	r := do(t, 200, base, "PATCH", g1+"?fieldManager=n", cfg+"spec:\n  color: red\n", "Content-Type", applyCT)
	if w := r.header.Get("Warning"); w != `299 - "line 8: key \"spec\" already set in map"` {
		t.Errorf("Warning %q", w)
	}
	// The object: n took m's color by force; m keeps the spec map itself
	// (gizmos have no schema: every map is a field of its own).
	r = do(t, 200, base, "GET", g1, "")
	want := `"managedFields":[{"apiVersion":"demo.io/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}},"manager":"m",` +
		`"operation":"Apply","time":"2024-05-06T07:08:09Z"},{"apiVersion":"demo.io/v1","fieldsType":"FieldsV1",` +
		`"fieldsV1":{"f:spec":{".":{},"f:color":{}}},"manager":"n","operation":"Apply","time":"2024-05-06T07:08:09Z"}]`
	if !strings.Contains(r.body, want) {
		t.Errorf("got %s\nwant managedFields %s", r.body, want)
	}
}

// The smd types of schemas follow Kubernetes' conversion: list-type,
// list-map-keys and map-type, and patch strategies for lists without a
// list type.
func TestSMDSchema(t *testing.T) {
	str := &openapi.Schema{Type: "string"}
	s := smdSchema(map[string]*openapi.Schema{"T": {Type: "object", Properties: map[string]*openapi.Schema{
		"atomic":   {Type: "array", Items: str},
		"set":      {Type: "array", ListType: "set", Items: str},
		"map":      {Type: "array", ListType: "map", ListMapKeys: []string{"k"}, Items: &openapi.Schema{Ref: "E"}},
		"merge":    {Type: "array", PatchStrategy: "merge", PatchMergeKey: "name", Items: &openapi.Schema{Ref: "E"}},
		"mergeSet": {Type: "array", PatchStrategy: "merge", Items: str},
		"struct":   {Type: "object", MapType: "atomic", Properties: map[string]*openapi.Schema{"a": str}},
		"ref":      {Ref: "E", MapType: "atomic"},
		"time":     {Type: "string", Format: "date-time"},
		"free":     {Type: "object"},
	}}})
	var m *smdschema.Map
	for _, td := range s.Types {
		if td.Name == "T" {
			m = td.Map
		}
	}
	field := func(n string) smdschema.TypeRef {
		f, ok := m.FindField(n)
		if !ok {
			t.Fatalf("no field %s", n)
		}
		return f.Type
	}
	for _, tt := range []struct {
		field string
		rel   smdschema.ElementRelationship
		keys  string
	}{
		{"atomic", smdschema.Atomic, ""},
		{"set", smdschema.Associative, ""},
		{"map", smdschema.Associative, "k"},
		{"merge", smdschema.Associative, "name"},
		{"mergeSet", smdschema.Associative, ""},
	} {
		l := field(tt.field).Inlined.List
		if l == nil || l.ElementRelationship != tt.rel || strings.Join(l.Keys, ",") != tt.keys {
			t.Errorf("%s: %+v", tt.field, l)
		}
	}
	resolve := func(n string) smdschema.Atom {
		a, ok := s.Resolve(field(n))
		if !ok {
			t.Fatalf("%s: no type %+v", n, field(n))
		}
		return a
	}
	// A nested object is a type of its own, named.
	if r := field("struct"); r.NamedType == nil {
		t.Errorf("struct inlined: %+v", r)
	}
	if m := resolve("struct").Map; m == nil || m.ElementRelationship != smdschema.Atomic {
		t.Errorf("struct: %+v", m)
	}
	if r := field("ref"); *r.NamedType != "E" || r.ElementRelationship == nil || *r.ElementRelationship != smdschema.Atomic {
		t.Errorf("ref: %+v", r)
	}
	if sc := field("time").Inlined.Scalar; sc == nil || *sc != "untyped" {
		t.Errorf("time: %+v", sc)
	}
	if et := resolve("free").Map.ElementType; et.NamedType == nil || *et.NamedType != untypedDeduced {
		t.Errorf("free: %+v", et)
	}
}
