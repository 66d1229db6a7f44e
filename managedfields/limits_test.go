package managedfields

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/validation"
)

// storedSize is the size of the JSON of obj with its managedFields, as
// small as JSON can write it.
func storedSize(t testing.TB, obj map[string]any, entries any) int {
	t.Helper()
	md, _ := obj["metadata"].(map[string]any)
	o := map[string]any{}
	for k, v := range obj {
		o[k] = v
	}
	m := map[string]any{"managedFields": entries}
	for k, v := range md {
		m[k] = v
	}
	o["metadata"] = m
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o); err != nil {
		t.Fatal(err)
	}
	return b.Len() - 1
}

// The bound of CheckApplySize is never above the size of the object the
// apply stores: it refuses only what the size check would refuse later.
var boundCases = []struct{ name, config string }{
	{"data", `{"data":{"a":"b","c":"d"}}`},
	{"nested", `{"spec":{"a":{"b":{"c":"d"}},"e":1,"f":true,"g":false,"h":1.5,"i":-12}}`},
	{"nulls, empty maps and lists", `{"spec":{"a":null,"b":{},"c":[1,2,{"x":"y"}],"d":{"e":null}}}`},
	{"escapes", `{"data":{"\"<&>\u2028":"\u0000\n\t","\u00e9":"\ud83d\ude00"}}`},
	{"labels and annotations", `{"metadata":{"labels":{"a":"b"},"annotations":{"c":"d","kubectl.kubernetes.io/last-applied-configuration":"{}"},"uid":"long-uid-not-kept","resourceVersion":"12345678","creationTimestamp":"2020-01-01T00:00:00Z"}}`},
	{"status", `{"status":{"a":"b"},"spec":{"c":"d"}}`},
	{"numbers", `{"spec":{"a":1e300,"b":1.0,"c":-0,"d":123456789012}}`},
	{"lists", `{"spec":{"a":[1,"x",null,[],{},{"b":"c"},[true]],"d":[]},"items":["b","a"],"data":{"x":"y"}}`},
	{"a set and an atomic map", `{"items":["b","a"],"data":{"x":"y","z":"w"}}`},
}

// applied is the ConfigMap "a" with the fields of raw.
func applied(raw string) map[string]any {
	config := obj(raw)
	if config == nil {
		config = map[string]any{}
	}
	config["apiVersion"], config["kind"] = "v1", "ConfigMap"
	md, _ := config["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	md["name"] = "a"
	config["metadata"] = md
	return config
}

func checkBound(t *testing.T, f *FieldManager, raw, sub string) {
	t.Helper()
	config := applied(raw)
	merged, entries, err := f.Apply(nil, nil, config, Operation{Manager: "m", Subresource: sub, Time: t0}, true)
	if err != nil {
		return // nothing stored
	}
	size := storedSize(t, merged, entries)
	if err := f.CheckApplySize(config, sub, size); err != nil {
		t.Errorf("CheckApplySize(%s, limit %d, the stored size) = %v; want nil", raw, size, err)
	}
}

func TestCheckApplySizeIsALowerBound(t *testing.T) {
	for _, tt := range boundCases {
		t.Run(tt.name, func(t *testing.T) {
			checkBound(t, newCM(), tt.config, "")
			checkBound(t, New(Options{APIVersion: "v1", Kind: "ConfigMap", StatusSubresource: true}), tt.config, "")
			checkBound(t, New(Options{APIVersion: "v1", Kind: "ConfigMap", StatusSubresource: true}), tt.config, "status")
			checkBound(t, New(Options{APIVersion: "v1", Kind: "ConfigMap", Type: atomicMapType(t)}), tt.config, "")
		})
	}
}

func TestCheckApplySize(t *testing.T) {
	big := bigConfigMap(100000)
	atomic := New(Options{APIVersion: "v1", Kind: "ConfigMap", Type: atomicMapType(t)})
	for _, tt := range []struct {
		name   string
		f      *FieldManager
		config map[string]any
		sub    string
		limit  int
		want   error
	}{
		{"100,000 keys", newCM(), big, "", 0, validation.ObjectTooLarge()},
		{"100,000 keys, a larger limit", newCM(), big, "", 4 << 20, nil},
		// The bound counts each member with the comma or brace before
		// it, and every brace of managedFields: {"data":{"a":"b" and
		// {"f:data":{"f:a":{}}}.
		{"keys and their managedFields", newCM(), obj(`{"data":{"a":"b"}}`), "", len(`{"data":{"a":"b"{"f:data":{"f:a":{}}}`), nil},
		{"keys and their managedFields, over", newCM(), obj(`{"data":{"a":"b"}}`), "", len(`{"data":{"a":"b"{"f:data":{"f:a":{}}}`) - 1, validation.ObjectTooLarge()},
		// As package server names it for a resource without a schema.
		{"keys and their managedFields, the deduced type named", New(Options{APIVersion: "v1", Kind: "ConfigMap", Type: typed.DeducedParseableType}),
			obj(`{"data":{"a":"b"}}`), "", len(`{"data":{"a":"b"{"f:data":{"f:a":{}}}`) - 1, validation.ObjectTooLarge()},
		// A schema may make a map atomic: one field for all its keys.
		{"a schema: keys only", atomic, obj(`{"data":{"a":"b"}}`), "", len(`{"data":{"a":"b"`), nil},
		{"a schema: keys only, over", atomic, obj(`{"data":{"a":"b"}}`), "", len(`{"data":{"a":"b"`) - 1, validation.ObjectTooLarge()},
		{"scale is not bounded", newCM(), big, "scale", 0, nil},
		{"main resource without its status", New(Options{APIVersion: "v1", Kind: "ConfigMap", StatusSubresource: true}),
			map[string]any{"status": big["data"]}, "", 0, nil},
		{"status subresource", New(Options{APIVersion: "v1", Kind: "ConfigMap", StatusSubresource: true}),
			map[string]any{"status": big["data"], "data": map[string]any{}}, "status", 0, validation.ObjectTooLarge()},
		{"status without a status subresource", newCM(), map[string]any{"status": big["data"]}, "", 0, validation.ObjectTooLarge()},
		// ["a","b"] counted as "a","b" and the bracket before each.
		{"lists", atomic, obj(`{"items":["a","b"]}`), "", len(`{"items":["a","b"`), nil},
		{"lists, over", atomic, obj(`{"items":["a","b"]}`), "", len(`{"items":["a","b"`) - 1, validation.ObjectTooLarge()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.f.CheckApplySize(tt.config, tt.sub, tt.limit)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckApplySize = %v; want nil", err)
				}
				return
			}
			var se *status.Error
			if !errors.As(err, &se) || se.Status.Code != 500 || se.Status.Message != "etcdserver: request is too large" {
				t.Fatalf("CheckApplySize = %v; want etcd's 500", err)
			}
		})
	}
}

// atomicMapType is a ConfigMap type whose data is an atomic map, and
// whose items are a set.
func atomicMapType(t testing.TB) typed.ParseableType {
	t.Helper()
	name := "cm"
	s := &smdschema.Schema{Types: []smdschema.TypeDef{
		{Name: name, Atom: smdschema.Atom{Map: &smdschema.Map{Fields: []smdschema.StructField{
			{Name: "apiVersion", Type: smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.String)}}},
			{Name: "kind", Type: smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.String)}}},
			{Name: "metadata", Type: smdschema.TypeRef{NamedType: ptr("__untyped_deduced_")}},
			{Name: "data", Type: smdschema.TypeRef{Inlined: smdschema.Atom{Map: &smdschema.Map{
				ElementType:         smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.String)}},
				ElementRelationship: smdschema.Atomic}}}},
			{Name: "items", Type: smdschema.TypeRef{Inlined: smdschema.Atom{List: &smdschema.List{
				ElementType:         smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.String)}},
				ElementRelationship: smdschema.Associative}}}},
		}}}},
	}}
	s.Types = append(s.Types, typed.DeducedParseableType.Schema.Types...)
	return typed.ParseableType{Schema: s, TypeRef: smdschema.TypeRef{NamedType: &name}}
}

func ptr[T any](v T) *T { return &v }

func FuzzCheckApplySize(f *testing.F) {
	for _, tt := range boundCases {
		for mode := range byte(3) {
			f.Add(tt.config, mode)
		}
	}
	schema := atomicMapType(f)
	f.Fuzz(func(t *testing.T, raw string, mode byte) {
		var config map[string]any
		if json.Unmarshal([]byte(raw), &config) != nil || strings.Contains(raw, "managedFields") {
			return
		}
		switch mode % 3 {
		case 0:
			checkBound(t, newCM(), raw, "")
		case 1:
			checkBound(t, New(Options{APIVersion: "v1", Kind: "ConfigMap", StatusSubresource: true}), raw, "status")
		case 2:
			checkBound(t, New(Options{APIVersion: "v1", Kind: "ConfigMap", Type: schema}), raw, "")
		}
	})
}
