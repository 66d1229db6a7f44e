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
	celmodel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	sjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/crd/cel"
	crdschema "github.com/apisem/apisem/crd/schema"
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
	// refused is whether a cluster refuses the schema's definition (for
	// its rules' estimated cost): its rules are still evaluated as a
	// cluster that stored it before would.
	refused bool
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
		}, true},
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
		}, false},
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
		nil, true},
	{"libraries", `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"q":{"type":"string","maxLength":16,"x-kubernetes-validations":[{"rule":"isQuantity(self) && quantity(self).compareTo(quantity('1Gi')) < 0","message":"must be a quantity below 1Gi"}]},
		"ip":{"type":"string","maxLength":64,"x-kubernetes-validations":[{"rule":"isIP(self) && ip(self).family() == 4 && !ip(self).isLoopback()"}]},
		"cidr":{"type":"string","maxLength":64,"x-kubernetes-validations":[{"rule":"isCIDR(self) && cidr(self).containsIP(ip('10.0.0.1'))","messageExpression":"'cidr ' + self + ' must contain 10.0.0.1'"}]},
		"url":{"type":"string","maxLength":128,"x-kubernetes-validations":[{"rule":"isURL(self) && url(self).getScheme() == 'https'"}]},
		"version":{"type":"string","maxLength":32,"x-kubernetes-validations":[{"rule":"isSemver(self) && semver(self).isGreaterThan(semver('1.0.0'))"}]},
		"name":{"type":"string","maxLength":63,"x-kubernetes-validations":[
			{"rule":"!format.dns1123Label().validate(self).hasValue()","messageExpression":"'name ' + self + ' is not a DNS label'"},
			{"rule":"self.matches('^[a-z]') && self.find('[0-9]+') != '13'"},
			{"rule":"self.split('-').size() <= 3 && self.lowerAscii() == self"}]},
		"tags":{"type":"array","maxItems":8,"items":{"type":"string","maxLength":8},"x-kubernetes-validations":[
			{"rule":"self.isSorted() && self.indexOf('x') == -1","message":"tags must be sorted, without x"},
			{"rule":"sets.intersects(self, ['a', 'b']) || self.size() == 0"}]},
		"nums":{"type":"array","maxItems":8,"items":{"type":"integer"},"x-kubernetes-validations":[
			{"rule":"self.size() == 0 || (self.sum() < 100 && self.min() >= 0 && self.max() < 50)"}]},
		"opt":{"type":"object","properties":{"a":{"type":"string","maxLength":8}},"x-kubernetes-validations":[
			{"rule":"self.?a.orValue('') != 'x'"}]}}}}}`,
		[]string{
			`{"spec":{"q":"512Mi","ip":"10.0.0.2","cidr":"10.0.0.0/8","url":"https://example.com/x","version":"1.2.3","name":"web-1","tags":["a","c"],"nums":[1,2],"opt":{"a":"y"}}}`,
			`{"spec":{"q":"2Gi","ip":"::1","cidr":"192.168.0.0/16","url":"http://x","version":"0.9.0","name":"Web_1","tags":["x","a"],"nums":[60,70],"opt":{"a":"x"}}}`,
			`{"spec":{"q":"lots","ip":"127.0.0.1","cidr":"nope","url":"::","version":"v1","name":"a-b-c-d","tags":["c","d"],"nums":[-1]}}`,
			`{"spec":{"name":"w13","tags":[],"nums":[],"opt":{}}}`,
		},
		nil, false},
	{"escaped names", `{"type":"object","properties":{"spec":{"type":"object",
		"x-kubernetes-validations":[
			{"rule":"!has(self.foo__dash__bar) || self.foo__dash__bar != self.a__dot__b","message":"foo-bar and a.b must differ"},
			{"rule":"!has(self.__namespace__) || self.__namespace__.startsWith('ns')","fieldPath":".namespace"},
			{"rule":"!has(self.x__underscores__y) || self.x__underscores__y > 0","fieldPath":"['x__y']"},
			{"rule":"!has(self.__if__) || self.__if__","reason":"FieldValueForbidden"}],
		"properties":{"foo-bar":{"type":"string","maxLength":8},"a.b":{"type":"string","maxLength":8},
			"namespace":{"type":"string","maxLength":8},"x__y":{"type":"integer"},"if":{"type":"boolean"},
			"a/b":{"type":"string","maxLength":8,"x-kubernetes-validations":[{"rule":"self != 'bad'"}]}}}}}`,
		[]string{
			`{"spec":{"foo-bar":"a","a.b":"b","namespace":"ns1","x__y":1,"if":true,"a/b":"ok"}}`,
			`{"spec":{"foo-bar":"a","a.b":"a","namespace":"default","x__y":0,"if":false,"a/b":"bad"}}`,
		},
		nil, false},
	{"ratcheting", `{"type":"object","properties":{"spec":{"type":"object",
		"x-kubernetes-validations":[{"rule":"!has(self.min) || !has(self.max) || self.min <= self.max","message":"min above max"}],
		"properties":{"min":{"type":"integer"},"max":{"type":"integer"},"other":{"type":"string","maxLength":8},
			"name":{"type":"string","maxLength":16,"x-kubernetes-validations":[{"rule":"self.startsWith('a')"},{"rule":"self == oldSelf","message":"immutable"}]},
			"keyed":{"type":"array","maxItems":8,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
				"items":{"type":"object","required":["name"],"x-kubernetes-validations":[{"rule":"self.port > 0","message":"port must be positive"}],
				"properties":{"name":{"type":"string","maxLength":8},"port":{"type":"integer"}}}},
			"atomic":{"type":"array","maxItems":8,"items":{"type":"integer","x-kubernetes-validations":[{"rule":"self > 0"}]}},
			"set":{"type":"array","maxItems":8,"x-kubernetes-list-type":"set","items":{"type":"string","maxLength":8,"x-kubernetes-validations":[{"rule":"self != 'bad'"}]}},
			"labels":{"type":"object","maxProperties":8,"additionalProperties":{"type":"string","maxLength":8,"x-kubernetes-validations":[{"rule":"self != 'bad'"}]}},
			"grow":{"type":"integer","x-kubernetes-validations":[{"rule":"!oldSelf.hasValue() || self >= oldSelf.value()","optionalOldSelf":true,"message":"may only grow"}]}}}}}`,
		[]string{
			`{"spec":{"min":3,"max":1,"name":"b","keyed":[{"name":"x","port":0}],"atomic":[0],"set":["bad"],"labels":{"a":"bad"},"grow":1}}`,
		},
		[][2]string{
			// Unchanged invalid values ratchet; changed ones do not.
			{`{"spec":{"min":3,"max":1,"name":"b","keyed":[{"name":"x","port":0}],"atomic":[0],"set":["bad"],"labels":{"a":"bad"},"grow":5}}`,
				`{"spec":{"min":3,"max":1,"name":"b","keyed":[{"name":"y","port":0},{"name":"x","port":0}],"atomic":[0],"set":["a","bad"],"labels":{"a":"bad","b":"bad"},"grow":5,"other":"x"}}`},
			{`{"spec":{"min":3,"max":1,"name":"b","keyed":[{"name":"x","port":0}],"atomic":[0,1],"set":["bad"],"labels":{"a":"bad"},"grow":5}}`,
				`{"spec":{"min":4,"max":1,"name":"c","keyed":[{"name":"x","port":-1}],"atomic":[1,0],"set":["bad","b"],"labels":{"a":"bad"},"grow":4}}`},
			{`{"spec":{"min":3,"max":1,"name":"b"}}`, `{"spec":{"min":3,"max":1,"name":"b"}}`},
			{`{"spec":{}}`, `{"spec":{"min":3,"max":1,"name":"b","grow":1}}`},
		}, false},
	{"int-or-string and embedded", `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"port":{"x-kubernetes-int-or-string":true,"x-kubernetes-validations":[{"rule":"type(self) == int ? self > 0 : self.startsWith('p')"}]},
		"size":{"x-kubernetes-int-or-string":true,"x-kubernetes-validations":[{"rule":"self > 1"}]},
		"template":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object","properties":{"n":{"type":"integer"}}}},
			"x-kubernetes-validations":[{"rule":"self.kind == 'Pod' && self.metadata.name.startsWith('t')","message":"must be a Pod named t..."}]}}}}}`,
		[]string{
			`{"spec":{"port":80,"size":2,"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"t1"},"spec":{"n":1}}}}`,
			`{"spec":{"port":"http","size":"big","template":{"apiVersion":"v1","kind":"Job","metadata":{"name":"x"}}}}`,
			`{"spec":{"port":"port","size":0}}`,
		},
		nil, false},
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

// kubeRules compiles the rules of schema with apiextensions-apiserver
// and returns their evaluation.
func kubeRules(t *testing.T, schema string) func(obj, old map[string]any) []string {
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
	return func(obj, old map[string]any) []string {
		var o any
		var opts []kcel.Option
		if old != nil {
			// As the custom resource strategy validates an update, with
			// ratcheting (on by default since Kubernetes 1.30).
			o = old
			opts = append(opts, kcel.WithRatcheting(common.NewCorrelatedObject(obj, old, &celmodel.Structural{Structural: st})))
		}
		errs, _ := v.Validate(t.Context(), nil, st, obj, o, celconfig.RuntimeCELCostBudget, opts...)
		out := kubeTexts(errs)
		slices.Sort(out)
		return out
	}
}

// ourRules compiles the rules of schema with package crd/cel and returns
// their evaluation.
func ourRules(t *testing.T, schema string) func(obj, old map[string]any) []string {
	t.Helper()
	var s crdschema.JSONSchemaProps
	if err := sjson.UnmarshalCaseSensitivePreserveInts([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	v, err := cel.Compiler{}.Compile(&s)
	if err != nil {
		t.Fatal(err)
	}
	return func(obj, old map[string]any) []string {
		out := texts(v.Validate(obj, old))
		slices.Sort(out)
		return out
	}
}

func TestCELRulesMatchKubernetes(t *testing.T) {
	const variations = 100
	for _, tc := range celCases {
		t.Run(tc.name, func(t *testing.T) {
			var s crdschema.JSONSchemaProps
			if err := sjson.UnmarshalCaseSensitivePreserveInts([]byte(tc.schema), &s); err != nil {
				t.Fatal(err)
			}
			if errs := (cel.Compiler{}).Check("p", &s); (len(errs) > 0) != tc.refused {
				t.Errorf("definition errors %v; want refused %v", errs, tc.refused)
			}
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
			kube, ours := kubeRules(t, tc.schema), ourRules(t, tc.schema)
			invalid, failures := 0, 0
			for _, p := range pairs {
				want := kube(p.obj, p.old)
				got := ours(p.obj, p.old)
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
