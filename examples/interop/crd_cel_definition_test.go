package interop

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/crd/cel"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// The test below compares how package crd with crd/cel and
// apiextensions-apiserver (the version in go.mod) refuse definitions for
// their rules: compilation and type errors, estimated costs over the
// limits, fields of rules, and defaults that break a rule. The errors
// about rules must be the same, byte for byte; other errors of the
// definitions are other tests' business. Kubernetes visits a schema's
// properties in Go map order, so the errors are compared sorted.

// celDefinitionCase is a definition's versions' schemas.
type celDefinitionCase struct {
	name    string
	schemas []string
}

// unboundedLoops is a rule whose estimated cost exceeds the per-rule
// limit on an unbounded list.
const unboundedLoops = `{"type":"object","properties":{"spec":{"type":"object","properties":{
	"items":{"type":"array","items":{"type":"string"},
		"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x != y || true))"}]}}}}}`

var celDefinitionCases = []celDefinitionCase{
	{"valid", []string{`{"type":"object","properties":{"spec":{"type":"object",
		"x-kubernetes-validations":[{"rule":"self.replicas >= 0 && self.name.startsWith('a')","messageExpression":"'bad replicas: %d'.format([self.replicas])"}],
		"properties":{"replicas":{"type":"integer"},"name":{"type":"string","maxLength":8}}}}}`}},
	{"syntax and type errors", []string{`{"type":"object","x-kubernetes-validations":[
		{"rule":"self.spec.replicas.startsWith('a')"},
		{"rule":"self.spec.replicas +"},
		{"rule":"self.spec.replicas"},
		{"rule":"self.spec.nope > 1"},
		{"rule":"self.metadata.labels.size() > 0"},
		{"rule":"self.spec.replicas > 0","messageExpression":"self.spec.replicas"},
		{"rule":"self.spec.replicas > 0","messageExpression":"'a' +"}],
		"properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}`}},
	{"rule fields", []string{`{"type":"object","properties":{"spec":{"type":"object",
		"x-kubernetes-validations":[
			{"rule":"  "},
			{"rule":"true","message":"  "},
			{"rule":"true","message":"a\nb"},
			{"rule":"true &&\ntrue"},
			{"rule":"true","messageExpression":" "},
			{"rule":"true","reason":"Whatever"},
			{"rule":"true","fieldPath":".nope"},
			{"rule":"true","fieldPath":".a\n"},
			{"rule":"true","fieldPath":".a"},
			{"rule":"true","optionalOldSelf":true},
			{"rule":"self == oldSelf","optionalOldSelf":false}],
		"properties":{"a":{"type":"string"}}}}}`}},
	{"escaped names", []string{`{"type":"object","properties":{"spec":{"type":"object",
		"x-kubernetes-validations":[
			{"rule":"self.foo__dash__bar == self.a__dot__b && self.x__underscores__y > 0 && self.__namespace__ != ''"},
			{"rule":"self.foo-bar == ''"},
			{"rule":"self.namespace == ''"},
			{"rule":"has(self.a/b)"}],
		"properties":{"foo-bar":{"type":"string","maxLength":8},"a.b":{"type":"string","maxLength":8},"x__y":{"type":"integer"},
			"namespace":{"type":"string","maxLength":8},"a/b":{"type":"string"}}}}}`}},
	{"per-rule cost", []string{unboundedLoops}},
	{"cost of message expression", []string{`{"type":"object","properties":{"spec":{"type":"object",
		"x-kubernetes-validations":[{"rule":"self.n > 0","messageExpression":"'n is ' + string(self.n)"}],
		"properties":{"n":{"type":"integer"}}}}}`}},
	{"cost multiplied by items", []string{`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"list":{"type":"array","items":{"type":"array","items":{"type":"string","maxLength":64},
			"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x == y))"}]}}}}}}`}},
	{"total cost", []string{`{"type":"object","properties":{"spec":{"type":"object","properties":{` + manyRules(14) + `}}}}`}},
	{"oldSelf where items are not correlated", []string{`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"atomic":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string","maxLength":8}},
			"x-kubernetes-validations":[{"rule":"self.a == oldSelf.a"},{"rule":"self.a != ''"}]}},
		"set":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string","maxLength":8,
			"x-kubernetes-validations":[{"rule":"self == oldSelf"}]}},
		"map":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a"],"items":{"type":"object","required":["a"],
			"properties":{"a":{"type":"string","maxLength":8}},"x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}}}}}`}},
	{"default breaks a rule", []string{`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"n":{"type":"integer","default":5,"x-kubernetes-validations":[{"rule":"self < 3","message":"n must be below 3"}]},
		"o":{"type":"object","default":{"a":"x"},"properties":{"a":{"type":"string","maxLength":8}},
			"x-kubernetes-validations":[{"rule":"self.a == 'y'","fieldPath":".a"},{"rule":"!oldSelf.hasValue() || self.a == oldSelf.value().a","optionalOldSelf":true}]}}}}}`}},
	{"rules in allOf", []string{`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"n":{"type":"integer","allOf":[{"x-kubernetes-validations":[{"rule":"self < 10"}]}]}}}}}`}},
	{"versions with the same schema", []string{
		`{"type":"object","x-kubernetes-validations":[{"rule":"self.nope"}]}`,
		`{"type":"object","x-kubernetes-validations":[{"rule":"self.nope"}]}`}},
	{"versions with different schemas", []string{
		`{"type":"object","x-kubernetes-validations":[{"rule":"self.nope"}]}`,
		`{"type":"object","x-kubernetes-validations":[{"rule":"true"}]}`,
		unboundedLoops}},
}

// manyRules is n properties whose rules are each estimated below the
// per-rule limit, and near a twelfth of a whole schema's limit.
func manyRules(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		// Costs differ, so that the four highest, which Kubernetes
		// names, are known.
		b.WriteString(`"p` + string(rune('a'+i)) + `":{"type":"array","maxItems":` + strconv.Itoa(4600-50*i) + `,"items":{"type":"string","maxLength":4500},
			"x-kubernetes-validations":[{"rule":"self.all(x, x.contains('a'))"}]}`)
	}
	return b.String()
}

// celDefinition is the definition of a case, of resource plural.
func celDefinition(plural string, tc celDefinitionCase) string {
	var vs []string
	for i, s := range tc.schemas {
		storage := "false"
		if i == 0 {
			storage = "true"
		}
		vs = append(vs, `{"name":"v`+string(rune('1'+i))+`","served":true,"storage":`+storage+`,"schema":{"openAPIV3Schema":`+s+`}}`)
	}
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"` + plural + `.example.com"},
		"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"` + plural + `","kind":"Widget"},
		"versions":[` + strings.Join(vs, ",") + `]}}`
}

// aboutRules reports whether an error ("<reason> <field>: <body>") is
// about rules: at a rule, the total cost, or a default (the cases'
// defaults are wrong only for their rules).
func aboutRules(text string) bool {
	field, body, _ := strings.Cut(text, ": ")
	return strings.Contains(field+".", ".x-kubernetes-validations.") || strings.Contains(field, ".x-kubernetes-validations[") ||
		strings.Contains(field+".", ".default.") ||
		strings.HasPrefix(body, "Forbidden: x-kubernetes-validations estimated rule cost total")
}

// ruleErrors keeps the errors ("<reason> <field>: <body>") about rules.
func ruleErrors(errs []string) []string {
	return slices.DeleteFunc(errs, func(s string) bool {
		_, text, _ := strings.Cut(s, " ")
		return !aboutRules(text)
	})
}

// kubeDefinition is kubeDefinitionErrors (see crd_definition_test.go)
// about rules.
func kubeDefinition(t *testing.T, j string) []string {
	t.Helper()
	return ruleErrors(kubeDefinitionErrors(t, j))
}

// ourDefinition is ourDefinitionErrors on a server with crd and crd/cel,
// about rules.
func ourDefinition(t *testing.T, url, j string) []string {
	t.Helper()
	return ruleErrors(ourDefinitionErrors(t, url, j))
}

func TestCELDefinitionsMatchKubernetes(t *testing.T) {
	defs := crd.Options{Rules: cel.Compiler{}}.Resource()
	_, url := servertest.New(t, server.Options{Resources: []*server.Resource{defs}})
	for i, tc := range celDefinitionCases {
		t.Run(tc.name, func(t *testing.T) {
			j := celDefinition("widgets"+strconv.Itoa(i), tc)
			want := kubeDefinition(t, j)
			got := ourDefinition(t, url, j)
			if !slices.Equal(got, want) {
				t.Errorf("got  %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
			}
			if len(want) == 0 && tc.name != "valid" {
				t.Error("Kubernetes finds no error")
			}
		})
	}
}
