package crd

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"
)

// TestDefinitionSchemaErrors checks the errors of definitions with
// invalid schemas, columns and subresources against those a
// kube-apiserver 1.37 gave the same definitions (observed on a real one;
// examples/interop compares many more with apiextensions-apiserver's own
// checks). What every version has alike is reported where Kubernetes'
// internal form holds it: spec.validation, spec.additionalPrinterColumns,
// spec.subresources.
func TestDefinitionSchemaErrors(t *testing.T) {
	const (
		s  = `"schema":{"openAPIV3Schema":`
		ok = s + `{"type":"object","properties":{"spec":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`
		sv = "spec.validation.openAPIV3Schema"
	)
	for _, tc := range []struct {
		name     string
		versions []string
		want     []string
	}{
		{"types missing", []string{s + `{"type":"object","properties":{"spec":{"properties":{"n":{}}}}}}`}, []string{
			sv + ".properties[spec].properties[n].type: Required value: must not be empty for specified object fields",
			sv + ".properties[spec].type: Required value: must not be empty for specified object fields",
		}},
		{"a bad pattern", []string{s + `{"type":"object","properties":{"spec":{"type":"object","properties":{"n":{"type":"string","pattern":"a("}}}}}}`}, []string{
			sv + ".properties[spec].properties[n].pattern: Invalid value: \"a(\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): `a(`",
		}},
		{"defaults", []string{s + `{"type":"object","properties":{"spec":{"type":"object","properties":{"n":{"type":"integer","maximum":3,"default":5},"s":{"type":"string","default":1},"o":{"type":"object","properties":{"a":{"type":"string","pattern":"^a"}},"default":{"a":"b","x":1}}}}}}}`}, []string{
			sv + `.properties[spec].properties[n].default: Invalid value: 5:  in body should be less than or equal to 3`,
			sv + `.properties[spec].properties[o].default: Invalid value: {"a":"b","x":1}: must not have unknown fields`,
			sv + `.properties[spec].properties[o].default.a: Invalid value: "b": a in body should match '^a'`,
			sv + `.properties[spec].properties[s].default: Invalid value: "integer":  in body must be of type string: "integer"`,
		}},
		{"map keys neither required nor defaulted", []string{s + `{"type":"object","properties":{"spec":{"type":"object","properties":{"m":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a"],"items":{"type":"object","properties":{"a":{"type":"string"}}}}}}}}}`}, []string{
			sv + ".properties[spec].properties[m].items.properties[a].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
		}},
		{"no schema", []string{`"served":false`}, []string{"spec.versions[0].schema.openAPIV3Schema: Required value"}},
		{"an array at the root", []string{s + `{"type":"array","items":{"type":"string"}}}`}, []string{sv + `.type: Invalid value: "array": must be object at the root`}},
		{"no type at the root", []string{s + `{"properties":{"spec":{"type":"object"}}}}`}, []string{sv + ".type: Required value: must not be empty at the root"}},
		{"the status subresource", []string{s + `{"type":"object","nullable":true,"x-kubernetes-preserve-unknown-fields":true}},"subresources":{"status":{}}`}, []string{
			sv + `: Invalid value: {"ID":"","Schema":"","Ref":null,"Description":"","Type":"object","Nullable":true,"Format":"","Title":"","Default":null,"Maximum":null,"ExclusiveMaximum":false,"Minimum":null,"ExclusiveMinimum":false,"MaxLength":null,"MinLength":null,"Pattern":"","MaxItems":null,"MinItems":null,"UniqueItems":false,"MultipleOf":null,"Enum":null,"MaxProperties":null,"MinProperties":null,"Required":null,"Items":null,"AllOf":null,"OneOf":null,"AnyOf":null,"Not":null,"Properties":null,"AdditionalProperties":null,"PatternProperties":null,"Dependencies":null,"AdditionalItems":null,"Definitions":null,"ExternalDocs":null,"Example":null,"XPreserveUnknownFields":true,"XEmbeddedResource":false,"XIntOrString":false,"XListMapKeys":null,"XListType":null,"XMapType":null,"XValidations":null}: ` +
				"only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled",
			sv + ".nullable: Forbidden: nullable cannot be true at the root",
		}},
		{"two versions alike", []string{s + `{"type":"array","items":{"type":"string"}}}`, s + `{"type":"array","items":{"type":"string"}}}`},
			[]string{sv + `.type: Invalid value: "array": must be object at the root`}},
		{"two versions apart", []string{s + `{"type":"array","items":{"type":"string"}}}`, s + `{"type":"array","items":{"type":"integer"}}}`}, []string{
			`spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "array": must be object at the root`,
			`spec.versions[1].schema.openAPIV3Schema.type: Invalid value: "array": must be object at the root`,
		}},
		{"printer columns", []string{ok + `,"additionalPrinterColumns":[{"name":"","type":"bad","format":"weird","jsonPath":"x"},{"name":"a","type":"","jsonPath":""}]`}, []string{
			"spec.additionalPrinterColumns[0].name: Required value",
			`spec.additionalPrinterColumns[0].type: Invalid value: "bad": must be one of boolean,date,integer,number,string`,
			`spec.additionalPrinterColumns[0].format: Invalid value: "weird": must be one of byte,date,date-time,double,float,int32,int64,password`,
			`spec.additionalPrinterColumns[0].JSONPath: Invalid value: "x": must be a simple json path starting with .`,
			"spec.additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string",
			"spec.additionalPrinterColumns[1].JSONPath: Required value",
		}},
		{"printer columns with kubectl's JSONPath, parsed or not", []string{ok + `,"additionalPrinterColumns":[
			{"name":"a","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].status"},
			{"name":"b","type":"string","jsonPath":".spec.containers[*].name"},
			{"name":"c","type":"string","jsonPath":"..name"},
			{"name":"d","type":"string","jsonPath":".a[x]"},
			{"name":"e","type":"string","jsonPath":"."}]`}, nil},
		{"printer columns of two versions", []string{
			ok + `,"additionalPrinterColumns":[{"name":"a","type":"string","jsonPath":"x"}]`,
			ok + `,"additionalPrinterColumns":[{"name":"a","type":"string","jsonPath":"y"}]`}, []string{
			`spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "x": must be a simple json path starting with .`,
			`spec.versions[1].additionalPrinterColumns[0].JSONPath: Invalid value: "y": must be a simple json path starting with .`,
		}},
		{"scale", []string{ok + `,"subresources":{"scale":{"specReplicasPath":"spec.n","statusReplicasPath":".spec.r","labelSelectorPath":".x"}}`}, []string{
			`spec.subresources.scale.specReplicasPath: Invalid value: "spec.n": must be a simple json path starting with .`,
			`spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.r": should be a json path under .status`,
			`spec.subresources.scale.labelSelectorPath: Invalid value: ".x": should be a json path under either .spec or .status`,
		}},
		{"selectable fields of one schema, apart", []string{
			ok + `,"selectableFields":[{"jsonPath":".spec.n"}]`,
			ok + `,"selectableFields":[{"jsonPath":".spec.m"}]`}, []string{
			"spec.versions[0].selectableFields: Invalid value: \"\": may only be set when `version.schema.openAPIV3Schema` is not included",
			"spec.versions[1].selectableFields: Invalid value: \"\": may only be set when `version.schema.openAPIV3Schema` is not included",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var vs []string
			for i, v := range tc.versions {
				vs = append(vs, `{"name":"v`+strconv.Itoa(i+1)+`","storage":`+strconv.FormatBool(i == 0)+`,`+v+`}`)
			}
			j := `{"metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
				"names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"versions":[` + strings.Join(vs, ",") + `]}}`
			var c CustomResourceDefinition
			if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(j), &c); err != nil {
				t.Fatalf("%v: %s", err, j)
			}
			prepareDefinition(&c, nil)
			var got []string
			for _, e := range definitionErrors(nil, &c, nil) {
				got = append(got, e.Error())
			}
			want := slices.Clone(tc.want)
			// Kubernetes reports the errors of defaults in map order.
			if tc.name == "defaults" {
				slices.Sort(got)
				slices.Sort(want)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got  %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
			}
		})
	}
}
