package schema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

func mustSchema(t testing.TB, y string) *JSONSchemaProps {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	s := &JSONSchemaProps{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(j, s); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustValue(t testing.TB, j string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(j), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestValidate checks each keyword's verdict and message: the causes of
// the 422, "<field>: <message>", with kube-openapi's texts as
// k8s.io/apiextensions-apiserver converts them to field errors.
func TestValidate(t *testing.T) {
	tests := []struct {
		name, schema, obj string
		want              []string // "field: message"
	}{
		{"valid", `{type: object, properties: {spec: {type: object, properties: {num: {type: integer}}}}}`,
			`{"spec":{"num":1}}`, nil},
		{"type", `{type: object, properties: {spec: {type: object, properties: {num: {type: integer}}}}}`,
			`{"spec":{"num":"x"}}`, []string{`spec.num: Invalid value: "string": spec.num in body must be of type integer: "string"`}},
		{"integral float is an integer", `{type: object, properties: {num: {type: integer}}}`, `{"num":2.0}`, nil},
		{"integer is a number", `{type: object, properties: {num: {type: number}}}`, `{"num":2}`, nil},
		{"object type", `{type: object, properties: {spec: {type: object}}}`,
			`{"spec":[1]}`, []string{`spec: Invalid value: "array": spec in body must be of type object: "array"`}},
		{"null not nullable", `{type: object, properties: {a: {type: array, items: {type: string}}}}`,
			`{"a":[null]}`, []string{`a[0]: Invalid value: "null": a[0] in body must be of type string: "null"`}},
		{"nullable", `{type: object, properties: {a: {type: string, nullable: true}}}`, `{"a":null}`, nil},
		{"required", `{type: object, required: [spec], properties: {spec: {type: object, required: [color, size]}}}`,
			`{"spec":{}}`, []string{`spec.color: Required value`, `spec.size: Required value`}},
		{"required at the root", `{type: object, required: [spec]}`, `{}`, []string{`spec: Required value`}},
		{"enum", `{type: object, properties: {c: {type: string, enum: [red, blue]}}}`,
			`{"c":"pink"}`, []string{`c: Unsupported value: "pink": supported values: "red", "blue"`}},
		{"enum of numbers", `{type: object, properties: {num: {type: integer, enum: [1, 2]}}}`,
			`{"num":3}`, []string{`num: Unsupported value: 3: supported values: "1", "2"`}},
		{"pattern", `{type: object, properties: {s: {type: string, pattern: '^[a-z]+$'}}}`,
			`{"s":"A1"}`, []string{`s: Invalid value: "A1": s in body should match '^[a-z]+$'`}},
		{"maxLength", `{type: object, properties: {s: {type: string, maxLength: 3}}}`,
			`{"s":"abcd"}`, []string{`s: Too long: may not be more than 3 bytes`}},
		{"maxLength counts runes", `{type: object, properties: {s: {type: string, maxLength: 3}}}`, `{"s":"äöü"}`, nil},
		{"minLength", `{type: object, properties: {s: {type: string, minLength: 2}}}`,
			`{"s":"a"}`, []string{`s: Invalid value: "a": s in body should be at least 2 chars long`}},
		{"maxItems", `{type: object, properties: {l: {type: array, maxItems: 1, items: {type: string}}}}`,
			`{"l":["a","b"]}`, []string{`l: Too many: 2: must have at most 1 item`}},
		{"minItems", `{type: object, properties: {l: {type: array, minItems: 2, items: {type: string}}}}`,
			`{"l":["a"]}`, []string{`l: Invalid value: 1: l in body should have at least 2 items`}},
		{"items", `{type: object, properties: {l: {type: array, items: {type: integer, minimum: 0}}}}`,
			`{"l":[1,-1]}`, []string{`l[1]: Invalid value: -1: l[1] in body should be greater than or equal to 0`}},
		{"minimum", `{type: object, properties: {num: {type: integer, minimum: 1}}}`,
			`{"num":0}`, []string{`num: Invalid value: 0: num in body should be greater than or equal to 1`}},
		{"exclusiveMinimum", `{type: object, properties: {num: {type: integer, minimum: 1, exclusiveMinimum: true}}}`,
			`{"num":1}`, []string{`num: Invalid value: 1: num in body should be greater than 1`}},
		{"maximum", `{type: object, properties: {num: {type: number, maximum: 1.5}}}`,
			`{"num":2.5}`, []string{`num: Invalid value: 2.5: num in body should be less than or equal to 1.5`}},
		{"exclusiveMaximum", `{type: object, properties: {num: {type: integer, maximum: 10, exclusiveMaximum: true}}}`,
			`{"num":10}`, []string{`num: Invalid value: 10: num in body should be less than 10`}},
		{"multipleOf", `{type: object, properties: {num: {type: integer, multipleOf: 5}}}`,
			`{"num":7}`, []string{`num: Invalid value: 7: num in body should be a multiple of 5`}},
		{"maxProperties", `{type: object, properties: {m: {type: object, maxProperties: 1, additionalProperties: {type: string}}}}`,
			`{"m":{"a":"1","b":"2"}}`, []string{`m: Too many: 2: must have at most 1 item`}},
		{"minProperties", `{type: object, properties: {m: {type: object, minProperties: 1}}}`,
			`{"m":{}}`, []string{`m: Invalid value: 0: m in body should have at least 1 properties`}},
		{"additionalProperties", `{type: object, properties: {m: {type: object, additionalProperties: {type: string}}}}`,
			`{"m":{"a":1}}`, []string{`m.a: Invalid value: "integer": m.a in body must be of type string: "integer"`}},
		{"int-or-string", `{type: object, properties: {p: {x-kubernetes-int-or-string: true}}}`, `{"p":"http"}`, nil},
		{"int-or-string refuses a bool", `{type: object, properties: {p: {x-kubernetes-int-or-string: true}}}`,
			`{"p":true}`, []string{`p: Invalid value: "boolean": p in body must be of type integer,string: "boolean"`}},
		{"format date", `{type: object, properties: {d: {type: string, format: date}}}`,
			`{"d":"2024-13-01"}`, []string{`d: Invalid value: "2024-13-01": d in body must be of type date: "2024-13-01"`}},
		{"format date-time", `{type: object, properties: {d: {type: string, format: date-time}}}`, `{"d":"2024-01-02T03:04:05Z"}`, nil},
		{"format byte", `{type: object, properties: {b: {type: string, format: byte}}}`,
			`{"b":"!!"}`, []string{`b: Invalid value: "!!": b in body must be of type byte: "!!"`}},
		// kube-openapi's message, on a field it leaves unnamed.
		{"format int32 is a range", `{type: object, properties: {num: {type: integer, format: int32}}}`, `{"num":9999999999}`,
			[]string{`<nil>: Invalid value: "": Checked value must be of type integer with format int32 in num`}},
		// Cases the differential test against apiextensions-apiserver
		// (examples/interop) found.
		{"format on a value of another type", `{type: object, properties: {num: {type: integer, format: int32}, ip: {type: string, format: ipv4}}}`,
			`{"num":2.5,"ip":[1]}`, []string{`num: Invalid value: "float64": num in body must be of type int32: "float64"`,
				`<nil>: Invalid value: "": Checked value must be of type integer with format int32 in num`}},
		{"integer against a factor below 1", `{type: object, properties: {num: {type: number, multipleOf: 0.5}}}`,
			`{"num":3}`, []string{`num: Invalid value: 0: factor MultipleOf declared for num must be positive: 0`}},
		{"multiple beyond 2^53", `{type: object, properties: {num: {type: number, multipleOf: 0.5}}}`,
			`{"num":1e20}`, []string{`num: Invalid value: 1e+20: num in body should be a multiple of 0.5`}},
		{"properties checked past maxProperties", `{type: object, properties: {o: {type: object, maxProperties: 1, properties: {a: {type: string}}}}}`,
			`{"o":{"a":1,"b":2}}`, []string{`o: Too many: 2: must have at most 1 item`, `o.a: Invalid value: "integer": o.a in body must be of type string: "integer"`}},
		{"duration anywhere in the string", `{type: object, properties: {d: {type: string, format: duration}, e: {type: string, format: duration}}}`,
			`{"d":"about 3 days","e":"soon"}`, []string{`e: Invalid value: "soon": e in body must be of type duration: "soon"`}},
		{"empty byte string", `{type: object, properties: {b: {type: string, format: byte}}}`,
			`{"b":""}`, []string{`b: Invalid value: "": b in body must be of type byte: ""`}},
		{"date-time needs a zone", `{type: object, properties: {d: {type: string, format: date-time}}}`,
			`{"d":"2024-01-02T03:04:05"}`, []string{`d: Invalid value: "2024-01-02T03:04:05": d in body must be of type date-time: "2024-01-02T03:04:05"`}},
		{"embedded resource kind", `{type: object, properties: {t: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}`,
			`{"t":{"apiVersion":"a/b/c","kind":1}}`, []string{`t.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`, `t.kind: Invalid value: 1: must be a string`}},
		{"embedded resource", `{type: object, properties: {t: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}`,
			`{"t":{"metadata":{}}}`, []string{`t.apiVersion: Required value`, `t.kind: Required value`}},
		// Logical junctors: kube-openapi's messages, on a field it
		// leaves unnamed, then the errors it keeps of the alternatives.
		{"oneOf none", `{type: object, properties: {s: {type: object, properties: {a: {type: string}, b: {type: string}}, oneOf: [{required: [a]}, {required: [b]}]}}}`,
			`{"s":{}}`, []string{`<nil>: Invalid value: "": "s" must validate one and only one schema (oneOf). Found none valid`, `s.a: Required value`}},
		{"oneOf one", `{type: object, properties: {s: {type: object, properties: {a: {type: string}, b: {type: string}}, oneOf: [{required: [a]}, {required: [b]}]}}}`,
			`{"s":{"a":"x"}}`, nil},
		{"oneOf two", `{type: object, properties: {s: {type: object, properties: {a: {type: string}, b: {type: string}}, oneOf: [{required: [a]}, {required: [b]}]}}}`,
			`{"s":{"a":"x","b":"y"}}`, []string{`<nil>: Invalid value: "": "s" must validate one and only one schema (oneOf). Found 2 valid alternatives`}},
		// The failed alternative that matched most is reported: the
		// second, whose member counts, not the first.
		{"anyOf best failure", `{type: object, properties: {o: {type: object, properties: {a: {type: integer}, b: {type: integer}},
			anyOf: [{required: [b]}, {properties: {a: {minimum: 5}}}]}}}`,
			`{"o":{"a":3}}`, []string{`<nil>: Invalid value: "": "o" must validate at least one schema (anyOf)`, `o.a: Invalid value: 3: o.a in body should be greater than or equal to 5`}},
		{"anyOf first of equal failures", `{type: object, properties: {num: {type: number, anyOf: [{minimum: 5}, {maximum: 1}]}}}`,
			`{"num":3}`, []string{`<nil>: Invalid value: "": "num" must validate at least one schema (anyOf)`, `num: Invalid value: 3: num in body should be greater than or equal to 5`}},
		{"anyOf holds", `{type: object, properties: {num: {type: number, anyOf: [{minimum: 5}, {maximum: 1}]}}}`, `{"num":0}`, nil},
		{"allOf", `{type: object, properties: {s: {type: string, allOf: [{minLength: 2}, {pattern: '^[a-z]+$'}]}}}`,
			`{"s":"A"}`, []string{`s: Invalid value: "A": s in body should be at least 2 chars long`, `s: Invalid value: "A": s in body should match '^[a-z]+$'`,
				`<nil>: Invalid value: "": "s" must validate all the schemas (allOf). None validated`}},
		{"allOf reports a fault once", `{type: object, properties: {s: {type: string, maxLength: 1, allOf: [{maxLength: 1}, {maxLength: 1}]}}}`,
			`{"s":"ab"}`, []string{`s: Too long: may not be more than 1 byte`, `<nil>: Invalid value: "": "s" must validate all the schemas (allOf). None validated`}},
		{"not", `{type: object, properties: {s: {type: string, not: {enum: [x]}}}}`,
			`{"s":"x"}`, []string{`<nil>: Invalid value: "": "s" must not validate the schema (not)`}},
		{"junctors at the root", `{type: object, properties: {a: {type: string}}, anyOf: [{required: [a]}]}`,
			`{}`, []string{`<nil>: Invalid value: "": "" must validate at least one schema (anyOf)`, `a: Required value`}},
		{"junctors run on a value of the wrong type", `{type: object, properties: {s: {type: string, oneOf: [{pattern: a}, {pattern: b}]}}}`,
			`{"s":1}`, []string{`s: Invalid value: "integer": s in body must be of type string: "integer"`,
				`<nil>: Invalid value: "": "s" must validate one and only one schema (oneOf). Found 2 valid alternatives`}},
		{"a format without a type", `{type: object, properties: {num: {type: integer, anyOf: [{format: date}, {minimum: 1}]}}}`,
			`{"num":0}`, []string{`<nil>: Invalid value: "": "num" must validate at least one schema (anyOf)`, `num: Invalid value: "int64": num in body must be of type date: "int64"`}},
		{"null skips junctors", `{type: object, properties: {s: {type: string, nullable: true, not: {}}}}`, `{"s":null}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Compile(mustSchema(t, tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range v.validateObject(mustValue(t, tt.obj), nil, false) {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("validate(%s) =\n%s\nwant\n%s", tt.obj, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestCoerce checks defaulting, pruning and null dropping, and the
// unknown fields reported.
func TestCoerce(t *testing.T) {
	schema := `{type: object, properties: {
		spec: {type: object, properties: {
			replicas: {type: integer, default: 1},
			mode: {type: string, default: fast},
			opt: {type: string},
			list: {type: array, items: {type: object, properties: {a: {type: string, default: x}}}},
			free: {type: object, x-kubernetes-preserve-unknown-fields: true},
			m: {type: object, additionalProperties: {type: object, properties: {k: {type: string}}}},
			t: {type: object, x-kubernetes-embedded-resource: true, properties: {spec: {type: object}}}}}}}`
	tests := []struct {
		name, in, want string
		unknown        []string
	}{
		{"defaults", `{"spec":{}}`, `{"spec":{"mode":"fast","replicas":1}}`, nil},
		{"null takes the default", `{"spec":{"replicas":null}}`, `{"spec":{"mode":"fast","replicas":1}}`, nil},
		{"null without default dropped", `{"spec":{"opt":null}}`, `{"spec":{"mode":"fast","replicas":1}}`, nil},
		{"items defaulted", `{"spec":{"list":[{}]}}`, `{"spec":{"list":[{"a":"x"}],"mode":"fast","replicas":1}}`, nil},
		{"unknown pruned", `{"spec":{"foo":1,"list":[{"b":2}]},"bar":true}`,
			`{"spec":{"list":[{"a":"x"}],"mode":"fast","replicas":1}}`, []string{"bar", "spec.foo", "spec.list[0].b"}},
		{"preserved", `{"spec":{"free":{"any":{"thing":1}}}}`, `{"spec":{"free":{"any":{"thing":1}},"mode":"fast","replicas":1}}`, nil},
		{"additionalProperties pruned inside", `{"spec":{"m":{"x":{"k":"v","z":1}}}}`,
			`{"spec":{"m":{"x":{"k":"v"}},"mode":"fast","replicas":1}}`, []string{"spec.m.x.z"}},
		{"embedded keeps type and metadata", `{"spec":{"t":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{},"x":1}}}`,
			`{"spec":{"mode":"fast","replicas":1,"t":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{}}}}`, []string{"spec.t.x"}},
	}
	s := mustSchema(t, schema)
	tree := NewTree(s)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := mustValue(t, tt.in)
			Default(obj, s)
			if got := Prune(obj, s); !slices.Equal(got, tt.unknown) {
				t.Errorf("Prune(%s) reported %q; want %q", tt.in, got, tt.unknown)
			}
			if b := jsonOf(t, obj); b != tt.want {
				t.Errorf("Default and Prune(%s) = %s; want %s", tt.in, b, tt.want)
			}
			// The tree's, alike.
			obj = mustValue(t, tt.in)
			tree.Default(obj)
			if got := tree.Prune(obj); !slices.Equal(got, tt.unknown) {
				t.Errorf("Tree.Prune(%s) reported %q; want %q", tt.in, got, tt.unknown)
			}
			if b := jsonOf(t, obj); b != tt.want {
				t.Errorf("Tree.Default and Prune(%s) = %s; want %s", tt.in, b, tt.want)
			}
		})
	}
}

// TestSettled: the read-only check of stored objects (Tree.Settled)
// agrees with Default and Prune: an object is settled exactly when they
// leave it as it is.
func TestSettled(t *testing.T) {
	s := mustSchema(t, `{type: object, properties: {
		spec: {type: object, properties: {
			replicas: {type: integer, default: 1},
			opt: {type: string},
			nl: {type: string, nullable: true},
			o: {type: object, properties: {nd: {type: string, nullable: true, default: z}}},
			ios: {x-kubernetes-int-or-string: true},
			list: {type: array, items: {type: object, properties: {a: {type: string, default: x}}}},
			arr: {type: array, items: {type: string, default: e}},
			arr2: {type: array, items: {type: string}},
			free: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {k: {type: string, default: v}}},
			m: {type: object, additionalProperties: {type: object, properties: {k: {type: string}}}},
			ad: {type: object, additionalProperties: {type: string, default: d}},
			t: {type: object, x-kubernetes-embedded-resource: true, properties: {spec: {type: object}}}}}}}`)
	n := NewTree(s)
	for _, tc := range []struct {
		obj     string
		settled bool
	}{
		{`{"spec":{"replicas":1}}`, true},
		{`{}`, true},
		{`{"spec":{}}`, false},
		{`{"spec":{"replicas":null}}`, false},
		{`{"spec":{"replicas":1,"opt":null}}`, false},
		{`{"spec":{"replicas":1,"nl":null}}`, true},
		{`{"spec":{"replicas":1,"o":{"nd":null}}}`, true},
		{`{"spec":{"replicas":1,"o":{}}}`, false},
		{`{"spec":{"replicas":1,"ios":{"a":1}}}`, true},
		{`{"spec":{"replicas":1,"list":[{}]}}`, false},
		{`{"spec":{"replicas":1,"list":[{"a":"y"},null]}}`, true},
		{`{"spec":{"replicas":1,"arr":["a",null]}}`, false},
		{`{"spec":{"replicas":1,"arr2":["a",null]}}`, true},
		{`{"spec":{"replicas":1,"free":{"k":"v","any":{"x":null}}}}`, true},
		{`{"spec":{"replicas":1,"free":{}}}`, false},
		{`{"spec":{"replicas":1,"m":{"x":{"k":"v"}}}}`, true},
		{`{"spec":{"replicas":1,"m":{"x":{"z":1}}}}`, false},
		{`{"spec":{"replicas":1,"m":{"x":null}}}`, false},
		{`{"spec":{"replicas":1,"ad":{"a":"b"}}}`, true},
		{`{"spec":{"replicas":1,"ad":{"a":null}}}`, false},
		{`{"spec":{"replicas":1,"t":{"apiVersion":"v1","kind":"Pod","metadata":{"x":1},"spec":{}}}}`, true},
		{`{"spec":{"replicas":1,"t":{"spec":{"q":1}}}}`, false},
		{`{"spec":{"replicas":1,"t":{"other":1}}}`, false},
		{`{"spec":{"replicas":1},"status":{}}`, false},
	} {
		obj := mustValue(t, tc.obj)
		got := n.Settled(obj)
		before := jsonOf(t, obj)
		Default(obj, s)
		pruned := Prune(obj, s)
		unchanged := before == jsonOf(t, obj)
		if got != tc.settled || got != unchanged {
			t.Errorf("settled(%s) = %v; want %v (coerce leaves it unchanged: %v)", tc.obj, got, tc.settled, unchanged)
		}
		// The tree's Default and Prune do as the schema's.
		byTree := mustValue(t, tc.obj)
		n.Default(byTree)
		if p := n.Prune(byTree); !slices.Equal(p, pruned) || jsonOf(t, byTree) != jsonOf(t, obj) {
			t.Errorf("by the tree, %s is %s, %q pruned; by the schema %s, %q", tc.obj, jsonOf(t, byTree), p, jsonOf(t, obj), pruned)
		}
		// Pruning alone, as after a conversion, keeps the nulls that
		// have defaults.
		obj, byTree = mustValue(t, tc.obj), mustValue(t, tc.obj)
		if p, want := n.Prune(byTree), Prune(obj, s); !slices.Equal(p, want) || jsonOf(t, byTree) != jsonOf(t, obj) {
			t.Errorf("pruned by the tree, %s is %s, %q pruned; by the schema %s, %q", tc.obj, jsonOf(t, byTree), p, jsonOf(t, obj), want)
		}
	}
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An anyOf's alternatives that name a type only are not walked when the
// value is of another type and a later one holds (an int-or-string's
// integer for a string), and are when none holds: the errors are those
// of walking them all.
func TestValidateTypeOnlyAlternatives(t *testing.T) {
	v, err := Compile(mustSchema(t, `{type: object, properties: {
		q: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]},
		m: {anyOf: [{type: integer}, {type: string, maxLength: 2}]},
		l: {type: array, items: {anyOf: [{type: string}, {type: integer}]}},
		o: {type: object, properties: {v: {oneOf: [{anyOf: [{type: integer}, {type: boolean}]}, {type: string}]}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.typeOnly) != 7 {
		t.Errorf("%d alternatives of a type only; want 7", len(v.typeOnly))
	}
	for _, tt := range []struct {
		obj  string
		want []string
	}{
		{`{"q":"400Mi"}`, nil},
		{`{"q":3}`, nil},
		{`{"q":true}`, []string{"q: Invalid value: \"boolean\": q in body must be of type integer,string: \"boolean\"", "<nil>: Invalid value: \"\": \"q\" must validate at least one schema (anyOf)", "q: Invalid value: \"boolean\": q in body must be of type integer: \"boolean\""}},
		{`{"q":1.5}`, []string{"q: Invalid value: \"number\": q in body must be of type integer,string: \"number\"", "<nil>: Invalid value: \"\": \"q\" must validate at least one schema (anyOf)", "q: Invalid value: \"number\": q in body must be of type integer: \"number\"", "<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in q"}},
		{`{"q":2.0}`, nil},
		{`{"q":{"a":1}}`, []string{"q: Invalid value: \"object\": q in body must be of type integer,string: \"object\"", "<nil>: Invalid value: \"\": \"q\" must validate at least one schema (anyOf)", "q: Invalid value: \"object\": q in body must be of type integer: \"object\""}},
		{`{"q":[1]}`, []string{"q: Invalid value: \"array\": q in body must be of type integer,string: \"array\"", "<nil>: Invalid value: \"\": \"q\" must validate at least one schema (anyOf)", "q: Invalid value: \"array\": q in body must be of type integer: \"array\""}},
		{`{"m":"abc"}`, []string{"<nil>: Invalid value: \"\": \"m\" must validate at least one schema (anyOf)", "m: Too long: may not be more than 2 bytes"}},
		{`{"m":1.5}`, []string{"<nil>: Invalid value: \"\": \"m\" must validate at least one schema (anyOf)", "m: Invalid value: \"number\": m in body must be of type integer: \"number\"", "<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in m"}},
		{`{"l":["a",1,true,{}]}`, []string{"<nil>: Invalid value: \"\": \"l[2]\" must validate at least one schema (anyOf)", "l[2]: Invalid value: \"boolean\": l[2] in body must be of type string: \"boolean\"", "<nil>: Invalid value: \"\": \"l[3]\" must validate at least one schema (anyOf)", "l[3]: Invalid value: \"object\": l[3] in body must be of type string: \"object\""}},
		{`{"o":{"v":true}}`, nil},
		{`{"o":{"v":"s"}}`, nil},
		{`{"o":{"v":{}}}`, []string{"<nil>: Invalid value: \"\": \"o.v\" must validate one and only one schema (oneOf). Found none valid", "<nil>: Invalid value: \"\": \"o.v\" must validate at least one schema (anyOf)", "o.v: Invalid value: \"object\": o.v in body must be of type integer: \"object\""}},
	} {
		var got []string
		for _, e := range v.validateObject(mustValue(t, tt.obj), nil, false) {
			got = append(got, e.Error())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("validate(%s) =\n%s\nwant\n%s", tt.obj, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}
