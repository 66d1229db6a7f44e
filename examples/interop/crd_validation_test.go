package interop

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	kjson "k8s.io/apimachinery/pkg/util/json"
	sjson "sigs.k8s.io/json"

	crdschema "github.com/apisem/apisem/crd/schema"
)

// The test below compares package crd/schema's validation of custom resources
// with k8s.io/apiextensions-apiserver's (the version in go.mod): for each
// schema of a table, the same objects must get the same field errors,
// byte for byte. Kubernetes visits an object's members in Go map order,
// so the errors are compared as sorted lists.

// schemaCase is a schema with objects it accepts and refuses.
type schemaCase struct {
	name   string
	schema string
	// objects are the objects of the table; random variations of them
	// are added.
	objects []string
}

var schemaCases = []schemaCase{
	{"scalars", `{"type":"object","required":["spec"],"properties":{"spec":{"type":"object","required":["color"],"properties":{
		"color":{"type":"string","enum":["red","green","blue"]},
		"replicas":{"type":"integer","minimum":0,"maximum":10,"format":"int32"},
		"ratio":{"type":"number","exclusiveMinimum":true,"minimum":0,"exclusiveMaximum":true,"maximum":1},
		"step":{"type":"number","multipleOf":0.5},
		"count":{"type":"integer","multipleOf":3},
		"enabled":{"type":"boolean"},
		"name":{"type":"string","minLength":2,"maxLength":8,"pattern":"^[a-z]+$"},
		"size":{"type":"integer","enum":[1,2,4]}}}}}`,
		[]string{
			`{"spec":{"color":"red","replicas":3,"ratio":0.5,"step":1.5,"count":9,"enabled":true,"name":"abc","size":2}}`,
			`{}`, `{"spec":{}}`, `{"spec":null}`, `{"spec":"x"}`,
			`{"spec":{"color":"pink","replicas":11,"ratio":1,"step":0.3,"count":4,"enabled":"yes","name":"ABCDEFGHIJ","size":3}}`,
			`{"spec":{"color":1,"replicas":-1,"ratio":0,"name":"a","size":"1"}}`,
			`{"spec":{"color":"red","replicas":2.5,"ratio":-1.5,"name":"a1"}}`,
			`{"spec":{"color":"red","replicas":4.0,"name":"éé"}}`,
			`{"spec":{"color":null,"replicas":null}}`,
			`{"spec":{"color":"red","replicas":9999999999,"count":9223372036854775807,"step":1e300}}`,
			`{"spec":{"color":"red","count":-0.25,"step":1e20}}`,
		}},
	{"collections", `{"type":"object","properties":{"spec":{"type":"object","minProperties":1,"maxProperties":3,"properties":{
		"tags":{"type":"array","minItems":1,"maxItems":3,"uniqueItems":true,"items":{"type":"string","maxLength":5}},
		"ports":{"type":"array","items":{"type":"object","required":["port"],"properties":{"port":{"type":"integer","minimum":1},"name":{"type":"string"}}}},
		"labels":{"type":"object","additionalProperties":{"type":"string","pattern":"^v"}},
		"matrix":{"type":"array","items":{"type":"array","items":{"type":"integer"}}}}}}}`,
		[]string{
			`{"spec":{"tags":["a","b"],"ports":[{"port":80,"name":"http"}],"labels":{"a":"v1"}}}`,
			`{"spec":{}}`,
			`{"spec":{"tags":[],"ports":[{}],"labels":{"a":"x","b":1},"matrix":[[1,"2"],3]}}`,
			`{"spec":{"tags":["a","a","toolong","b"]}}`,
			`{"spec":{"tags":"a","ports":{"port":1},"labels":["v"]}}`,
			`{"spec":{"tags":["a"],"ports":[{"port":0},{"port":"80"}],"labels":{},"matrix":[]}}`,
			`{"spec":{"tags":[1,1]}}`,
		}},
	{"formats", `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"date":{"type":"string","format":"date"},"time":{"type":"string","format":"date-time"},
		"ip4":{"type":"string","format":"ipv4"},"ip6":{"type":"string","format":"ipv6"},"cidr":{"type":"string","format":"cidr"},
		"mac":{"type":"string","format":"mac"},"host":{"type":"string","format":"hostname"},"uuid":{"type":"string","format":"uuid"},
		"dur":{"type":"string","format":"duration"},"b64":{"type":"string","format":"byte"},"int":{"type":"integer","format":"int64"},
		"other":{"type":"string","format":"password"}}}}}`,
		[]string{
			`{"spec":{"date":"2024-02-29","time":"2024-02-29T12:00:00Z","ip4":"10.0.0.1","ip6":"::1","cidr":"10.0.0.0/8","mac":"aa:bb:cc:dd:ee:ff","host":"example.com","uuid":"550e8400-e29b-41d4-a716-446655440000","dur":"1h30m","b64":"aGVsbG8=","int":5,"other":"x"}}`,
			`{"spec":{"date":"2024-13-01","time":"yesterday","ip4":"::1","ip6":"10.0.0.1","cidr":"10.0.0.0","mac":"aa:bb","host":"-bad-","uuid":"nope","dur":"forever","b64":"%%%","int":"5"}}`,
			`{"spec":{"date":"","time":"2024-02-29T12:00:00","ip4":"256.0.0.1","ip6":"","cidr":"::/0","mac":"","host":"","uuid":"","dur":"","b64":""}}`,
		}},
	{"extensions", `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"port":{"x-kubernetes-int-or-string":true},
		"maybe":{"type":"string","nullable":true},
		"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
		"anything":{"x-kubernetes-preserve-unknown-fields":true},
		"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"properties":{"spec":{"type":"object","properties":{"n":{"type":"integer"}}}}},
		"conds":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["type"],"items":{"type":"object","required":["type"],"properties":{"type":{"type":"string"}}}}}}}}`,
		[]string{
			`{"spec":{"port":80,"maybe":null,"free":{"a":[1]},"anything":3,"template":{"apiVersion":"v1","kind":"Pod","spec":{"n":1}},"conds":[{"type":"A"}]}}`,
			`{"spec":{"port":"http","maybe":"x"}}`,
			`{"spec":{"port":1.5,"maybe":1,"free":"x","template":{},"conds":[{}]}}`,
			`{"spec":{"port":true,"template":{"apiVersion":"","kind":1,"spec":{"n":"1"}}}}`,
			`{"spec":{"port":null,"template":null,"conds":null}}`,
		}},
	{"list types", `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"set":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
		"anyset":{"type":"array","x-kubernetes-list-type":"set","items":{"x-kubernetes-preserve-unknown-fields":true}},
		"byType":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["type"],"items":{"type":"object","required":["type"],"properties":{"type":{"type":"string"},"port":{"type":"integer"}}}},
		"byTwo":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a","port"],"items":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{"type":"string"},"port":{"type":"integer"}}}},
		"byPort":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["port"],"items":{"x-kubernetes-preserve-unknown-fields":true}},
		"sets":{"type":"object","additionalProperties":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"integer"}}},
		"nested":{"type":"array","items":{"type":"object","properties":{"inner":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}},
		"atomic":{"type":"array","x-kubernetes-list-type":"atomic","items":{"type":"string"}}}}}}`,
		[]string{
			`{"spec":{"set":["a","b"],"anyset":[1,"1",1.5,[1],{"a":"v"}],"byType":[{"type":"A"},{"type":"B"}],"byTwo":[{"a":"v","port":1},{"a":"v","port":2}],"byPort":[{"port":8},{"port":9}],"sets":{"x":[1,2]},"nested":[{"inner":["a"]}],"atomic":["a","a"]}}`,
			`{"spec":{"set":["a","b","a","a","b"],"anyset":[1,1.0,1,{"x":1},{"x":1.0},[1],[1],null,null,true,true],"byType":[{"type":"A"},{"type":"A","port":1},{},{}],"sets":{"x":[1,1],"y":[2,2,2]}}}`,
			`{"spec":{"byType":[{"type":"A"},{"type":"A"},"x",1],"byTwo":[{"a":"v","port":1},{"port":1,"a":"v"},{},{},{"a":"v"},null,{"port":1}],"byPort":[{"port":[1]},{"port":[1]},{"port":{"a":1}},{"port":{"a":1.0}},null,{}],"nested":[{"inner":["a","a"]},{"inner":["a"]}]}}`,
			`{"spec":{"set":"a","byType":{"type":"A"},"byTwo":[1,{"a":"v"},{"a":"v"}],"sets":{"x":null}}}`,
		}},
	{"junctors", `{"type":"object","properties":{"spec":{"type":"object",
		"properties":{
		"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"string"},
		"port":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
		"n":{"type":"integer","oneOf":[{"minimum":10},{"maximum":0},{"multipleOf":5}]},
		"s":{"type":"string","anyOf":[{"pattern":"^a"},{"maxLength":2},{"format":"date"}],"not":{"enum":["abc"]}},
		"t":{"type":"string","allOf":[{"minLength":2},{"pattern":"^[a-z]+$"},{"maxLength":5}]},
		"f":{"type":"number","anyOf":[{"format":"date"},{"minimum":1}]},
		"l":{"type":"array","items":{"type":"string"},"anyOf":[{"minItems":2},{"items":{"pattern":"^x"}}],"oneOf":[{"maxItems":1},{"uniqueItems":true}]},
		"m":{"type":"object","additionalProperties":{"type":"integer"},"not":{"required":["bad"]},
			"oneOf":[{"required":["x"]},{"required":["y"]},{"properties":{"x":{"minimum":3}}}],
			"allOf":[{"anyOf":[{"minProperties":2},{"oneOf":[{"required":["z"]},{"maxProperties":0}]}]}]}},
		"oneOf":[{"required":["a"]},{"required":["b"]}],
		"anyOf":[{"properties":{"a":{"minLength":3}}},{"properties":{"b":{"minimum":1,"maximum":9}},"required":["b"]}],
		"allOf":[{"properties":{"c":{"format":"date"}}},{"properties":{"c":{"pattern":"^2"}}},{"properties":{"c":{"pattern":"^2","maxLength":10}}}],
		"not":{"required":["a","b","c"]}}}}`,
		[]string{
			`{"spec":{"a":"abcd"}}`, `{"spec":{"b":5}}`, `{"spec":{}}`, `{"spec":{"a":"x","b":0,"c":"2024-02-29"}}`,
			`{"spec":{"a":"ab","c":"x"}}`, `{"spec":{"b":50,"c":"2024-02-30"}}`,
			`{"spec":{"a":"abc","port":true,"n":15,"s":"abc","t":"a","l":["a","a"],"m":{"x":1,"y":2,"bad":3}}}`,
			`{"spec":{"a":"abc","port":"http","n":5,"s":"zzzz","t":"ABCDEFG","l":["x"],"m":{}}}`,
			`{"spec":{"a":"abc","port":8080,"n":-5,"s":"2024-02-29","t":"abc","l":["y"],"m":{"x":5}}}`,
			`{"spec":{"a":"abc","n":10,"s":"a","t":"ab","l":[],"m":{"z":1}}}`,
			`{"spec":{"a":"abc","n":"x","s":5,"t":5,"l":"x","m":[1],"f":"x"}}`,
			`{"spec":{"a":"abc","n":20.5,"f":0.5,"s":"ab"}}`,
			`{"spec":{"a":"abc","f":2,"m":{"x":2,"q":1}}}`,
			`{"spec":"x"}`, `{"spec":null}`, `{"spec":{"a":1,"b":"x"}}`,
		}},
}

// kubeSchema is schema (v1 JSON) as apiextensions-apiserver validates
// with it: its schema validator and its structural form.
func kubeSchema(t *testing.T, schema string) (crdvalidation.SchemaValidator, *structuralschema.Structural) {
	t.Helper()
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(schema), &v1); err != nil {
		t.Fatal(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		t.Fatal(err)
	}
	v, _, err := crdvalidation.NewSchemaValidator(&internal)
	if err != nil {
		t.Fatal(err)
	}
	st, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	return v, st
}

// kubeValidate validates obj with apiextensions-apiserver: its schema
// validation, then the checks of embedded resources' apiVersion, kind and
// metadata, then the duplicates of set and map lists, as the custom
// resource strategy runs them.
func kubeValidate(t *testing.T, schema string, obj map[string]any) []string {
	t.Helper()
	v, st := kubeSchema(t, schema)
	out := kubeTexts(crdvalidation.ValidateCustomResource(nil, obj, v))
	out = append(out, kubeTexts(objectmeta.Validate(t.Context(), nil, obj, st, false))...)
	out = append(out, kubeTexts(listtype.ValidateListSetsAndMaps(nil, st, obj))...)
	slices.Sort(out)
	return out
}

// kubeValidateUpdate validates obj, the new state of old, as the custom
// resource strategy validates an update: the schema with ratcheting
// (CRDValidationRatcheting, on by default), then embedded resources
// without, then the duplicates of set and map lists unless old had one.
func kubeValidateUpdate(t *testing.T, schema string, obj, old map[string]any) []string {
	t.Helper()
	v, st := kubeSchema(t, schema)
	if _, ok := v.(*crdvalidation.RatchetingSchemaValidator); !ok {
		t.Fatalf("apiextensions-apiserver's validator is a %T, not the ratcheting one", v)
	}
	out := kubeTexts(crdvalidation.ValidateCustomResourceUpdate(nil, obj, old, v, crdvalidation.WithRatcheting(nil)))
	out = append(out, kubeTexts(objectmeta.Validate(t.Context(), nil, obj, st, false))...)
	// The duplicates of set and map lists ratchet as a whole.
	if len(listtype.ValidateListSetsAndMaps(nil, st, old)) == 0 {
		out = append(out, kubeTexts(listtype.ValidateListSetsAndMaps(nil, st, obj))...)
	}
	slices.Sort(out)
	return out
}

// ourValidateUpdate validates an update with package crd/schema.
func ourValidateUpdate(t *testing.T, schema string, obj, old map[string]any) []string {
	t.Helper()
	var s crdschema.JSONSchemaProps
	if err := sjson.UnmarshalCaseSensitivePreserveInts([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	errs, err := crdschema.ValidateUpdate(&s, obj, old)
	if err != nil {
		t.Fatal(err)
	}
	out := texts(errs)
	slices.Sort(out)
	return out
}

// ourValidate validates obj with package crd/schema.
func ourValidate(t *testing.T, schema string, obj map[string]any) []string {
	t.Helper()
	var s crdschema.JSONSchemaProps
	if err := sjson.UnmarshalCaseSensitivePreserveInts([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	errs, err := crdschema.Validate(&s, obj)
	if err != nil {
		t.Fatal(err)
	}
	out := texts(errs)
	slices.Sort(out)
	return out
}

// decodeObject decodes JSON as Kubernetes decodes a custom resource
// (integers as int64, other numbers as float64).
func decodeObject(t *testing.T, j string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := kjson.Unmarshal([]byte(j), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// interesting are the values variations put in objects: of every JSON
// type, near the bounds and formats of the table's schemas.
var interesting = []any{
	nil, true, false, int64(0), int64(1), int64(-1), int64(3), int64(10), int64(11), int64(2147483648),
	0.5, 1.5, 2.0, -0.25, 1e20, "", "a", "red", "RED", "v1", "abcdefghij", "2024-02-29", "2024-02-30",
	"2024-02-29T12:00:00Z", "2024-02-29 12:00:00", "10.0.0.1", "::1", "1.2.3.4/32", "aa:bb:cc:dd:ee:ff",
	"example.com", "a_b.com", "550e8400-e29b-41d4-a716-446655440000", "1h", "3 days", "aGk=", "a b",
	[]any{}, []any{"a"}, []any{int64(1), int64(1)}, []any{"a", "b", "c", "d"}, []any{map[string]any{"port": int64(8)}},
	map[string]any{}, map[string]any{"type": "A"}, map[string]any{"apiVersion": "v1", "kind": "X"}, map[string]any{"a": "v"},
}

// vary returns a copy of x with one value somewhere in it replaced by an
// interesting one, a member deleted, or a member added.
func vary(r *rand.Rand, x any) any {
	switch x := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = v
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range x {
				if !yield(k) {
					return
				}
			}
		})
		switch n := r.IntN(10); {
		case n == 0 || len(keys) == 0:
			out[fmt.Sprint("k", r.IntN(3))] = interesting[r.IntN(len(interesting))]
		case n == 1:
			delete(out, keys[r.IntN(len(keys))])
		default:
			k := keys[r.IntN(len(keys))]
			out[k] = vary(r, x[k])
		}
		return out
	case []any:
		if len(x) == 0 || r.IntN(4) == 0 {
			return append(slices.Clone(x), interesting[r.IntN(len(interesting))])
		}
		out := slices.Clone(x)
		i := r.IntN(len(x))
		out[i] = vary(r, x[i])
		return out
	}
	return interesting[r.IntN(len(interesting))]
}

// seeds are the seeds of the variations: new ones may be added, and a
// difference found stays reproducible.
var seeds = []uint64{15, 1, 2024, 7, 99, 12345, 31337}

func TestCRDValidationMatchesKubernetes(t *testing.T) {
	const variations = 300
	for _, tc := range schemaCases {
		t.Run(tc.name, func(t *testing.T) {
			var objs []map[string]any
			for _, j := range tc.objects {
				objs = append(objs, decodeObject(t, j))
			}
			// Seeded variations, each of an object of the table or of an
			// earlier variation, so that changes pile up.
			for _, seed := range seeds {
				r := rand.New(rand.NewPCG(seed, uint64(len(tc.name))))
				for range variations {
					objs = append(objs, vary(r, objs[r.IntN(len(objs))]).(map[string]any))
				}
			}
			invalid, failures := 0, 0
			for _, o := range objs {
				want := kubeValidate(t, tc.schema, o)
				got := ourValidate(t, tc.schema, o)
				if len(want) > 0 {
					invalid++
				}
				if !slices.Equal(got, want) {
					if failures++; failures <= 10 {
						b, _ := json.Marshal(o)
						t.Errorf("object %s\n got %s\nwant %s", b, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
					}
				}
			}
			if failures > 0 {
				t.Errorf("%d of %d objects differ", failures, len(objs))
			}
			// The table and its variations must exercise both verdicts.
			if invalid == 0 || invalid == len(objs) {
				t.Errorf("%d of %d objects invalid; want both kinds", invalid, len(objs))
			}
		})
	}
}

// ratchetCases are schemas of looser and stricter versions: objects valid
// under the loose one are updated under the strict one, where ratcheting
// decides which of their errors remain.
var ratchetCases = []schemaCase{
	{"ratcheting", `{"type":"object","properties":{"spec":{"type":"object","required":["other"],"properties":{
		"name":{"type":"string","maxLength":5},
		"count":{"type":"integer","maximum":10},
		"color":{"type":"string","enum":["red","green"]},
		"tags":{"type":"array","maxItems":2,"items":{"type":"string","maxLength":3}},
		"set":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string","maxLength":3}},
		"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["key"],
			"items":{"type":"object","required":["key"],"properties":{"key":{"type":"string"},"value":{"type":"string","pattern":"^[a-z]+$"}}}},
		"pairs":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a","b"],
			"items":{"type":"object","required":["a","b"],"properties":{"a":{"type":"string"},"b":{"type":"integer"},"v":{"type":"integer","minimum":0}}}},
		"labels":{"type":"object","maxProperties":2,"additionalProperties":{"type":"string","pattern":"^[a-z]+$"}},
		"nested":{"type":"object","required":["b"],"properties":{"a":{"type":"string","format":"date"},"b":{"type":"string"}}},
		"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"w":{"type":"string","pattern":"^[a-z]+$"}}},
		"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
		"other":{"type":"string"}}}}}`,
		[]string{
			`{"spec":{"name":"TOOLONGNAME","count":50,"color":"blue","tags":["x","toolongtag","z"],"set":["toolong"],
				"items":[{"key":"a","value":"BAD"},{"key":"b","value":"ok"}],"pairs":[{"a":"x","b":1,"v":-1},{"a":"x","b":2,"v":1}],
				"labels":{"k1":"BAD","k2":"ok","k3":"ok"},"nested":{"a":"2024-13-01"},"free":{"z":1,"w":"BAD"},"template":{"kind":"Pod"}}}`,
			`{"spec":{"name":"TOOLONGNAME","count":50,"items":[{"key":"a","value":"BAD"}],"labels":{"k1":"BAD"},"nested":{"a":"x"}}}`,
			`{"spec":{"other":"o","nested":{"b":"b"},"items":[{"value":"BAD"},{"key":"a","value":"BAD"},{"key":"a","value":"x"}]}}`,
			`{"spec":{"other":"o","pairs":[{"a":"x","b":1,"v":-5}],"tags":["toolong"]}}`,
			`{}`, `{"spec":{}}`,
		}},
}

// TestCRDValidationRatchetingMatchesKubernetes compares updates: each
// object of the table, and variations of them, is updated to itself, to
// a variation of itself and to a variation of that, and validated with
// the old object by package crd/schema and by apiextensions-apiserver's
// ratcheting validator: the same errors must remain.
func TestCRDValidationRatchetingMatchesKubernetes(t *testing.T) {
	const variations = 200
	for _, tc := range append(slices.Clone(ratchetCases), schemaCases...) {
		t.Run(tc.name, func(t *testing.T) {
			var objs []map[string]any
			for _, j := range tc.objects {
				objs = append(objs, decodeObject(t, j))
			}
			r := rand.New(rand.NewPCG(42, uint64(len(tc.name))))
			for range variations {
				objs = append(objs, vary(r, objs[r.IntN(len(objs))]).(map[string]any))
			}
			ratcheted, failures, pairs := 0, 0, 0
			for _, old := range objs {
				once := vary(r, old).(map[string]any)
				for _, obj := range []map[string]any{old, once, vary(r, once).(map[string]any)} {
					pairs++
					want := kubeValidateUpdate(t, tc.schema, obj, old)
					got := ourValidateUpdate(t, tc.schema, obj, old)
					if len(want) < len(kubeValidate(t, tc.schema, obj)) {
						ratcheted++
					}
					if !slices.Equal(got, want) {
						if failures++; failures <= 10 {
							ob, _ := json.Marshal(old)
							nb, _ := json.Marshal(obj)
							t.Errorf("update of %s\n to %s\n got %s\nwant %s", ob, nb, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
						}
					}
				}
			}
			if failures > 0 {
				t.Errorf("%d of %d updates differ", failures, pairs)
			}
			// The table must exercise ratcheting.
			if ratcheted == 0 {
				t.Errorf("no update of %d ratcheted an error", pairs)
			}
		})
	}
}
