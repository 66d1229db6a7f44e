package server

import (
	"context"
	"strings"
	"testing"

	"github.com/apisem/apisem/openapi"
)

// AddResource checks the definitions it adds as New checks them, though
// it walks only those: a reference nothing defines, or a definition
// given twice differently, fails it and leaves what is served as it was;
// the documents then list the earlier and the added definitions.
func TestAddResourceDefinitions(t *testing.T) {
	s, err := New(Options{Resources: testResources()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	widget := func(group string, defs map[string]*openapi.Schema) *Resource {
		return &Resource{Group: group, Version: "v1", Kind: "Widget", ListKind: "WidgetList", Plural: "widgets",
			Singular: "widget", Custom: true,
			Schema:      &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{"spec": {Ref: "dev.apisem.widget.Spec"}}},
			Definitions: defs}
	}
	for _, tc := range []struct {
		name string
		res  *Resource
		err  string
	}{
		{"a dangling reference", widget("a.example.com", nil),
			"refers to dev.apisem.widget.Spec, which is not defined"},
		{"a definition of the server's, changed", widget("b.example.com", map[string]*openapi.Schema{
			"dev.apisem.widget.Spec": {Type: "object"}, openapi.TimeSchema: {Type: "integer"}}),
			"OpenAPI definition " + openapi.TimeSchema + " defined twice, differently"},
	} {
		before := s.reg.Load()
		if err := s.AddResource(tc.res); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: AddResource = %v; want an error with %q", tc.name, err, tc.err)
		}
		if s.reg.Load() != before {
			t.Errorf("%s: a failed AddResource changed what is served", tc.name)
		}
	}
	ok := widget("c.example.com", map[string]*openapi.Schema{"dev.apisem.widget.Spec": {Type: "object"}})
	if err := s.AddResource(ok); err != nil {
		t.Fatal(err)
	}
	defs := s.reg.Load().disco.defs
	for _, name := range []string{"dev.apisem.widget.Spec", ok.schemaName(), "dev.apisem.test.v1.GadgetSpec"} {
		if defs.schemas[name] == nil {
			t.Errorf("after AddResource, definition %s is missing", name)
		}
	}
	if got := len(defs.gvks[openapi.DeleteOptionsSchema]); got != len(defs.gvs) {
		t.Errorf("DeleteOptions is a kind of %d group versions; want %d", got, len(defs.gvs))
	}
	if _, err := s.reg.Load().disco.openAPI(); err != nil {
		t.Errorf("OpenAPI documents after AddResource: %v", err)
	}
}
