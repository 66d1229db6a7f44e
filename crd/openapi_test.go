package crd

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// TestDefinitionOpenAPI checks that /openapi/v3 publishes the schema of
// CustomResourceDefinition as a kube-apiserver 1.37 does:
// testdata/definition-openapi-v3.json holds the definitions of its
// /openapi/v3/apis/apiextensions.k8s.io/v1 document, but for the list's,
// which the server generates, with every description emptied (the text is
// each server's own, its presence the shape: a described reference is an
// allOf).
func TestDefinitionOpenAPI(t *testing.T) {
	b, err := os.ReadFile("testdata/definition-openapi-v3.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	_, url := servertest.New(t, server.Options{Resources: []*server.Resource{Resource()}})
	r := servertest.Do(t, "GET", url+"/openapi/v3/apis/apiextensions.k8s.io/v1", "")
	if r.Code != 200 {
		t.Fatalf("GET = %d %s", r.Code, r.Body)
	}
	var doc struct {
		Components struct{ Schemas map[string]any }
	}
	if err := json.Unmarshal([]byte(r.Body), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for name, s := range doc.Components.Schemas {
		if strings.HasPrefix(name, schemaPrefix) && !strings.HasSuffix(name, "List") {
			got[name] = emptyDescriptions(s)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("definitions differ from Kubernetes' (-want +got):\n%s", diff)
	}
	if _, ok := doc.Components.Schemas[definitionSchemaName+"List"]; !ok {
		t.Error("no definition of the list")
	}
}

// emptyDescriptions is a schema with its descriptions "".
func emptyDescriptions(x any) any {
	switch x := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			switch k {
			case "description":
				out[k] = ""
			case "properties":
				props := map[string]any{}
				for pk, pv := range v.(map[string]any) {
					props[pk] = emptyDescriptions(pv)
				}
				out[k] = props
			default:
				out[k] = emptyDescriptions(v)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = emptyDescriptions(v)
		}
		return out
	}
	return x
}
