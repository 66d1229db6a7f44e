package cel

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/crd/schema"
	"github.com/apisem/apisem/status"
)

// mustSchema decodes a YAML openAPIV3Schema.
func mustSchema(t testing.TB, y string) *schema.JSONSchemaProps {
	t.Helper()
	var s schema.JSONSchemaProps
	if err := yaml.Unmarshal([]byte(y), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// object decodes JSON as server.Unstructured holds it (integers int64).
func object(t testing.TB, j string) map[string]any {
	t.Helper()
	if j == "" {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(j))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return fixNumbers(m).(map[string]any)
}

func fixNumbers(x any) any {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			x[k] = fixNumbers(v)
		}
	case []any:
		for i, v := range x {
			x[i] = fixNumbers(v)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return x
}

const testSchema = `
type: object
x-kubernetes-validations:
- rule: "self.metadata.name.startsWith('w')"
  message: "name must start with w"
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "self.min <= self.max"
      messageExpression: "'min %d exceeds max %d'.format([self.min, self.max])"
    - rule: "!has(self.forbidden)"
      reason: FieldValueForbidden
      fieldPath: ".forbidden"
      message: "must not be set"
    - rule: "self.mode == oldSelf.mode"
      message: "mode is immutable"
    - rule: "has(self.mode)"
      reason: FieldValueRequired
      fieldPath: ".mode"
      message: "mode is required"
    - rule: "!has(self.dash__dash__name) || !has(self.__namespace__) || self.dash__dash__name != self.__namespace__"
      message: "dash-name and namespace must differ"
    properties:
      min: {type: integer}
      max: {type: integer}
      mode: {type: string}
      forbidden: {type: string}
      replicas:
        type: integer
        x-kubernetes-validations:
        - rule: "self <= 10"
      ratio:
        type: number
        x-kubernetes-validations:
        - rule: "self / 2.0 < 1.0"
      count:
        type: integer
        x-kubernetes-validations:
        - rule: "100 / self > 1"
      tags:
        type: array
        x-kubernetes-validations:
        - rule: "self.size() <= 2"
          message: "too many tags"
        items:
          type: string
          x-kubernetes-validations:
          - rule: "self != 'bad'"
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          x-kubernetes-validations:
          - rule: "self.port >= oldSelf.port"
            message: "port may only grow"
          properties:
            name: {type: string}
            port: {type: integer}
      labels:
        type: object
        additionalProperties:
          type: string
          x-kubernetes-validations:
          - rule: "self.size() < 4"
      memory:
        type: string
        maxLength: 16
        x-kubernetes-validations:
        - rule: "isQuantity(self) && quantity(self).isLessThan(quantity('1Gi'))"
          message: "must be a quantity below 1Gi"
      dash-name:
        type: string
        maxLength: 16
      namespace:
        type: string
        maxLength: 16
`

func TestValidate(t *testing.T) {
	rv, err := Compiler{}.Compile(mustSchema(t, testSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		obj, old string
		want     []string
	}{
		{name: "valid", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a"}}`},
		{name: "root rule", obj: `{"metadata":{"name":"x1"},"spec":{"min":1,"max":2,"mode":"a"}}`,
			want: []string{"<nil>: Invalid value: name must start with w"}},
		{name: "messageExpression", obj: `{"metadata":{"name":"w1"},"spec":{"min":3,"max":2,"mode":"a"}}`,
			want: []string{"spec: Invalid value: min 3 exceeds max 2"}},
		{name: "reason and fieldPath", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"forbidden":"x"}}`,
			want: []string{"spec.forbidden: Forbidden: must not be set", "spec.mode: Required value: mode is required"}},
		{name: "scalar value printed", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","replicas":11}}`,
			want: []string{"spec.replicas: Invalid value: 11: failed rule: self <= 10"}},
		{name: "evaluation error", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","count":0}}`,
			want: []string{`spec.count: Invalid value: "integer": division by zero evaluating rule: 100 / self > 1`}},
		{name: "integer as number", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","ratio":3}}`,
			want: []string{`spec.ratio: Invalid value: 3: failed rule: self / 2.0 < 1.0`}},
		{name: "list and items", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","tags":["a","bad","c"]}}`,
			want: []string{"spec.tags: Invalid value: too many tags", `spec.tags[1]: Invalid value: "bad": failed rule: self != 'bad'`}},
		{name: "map values", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","labels":{"a":"ok","b":"long"}}}`,
			want: []string{`spec.labels[b]: Invalid value: "long": failed rule: self.size() < 4`}},
		{name: "no such key", obj: `{"metadata":{"name":"w1"},"spec":{"mode":"a"}}`,
			want: []string{`spec: Invalid value: "object": no such key: min evaluating rule: self.min <= self.max`}},
		{name: "transition rule skipped on create", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"b","ports":[{"name":"http","port":1}]}}`},
		{name: "transition rule on update", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"b"}}`,
			old:  `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a"}}`,
			want: []string{"spec: Invalid value: mode is immutable"}},
		{name: "list map items correlate by key", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","ports":[{"name":"new","port":1},{"name":"http","port":79}]}}`,
			old:  `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","ports":[{"name":"http","port":80}]}}`,
			want: []string{"spec.ports[1]: Invalid value: port may only grow"}},
		{name: "quantity library", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","memory":"2Gi"}}`,
			want: []string{`spec.memory: Invalid value: "2Gi": must be a quantity below 1Gi`}},
		{name: "escaped names", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","dash-name":"x","namespace":"x"}}`,
			want: []string{"spec: Invalid value: dash-name and namespace must differ"}},
		{name: "unchanged invalid values ratchet", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","replicas":11,"tags":["bad"],"other":1}}`,
			old: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","replicas":11,"tags":["bad"]}}`},
		{name: "changed invalid values do not", obj: `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","replicas":12,"tags":["bad","c"]}}`,
			old:  `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","replicas":11,"tags":["bad"]}}`,
			want: []string{"spec.replicas: Invalid value: 12: failed rule: self <= 10", `spec.tags[0]: Invalid value: "bad": failed rule: self != 'bad'`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range rv.Validate(object(t, tt.obj), object(t, tt.old)) {
				got = append(got, e.Error())
			}
			// Kubernetes visits properties in Go map order.
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	ruleValue := func(rule string) string {
		return `{"Rule":"` + rule + `","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}`
	}
	const costFactor = " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
	tests := []struct {
		name, schema string
		c            Compiler
		want         []string
	}{
		{"valid", `{type: object, properties: {a: {type: integer}}, x-kubernetes-validations: [{rule: "self.a > 0"}]}`, Compiler{}, nil},
		{"no rules", `{type: object, properties: {a: {type: integer}}}`, Compiler{}, nil},
		{"syntax", `{type: object, x-kubernetes-validations: [{rule: "self.a ="}]}`, Compiler{},
			[]string{`p.x-kubernetes-validations[0].rule: Invalid value: ` + ruleValue("self.a =") + `: compilation failed: ERROR: <input>:1:8: Syntax error: token recognition error at: '='` + "\n | self.a =\n | .......^"}},
		{"type", `{type: object, properties: {a: {type: integer}}, x-kubernetes-validations: [{rule: "self.a.startsWith('x')"}]}`, Compiler{},
			[]string{`p.x-kubernetes-validations[0].rule: Invalid value: ` + ruleValue("self.a.startsWith('x')") + `: compilation failed: ERROR: <input>:1:18: found no matching overload for 'startsWith' applied to 'int.(string)'` + "\n | self.a.startsWith('x')\n | .................^"}},
		{"not bool", `{type: object, properties: {a: {type: string, x-kubernetes-validations: [{rule: "'x'"}]}}}`, Compiler{},
			[]string{`p.properties[a].x-kubernetes-validations[0].rule: Invalid value: ` + ruleValue("'x'") + `: cel expression must evaluate to a bool`}},
		{"empty", `{type: object, x-kubernetes-validations: [{rule: ""}]}`, Compiler{},
			[]string{`p.x-kubernetes-validations[0].rule: Required value: rule is not specified`}},
		{"optionalOldSelf without oldSelf", `{type: object, x-kubernetes-validations: [{rule: "true", optionalOldSelf: true}]}`, Compiler{},
			[]string{`p.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`}},
		{"oldSelf on list items", `{type: object, properties: {l: {type: array, items: {type: string, maxLength: 4, x-kubernetes-validations: [{rule: "self == oldSelf"}]}}}}`, Compiler{},
			[]string{`p.properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within p.properties[l]`}},
		{"per-rule cost", `{type: object, properties: {l: {type: array, items: {type: string}, x-kubernetes-validations: [{rule: "self.all(x, self.all(y, x == y))"}]}}}`, Compiler{},
			[]string{
				`p.properties[l].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x` + costFactor,
				`p.properties[l].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
				`p: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x` + costFactor}},
		{"default breaks a rule", `{type: object, properties: {a: {type: integer, default: 5, x-kubernetes-validations: [{rule: "self < 3"}]}}}`, Compiler{},
			[]string{`p.properties[a].default: Invalid value: 5: failed rule: self < 3`}},
		{"compile work", `{type: object, properties: {a: {type: integer}}, x-kubernetes-validations: [{rule: "self.a > 0"}, {rule: "self.a < 9"}]}`, Compiler{MaxCompileWork: 100},
			[]string{`p: Forbidden: x-kubernetes-validations estimated compile work for entire OpenAPIv3 schema (252) exceeds the limit of 100 (use fewer rules, on smaller parts of the schema, under fewer defaults)`}},
		{"no compile limit", `{type: object, properties: {a: {type: integer}}, x-kubernetes-validations: [{rule: "self.a > 0"}]}`, Compiler{MaxCompileWork: -1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range tt.c.Check("p", mustSchema(t, tt.schema)) {
				got = append(got, e.Error())
			}
			slices.Sort(got)
			slices.Sort(tt.want)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// Check refuses a schema whose rules Kubernetes' code would take minutes
// to check (here a chain of 200 objects with rules and defaults) before
// running that code.
func TestCheckRefusesCostlyNesting(t *testing.T) {
	level := `{"type":"object","default":{},"x-kubernetes-validations":[{"rule":"!has(self.a) || true"}],"properties":{"a":`
	s := mustSchema(t, strings.Repeat(level, 200)+`{"type":"string"}`+strings.Repeat(`}}`, 200))
	errs := Compiler{}.Check("p", s)
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "p: Forbidden: x-kubernetes-validations estimated compile work for entire OpenAPIv3 schema (") {
		t.Errorf("errors %v", errs)
	}
}

// Compile refuses a schema over the compile work limit, so that a
// definition stored before the limit was lowered does not hold its
// server for long.
func TestCompileWorkLimit(t *testing.T) {
	s := mustSchema(t, `{type: object, properties: {a: {type: integer}}, x-kubernetes-validations: [{rule: "self.a > 0"}]}`)
	if _, err := (Compiler{MaxCompileWork: 100}).Compile(s); err == nil {
		t.Error("Compile with a small limit: no error")
	}
	if v, err := (Compiler{}).Compile(s); v == nil || err != nil {
		t.Errorf("Compile = %v, %v", v, err)
	}
}

// A panic in Kubernetes' code fails the request with an internal error,
// not the server.
func TestRecover(t *testing.T) {
	errs := func() (errs []status.FieldError) {
		defer recoverAs(&errs, "<nil>")
		panic("boom")
	}()
	if len(errs) != 1 || errs[0].Error() != "<nil>: Internal error: validation rules: boom" {
		t.Errorf("errors %v", errs)
	}
}

func TestCostLimits(t *testing.T) {
	s := mustSchema(t, `
type: object
properties:
  spec:
    type: object
    properties:
      items:
        type: array
        items: {type: integer}
        x-kubernetes-validations:
        - rule: "self.all(x, self.all(y, self.all(z, x + y + z >= 0)))"
`)
	items := make([]any, 120)
	for i := range items {
		items[i] = int64(i)
	}
	tests := []struct {
		name string
		c    Compiler
		n    int
		want string
	}{
		{"per call", Compiler{}, 120, "spec.items: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, self.all(z, x + y + z >= 0)))"},
		{"budget", Compiler{PerCallLimit: 1 << 40, CostBudget: 1000}, 10, `spec.items: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rv, err := tt.c.Compile(s)
			if err != nil {
				t.Fatal(err)
			}
			obj := map[string]any{"spec": map[string]any{"items": items[:tt.n]}}
			got := rv.Validate(obj, nil)
			if len(got) != 1 || got[0].Error() != tt.want {
				t.Errorf("got %v; want %s", got, tt.want)
			}
		})
	}
}

// holdsRules finds rules wherever a schema may hold them, and only rules:
// a description that names the keyword holds none.
func TestHoldsRules(t *testing.T) {
	rule := []schema.ValidationRule{{Rule: "self.a > 0"}}
	ruled := schema.JSONSchemaProps{Type: "object", XValidations: rule}
	tests := []struct {
		name string
		s    *schema.JSONSchemaProps
		want bool
	}{
		{"nil", nil, false},
		{"none", &schema.JSONSchemaProps{Type: "object", Properties: map[string]schema.JSONSchemaProps{"a": {Type: "integer"}}}, false},
		{"in a description", &schema.JSONSchemaProps{Type: "object", Description: `"x-kubernetes-validations" rules`}, false},
		{"root", &ruled, true},
		{"property", &schema.JSONSchemaProps{Type: "object", Properties: map[string]schema.JSONSchemaProps{"a": ruled}}, true},
		{"items", &schema.JSONSchemaProps{Type: "array", Items: &ruled}, true},
		{"additionalProperties", &schema.JSONSchemaProps{Type: "object", AdditionalProperties: &schema.SchemaOrBool{Allows: true, Schema: &ruled}}, true},
		{"allOf", &schema.JSONSchemaProps{AllOf: []schema.JSONSchemaProps{{}, ruled}}, true},
		{"anyOf", &schema.JSONSchemaProps{AnyOf: []schema.JSONSchemaProps{ruled}}, true},
		{"oneOf", &schema.JSONSchemaProps{OneOf: []schema.JSONSchemaProps{ruled}}, true},
		{"not", &schema.JSONSchemaProps{Not: &ruled}, true},
	}
	for _, tt := range tests {
		if got := holdsRules(tt.s); got != tt.want {
			t.Errorf("%s: holdsRules = %v; want %v", tt.name, got, tt.want)
		}
	}
}
