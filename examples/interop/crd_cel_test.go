package interop

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	kcel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	sjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/crd/cel"
)

// The test below compares the evaluation of x-kubernetes-validations by
// package crd/cel with k8s.io/apiextensions-apiserver's
// (pkg/apiserver/schema/cel, the version in go.mod): the same rules on
// the same objects (and old objects, for transition rules) must give the
// same field errors, byte for byte.

// celCase is a schema with rules and the objects to evaluate them on.
type celCase struct {
	name    string
	schema  string
	objects []string
	// updates are pairs of old and new objects.
	updates [][2]string
}

var celCases = []celCase{
	{"object rules", `{"type":"object","x-kubernetes-validations":[{"rule":"self.metadata.name.startsWith('w')","message":"name must start with w"}],
	"properties":{"spec":{"type":"object",
		"x-kubernetes-validations":[
			{"rule":"!has(self.min) || !has(self.max) || self.min <= self.max","messageExpression":"'min ' + string(self.min) + ' exceeds max ' + string(self.max)"},
			{"rule":"!has(self.secret)","reason":"FieldValueForbidden","fieldPath":".secret","message":"must not be set"},
			{"rule":"has(self.mode)","reason":"FieldValueRequired","fieldPath":".mode","message":"mode is required"},
			{"rule":"self.mode == oldSelf.mode","message":"mode is immutable"},
			{"rule":"self.min > 0"}],
		"properties":{"min":{"type":"integer"},"max":{"type":"integer"},"mode":{"type":"string"},"secret":{"type":"string"},
			"replicas":{"type":"integer","x-kubernetes-validations":[{"rule":"self <= 10"},{"rule":"100 / self > 1","message":"  too small  "}]},
			"name":{"type":"string","x-kubernetes-validations":[{"rule":"self.size() >= 2 && self.lowerAscii() == self"}]},
			"ratio":{"type":"number","x-kubernetes-validations":[{"rule":"self < 1.0"}]},
			"enabled":{"type":"boolean","x-kubernetes-validations":[{"rule":"self","reason":"FieldValueInvalid"}]}}}}}`,
		[]string{
			`{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a"}}`,
			`{"metadata":{"name":"x1"},"spec":{"min":1,"max":2,"mode":"a"}}`,
			`{"metadata":{"name":"w1"},"spec":{"min":3,"max":2,"mode":"a","secret":"s"}}`,
			`{"metadata":{"name":"w1"},"spec":{"max":2}}`,
			`{"metadata":{"name":"w1"},"spec":{"min":1,"mode":"a","replicas":11,"name":"A","ratio":1.5,"enabled":false}}`,
			`{"metadata":{"name":"w1"},"spec":{"min":1,"mode":"a","replicas":0,"name":"ab","ratio":0.5,"enabled":true}}`,
			`{"metadata":{"name":"w1"},"spec":{"min":1,"mode":"a","replicas":60,"ratio":2}}`,
			`{"metadata":{"name":"w1"}}`,
		},
		[][2]string{
			{`{"metadata":{"name":"w1"},"spec":{"min":1,"mode":"a"}}`, `{"metadata":{"name":"w1"},"spec":{"min":1,"mode":"b"}}`},
			{`{"metadata":{"name":"w1"},"spec":{"min":1}}`, `{"metadata":{"name":"w1"},"spec":{"min":1,"mode":"b"}}`},
			{`{"metadata":{"name":"w1"}}`, `{"metadata":{"name":"w1"},"spec":{"min":1,"mode":"b"}}`},
		}},
	{"collections", `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"tags":{"type":"array","items":{"type":"string","x-kubernetes-validations":[{"rule":"self != 'bad'"}]},
			"x-kubernetes-validations":[{"rule":"self.size() <= 2","message":"too many tags"},{"rule":"self.all(t, t.size() < 5)"}]},
		"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
			"items":{"type":"object","x-kubernetes-validations":[{"rule":"self.port >= oldSelf.port","message":"port may only grow"},{"rule":"self.port > 0"}],
			"properties":{"name":{"type":"string"},"port":{"type":"integer"}}}},
		"labels":{"type":"object","additionalProperties":{"type":"string","x-kubernetes-validations":[{"rule":"self.size() < 4"}]},
			"x-kubernetes-validations":[{"rule":"self.all(k, k.startsWith('a'))","message":"keys must start with a"},{"rule":"self == oldSelf","message":"labels are immutable"}]}}}}}`,
		[]string{
			`{"spec":{"tags":["a","b"],"ports":[{"name":"http","port":80}],"labels":{"a":"ok"}}}`,
			`{"spec":{"tags":["a","bad","toolong"],"ports":[{"name":"http","port":0},{"name":"x","port":1}],"labels":{"a":"long","b":"ok"}}}`,
			`{"spec":{"tags":[],"ports":[],"labels":{}}}`,
		},
		[][2]string{
			{`{"spec":{"ports":[{"name":"http","port":80},{"name":"x","port":5}],"labels":{"a":"1"}}}`,
				`{"spec":{"ports":[{"name":"new","port":1},{"name":"http","port":79},{"name":"x","port":6}],"labels":{"a":"2"}}}`},
		}},
	{"cost and messages", `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"items":{"type":"array","items":{"type":"integer"},
			"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, self.all(z, x + y + z >= 0)))"}]},
		"n":{"type":"integer","x-kubernetes-validations":[
			{"rule":"self < 10","messageExpression":"'n is ' + string(100 / self)","message":"fallback"},
			{"rule":"self < 20","messageExpression":"'  '"},
			{"rule":"self < 30","messageExpression":"'n is ' + string(self)","reason":"FieldValueDuplicate"}]}}}}}`,
		[]string{
			`{"spec":{"items":[1,2,3],"n":1}}`,
			`{"spec":{"items":` + intList(120) + `}}`,
			`{"spec":{"n":0}}`,
			`{"spec":{"n":15}}`,
			`{"spec":{"n":25}}`,
			`{"spec":{"n":35}}`,
		},
		nil},
}

// intList is the JSON list of the integers from 0 to n-1.
func intList(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	return b.String() + "]"
}

// kubeRules evaluates the rules of schema with apiextensions-apiserver.
func kubeRules(t *testing.T, schema string, obj, old map[string]any) []string {
	t.Helper()
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(schema), &v1); err != nil {
		t.Fatal(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		t.Fatal(err)
	}
	st, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	v := kcel.NewValidator(st, true, celconfig.PerCallLimit)
	var o any
	if old != nil {
		o = old
	}
	errs, _ := v.Validate(t.Context(), nil, st, obj, o, celconfig.RuntimeCELCostBudget)
	out := kubeTexts(errs)
	slices.Sort(out)
	return out
}

// ourRules evaluates the rules of schema with package crd/cel.
func ourRules(t *testing.T, schema string, obj, old map[string]any) []string {
	t.Helper()
	var s crd.JSONSchemaProps
	if err := sjson.UnmarshalCaseSensitivePreserveInts([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	v, errs := cel.Compiler{}.Compile("spec.versions[0].schema.openAPIV3Schema", &s)
	if errs != nil {
		t.Fatal(errs)
	}
	out := texts(v.Validate(obj, old))
	slices.Sort(out)
	return out
}

func TestCELRulesMatchKubernetes(t *testing.T) {
	const variations = 100
	for _, tc := range celCases {
		t.Run(tc.name, func(t *testing.T) {
			type pair struct{ old, obj map[string]any }
			var pairs []pair
			for _, j := range tc.objects {
				pairs = append(pairs, pair{nil, decodeObject(t, j)})
			}
			for _, u := range tc.updates {
				pairs = append(pairs, pair{decodeObject(t, u[0]), decodeObject(t, u[1])})
			}
			r := rand.New(rand.NewPCG(1, uint64(len(tc.name))))
			// Variations that still pass the schema: Kubernetes evaluates
			// rules only on those (see crd's blocking errors), and with
			// the original metadata, which is validated elsewhere.
			for added := 0; added < variations; {
				p := pairs[r.IntN(len(pairs))]
				v := vary(r, p.obj).(map[string]any)
				if len(ourValidate(t, tc.schema, v)) > 0 || !reflect.DeepEqual(v["metadata"], p.obj["metadata"]) {
					continue
				}
				pairs = append(pairs, pair{p.old, v})
				added++
			}
			invalid, failures := 0, 0
			for _, p := range pairs {
				want := kubeRules(t, tc.schema, p.obj, p.old)
				got := ourRules(t, tc.schema, p.obj, p.old)
				if len(want) > 0 {
					invalid++
				}
				if !slices.Equal(got, want) {
					if failures++; failures <= 10 {
						b, _ := json.Marshal(p.obj)
						ob, _ := json.Marshal(p.old)
						t.Errorf("object %s (old %s)\n got %s\nwant %s", b, ob, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
					}
				}
			}
			if failures > 0 {
				t.Errorf("%d of %d objects differ", failures, len(pairs))
			}
			if invalid == 0 || invalid == len(pairs) {
				t.Errorf("%d of %d objects invalid; want both kinds", invalid, len(pairs))
			}
		})
	}
}
