package interop

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// The test below compares how package crd and apiextensions-apiserver
// (the version in go.mod) refuse definitions for their schemas,
// subresources, printer columns and selectable fields: every error, byte
// for byte, at Kubernetes' paths (spec.validation and the like for what
// all versions share). Kubernetes visits a schema's properties in Go map
// order, so the errors are compared sorted.

// definitionCase is a definition's versions, as JSON, with what every
// version has unless it says otherwise.
type definitionCase struct {
	name     string
	versions []string
}

// spec is a schema with a spec of the given properties.
func spec(props string) string {
	return `{"type":"object","properties":{"spec":{"type":"object","properties":{` + props + `}},"status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}`
}

// version is a version's JSON with the schema s and more members.
func version(s string, more ...string) string {
	return `{"schema":{"openAPIV3Schema":` + s + `}` + strings.Join(append([]string{""}, more...), ",") + `}`
}

var definitionCases = []definitionCase{
	{"valid", []string{version(spec(`"n":{"type":"integer","default":1},"s":{"type":"string","pattern":"^a"}`))}},
	{"types missing", []string{version(`{"type":"object","properties":{"spec":{"properties":{"n":{},"l":{"type":"array","items":{}},"a":{"type":"array"}}}}}`)}},
	{"root", []string{version(`{"type":"array","items":{"type":"string"}}`)}},
	{"root without type", []string{version(`{"properties":{"spec":{"type":"object"}}}`)}},
	{"root nullable, additionalProperties", []string{version(`{"type":"object","nullable":true,"additionalProperties":{"type":"string"}}`)}},
	{"bad types", []string{version(spec(`"a":{"type":"null"},"b":{"type":"date"},"c":{"type":"string","x-kubernetes-preserve-unknown-fields":false}`))}},
	{"patterns", []string{version(spec(`"a":{"type":"string","pattern":"a("},"b":{"type":"string","allOf":[{"pattern":"[z-a]"}]}`))}},
	{"defaults", []string{version(spec(`"n":{"type":"integer","maximum":3,"default":5},"s":{"type":"string","default":1},
		"o":{"type":"object","properties":{"a":{"type":"string","pattern":"^a"}},"default":{"a":"b","x":1}},
		"l":{"type":"array","items":{"type":"string","enum":["x"],"default":"y"},"default":["z"]},
		"m":{"type":"object","additionalProperties":{"type":"integer"},"default":{"a":"b"}},
		"r":{"type":"object","required":["a"],"properties":{"a":{"type":"string"}},"default":{}},
		"e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"default":{"apiVersion":"v1","kind":"1x"}}`))}},
	{"defaults in metadata", []string{version(`{"type":"object","properties":{"metadata":{"type":"object","default":{"name":"x"}},"kind":{"type":"string","default":"X"},"spec":{"type":"object"}}}`)}},
	{"metadata", []string{version(`{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string"},"labels":{"type":"object"}}},"kind":{"type":"integer"},"apiVersion":{"type":"string"}}}`)}},
	{"valid metadata name", []string{version(`{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string","maxLength":10},"generateName":{"type":"string"}}}}}`)}},
	{"metadata description", []string{version(`{"type":"object","properties":{"metadata":{"type":"object","description":"the metadata"}}}`)}},
	{"embedded resources", []string{version(spec(`"a":{"x-kubernetes-embedded-resource":true},"b":{"type":"object","x-kubernetes-embedded-resource":true},
		"c":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"properties":{"kind":{"type":"integer"},"metadata":{"type":"string","x-kubernetes-embedded-resource":true}}},
		"d":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"additionalProperties":{"type":"string"}}`))}},
	{"int or string", []string{version(spec(`"a":{"x-kubernetes-int-or-string":true,"x-kubernetes-preserve-unknown-fields":true},
		"b":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
		"c":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^a"}]},
		"d":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"boolean"}]}`))}},
	{"junctors", []string{version(spec(`"a":{"type":"string","allOf":[{"type":"string","default":"x","description":"d","title":"t","nullable":true}]},
		"b":{"type":"object","anyOf":[{"properties":{"x":{"type":"string"},"metadata":{}}}],"oneOf":[{"required":["y"]}],"not":{"x-kubernetes-list-type":"set"}},
		"c":{"type":"array","items":{"type":"string"},"allOf":[{"items":{"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-int-or-string":true}}]}`))}},
	{"completeness at the root", []string{version(`{"type":"object","properties":{"spec":{"type":"object"}},"allOf":[{"properties":{"spec":{"properties":{"x":{"minimum":1}}},"other":{}}}],"anyOf":[{"properties":{"l":{"items":{}}}}]}`)}},
	{"uniqueItems and additionalProperties", []string{version(spec(`"a":{"type":"array","uniqueItems":true,"items":{"type":"string"}},
		"b":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":{"type":"string"}},
		"c":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false},
		"d":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":true}`))}},
	{"list types", []string{version(spec(`"a":{"type":"string","x-kubernetes-list-type":"set"},"b":{"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-list-type":"set"},
		"c":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"bag"},
		"d":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}}},"x-kubernetes-list-map-keys":["k"]},
		"e":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}}},"x-kubernetes-list-type":"set","x-kubernetes-list-map-keys":["k"]},
		"f":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"map"},
		"g":{"type":"array","items":{"type":"object","required":["k"],"properties":{"k":{"type":"object"},"n":{"type":"string","nullable":true}}},"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k","x","k","n"]},
		"h":{"type":"array","items":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set"},"x-kubernetes-list-type":"set"},
		"i":{"type":"array","items":{"type":"object","nullable":true},"x-kubernetes-list-type":"set"},
		"j":{"type":"array","items":{"type":"object","x-kubernetes-map-type":"atomic"},"x-kubernetes-list-type":"set"}`))}},
	{"map types", []string{version(spec(`"a":{"type":"string","x-kubernetes-map-type":"atomic"},"b":{"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-map-type":"granular"},
		"c":{"type":"object","x-kubernetes-map-type":"loose"}`))}},
	{"no schema", []string{`{}`}},
	{"some without schema", []string{version(spec(``)), `{}`}},
	{"same schemas", []string{version(spec(`"a":{}`)), version(spec(`"a":{}`))}},
	{"different schemas", []string{version(spec(`"a":{}`)), version(spec(`"b":{"type":"array"}`))}},
	{"status subresource, root", []string{version(`{"type":"array","items":{"type":"string"}}`, `"subresources":{"status":{}}`)}},
	{"status subresource, root members", []string{version(`{"type":"object","nullable":true,"x-kubernetes-preserve-unknown-fields":true,"description":"d",
		"properties":{"spec":{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer","maximum":3}}}}},"x-kubernetes-validations":[{"rule":"true","reason":"FieldValueInvalid"}],"additionalProperties":false}`, `"subresources":{"status":{}}`)}},
	{"status subresource, root enum", []string{version(`{"type":"object","enum":[{"a":1.5},"x"],"required":["a"]}`, `"subresources":{"status":{}}`)}},
	{"status subresource of another version", []string{
		version(`{"type":"array","items":{"type":"string"}}`, `"subresources":{"status":{}}`),
		version(`{"type":"array","items":{"type":"string"}}`)}},
	{"scale paths", []string{version(spec(``), `"subresources":{"scale":{"specReplicasPath":"spec.n","statusReplicasPath":".spec.r","labelSelectorPath":".x"}}`)}},
	{"scale paths of two versions", []string{
		version(spec(``), `"subresources":{"scale":{"specReplicasPath":".spec.n","statusReplicasPath":".spec.r"}}`),
		version(spec(``), `"subresources":{"scale":{"specReplicasPath":".status.n","statusReplicasPath":".status.r"}}`)}},
	{"printer columns", []string{version(spec(``), `"additionalPrinterColumns":[{"name":"","type":"bad","format":"weird","jsonPath":"x"},{"name":"a","type":"","jsonPath":""}]`)}},
	{"printer columns of two versions", []string{
		version(spec(``), `"additionalPrinterColumns":[{"name":"a","type":"string","jsonPath":"x"}]`),
		version(spec(``), `"additionalPrinterColumns":[{"name":"a","type":"string","jsonPath":"y"}]`)}},
	{"selectable fields", []string{version(spec(`"s":{"type":"string"},"n":{"type":"number"},"m":{"type":"object","additionalProperties":{"type":"string"}}`),
		`"selectableFields":[{"jsonPath":".spec.x"},{"jsonPath":"spec.s"},{"jsonPath":".spec"},{"jsonPath":".spec.s"},{"jsonPath":".spec.s"},{"jsonPath":".metadata.name"},{"jsonPath":""},
			{"jsonPath":".spec.n"},{"jsonPath":".spec.m.a"},{"jsonPath":".spec['s']"},{"jsonPath":".spec."},{"jsonPath":".status.replicas"}]`)}},
	{"too many selectable fields", []string{version(spec(`"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},"e":{"type":"string"},"f":{"type":"string"},"g":{"type":"string"},"h":{"type":"string"},"i":{"type":"string"}`),
		`"selectableFields":[{"jsonPath":".spec.a"},{"jsonPath":".spec.b"},{"jsonPath":".spec.c"},{"jsonPath":".spec.d"},{"jsonPath":".spec.e"},{"jsonPath":".spec.f"},{"jsonPath":".spec.g"},{"jsonPath":".spec.h"},{"jsonPath":".spec.i"}]`)}},
	// Kubernetes' internal form refuses selectable fields that differ
	// between versions of one schema, and alike ones of different
	// schemas.
	{"selectable fields of a shared schema", []string{
		version(spec(`"s":{"type":"string"}`), `"selectableFields":[{"jsonPath":".spec.s"}]`),
		version(spec(`"s":{"type":"string"}`), `"selectableFields":[{"jsonPath":".spec.t"}]`)}},
	{"selectable fields alike, schemas not", []string{
		version(spec(`"s":{"type":"string"}`), `"selectableFields":[{"jsonPath":".spec.s"}]`),
		version(spec(`"s":{"type":"string"},"t":{"type":"string"}`), `"selectableFields":[{"jsonPath":".spec.s"}]`)}},
}

// definition is the definition of a case, of resource plural: version
// i is named v<i+1>, the first stored, all served.
func definition(plural string, tc definitionCase) string {
	var vs []string
	for i, v := range tc.versions {
		head := `{"name":"v` + strconv.Itoa(i+1) + `","served":true,"storage":` + strconv.FormatBool(i == 0)
		if v != "{}" {
			head += ","
		}
		vs = append(vs, head+strings.TrimPrefix(v, "{"))
	}
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"` + plural + `.example.com"},
		"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"` + plural + `","kind":"Widget"},
		"versions":[` + strings.Join(vs, ",") + `]}}`
}

// kubeDefinitionErrors validates a definition with apiextensions-apiserver
// as its REST strategy does on create: defaulted, converted to the
// internal version, validated.
func kubeDefinitionErrors(t *testing.T, j string) []string {
	t.Helper()
	var v1 apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal([]byte(j), &v1); err != nil {
		t.Fatal(err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	var in apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &in, nil); err != nil {
		t.Fatal(err)
	}
	for _, v := range in.Spec.Versions {
		if v.Storage {
			in.Status.StoredVersions = []string{v.Name}
		}
	}
	out := kubeTexts(crdvalidation.ValidateCustomResourceDefinition(t.Context(), &in))
	slices.Sort(out)
	return out
}

// ourDefinitionErrors creates a definition on a server with package crd
// and returns the causes of its refusal.
func ourDefinitionErrors(t *testing.T, url, j string) []string {
	t.Helper()
	r := servertest.Do(t, "POST", url+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", j, "Content-Type", "application/json")
	if r.Code == 201 {
		return nil
	}
	var st struct {
		Details struct {
			Causes []struct{ Reason, Message, Field string }
		}
	}
	if err := json.Unmarshal([]byte(r.Body), &st); err != nil || r.Code != 422 {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	var out []string
	for _, c := range st.Details.Causes {
		out = append(out, c.Reason+" "+c.Field+": "+c.Message)
	}
	slices.Sort(out)
	return out
}

func TestDefinitionsMatchKubernetes(t *testing.T) {
	_, url := servertest.New(t, server.Options{Resources: []*server.Resource{crd.Resource()}})
	for i, tc := range definitionCases {
		t.Run(tc.name, func(t *testing.T) {
			j := definition("widgets"+strconv.Itoa(i), tc)
			want := kubeDefinitionErrors(t, j)
			got := ourDefinitionErrors(t, url, j)
			if !slices.Equal(got, want) {
				t.Errorf("got  %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
			}
			if len(want) == 0 && !strings.HasPrefix(tc.name, "valid") {
				t.Error("Kubernetes finds no error")
			}
		})
	}
}
