package interop

import (
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	openapiproto "k8s.io/kube-openapi/pkg/util/proto"

	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/server/servertest"
)

func startDemoOpenAPI(t *testing.T) (*rest.Config, *discovery.DiscoveryClient) {
	t.Helper()
	s, err := demo.New(demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	config := &rest.Config{Host: servertest.Start(t, s), QPS: -1}
	dc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return config, dc
}

// client-go's OpenAPISchema reads /openapi/v2 in protobuf only; the model
// kubectl and controllers build from it finds every kind by its
// x-kubernetes-group-version-kind; and the protobuf is gnostic's message
// of the JSON document, as a cluster's is.
func TestOpenAPIV2ThroughClientGo(t *testing.T) {
	_, dc := startDemoOpenAPI(t)
	doc, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatalf("OpenAPISchema: %v", err)
	}
	if doc.GetSwagger() != "2.0" || len(doc.GetPaths().GetPath()) == 0 {
		t.Fatalf("OpenAPISchema: swagger %q, %d paths", doc.GetSwagger(), len(doc.GetPaths().GetPath()))
	}
	models, err := openapiproto.NewOpenAPIData(doc)
	if err != nil {
		t.Fatalf("NewOpenAPIData: %v", err)
	}
	byGVK := map[schema.GroupVersionKind]string{}
	for _, name := range models.ListModels() {
		m := models.LookupModel(name)
		gvks, _ := m.GetExtensions()["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			e, _ := g.(map[any]any)
			gvk := schema.GroupVersionKind{Kind: e["kind"].(string), Version: e["version"].(string)}
			gvk.Group, _ = e["group"].(string)
			byGVK[gvk] = name
		}
	}
	for _, gvk := range []schema.GroupVersionKind{
		{Version: "v1", Kind: "ConfigMap"},
		{Version: "v1", Kind: "Namespace"},
		{Group: "example.apisem.dev", Version: "v1", Kind: "Widget"},
	} {
		name, ok := byGVK[gvk]
		if !ok {
			t.Errorf("no model for %v", gvk)
			continue
		}
		if _, ok := models.LookupModel(name).(*openapiproto.Kind); !ok {
			t.Errorf("%v: model %s is %T; want a Kind", gvk, name, models.LookupModel(name))
		}
	}

	// What client-go decoded is what gnostic makes of the JSON form.
	body, err := dc.RESTClient().Get().AbsPath("/openapi/v2").SetHeader("Accept", "application/json").Do(t.Context()).Raw()
	if err != nil {
		t.Fatal(err)
	}
	want, err := openapi_v2.ParseDocument(body)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(doc, want) {
		t.Error("the protobuf /openapi/v2 is not gnostic's document of the JSON one")
	}
}

// client-go's OpenAPI v3 client lists the group versions and fetches each
// at its hashed URL, in JSON and in protobuf; kubectl's root parses the
// JSON into a kind's schema.
func TestOpenAPIV3ThroughClientGo(t *testing.T) {
	_, dc := startDemoOpenAPI(t)
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		t.Fatalf("Paths: %v", err)
	}
	for _, p := range []string{"api/v1", "apis/example.apisem.dev/v1"} {
		gv, ok := paths[p]
		if !ok {
			t.Errorf("Paths lacks %s: %v", p, paths)
			continue
		}
		if u := gv.ServerRelativeURL(); !strings.HasPrefix(u, "/openapi/v3/"+p+"?hash=") {
			t.Errorf("%s: ServerRelativeURL %q", p, u)
		}
		j, err := gv.Schema("application/json")
		if err != nil {
			t.Fatalf("%s in JSON: %v", p, err)
		}
		pb, err := gv.Schema(openapi.ContentTypeOpenAPIV3PB)
		if err != nil {
			t.Fatalf("%s in protobuf: %v", p, err)
		}
		var got openapi_v3.Document
		if err := proto.Unmarshal(pb, &got); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		want, err := openapi_v3.ParseDocument(j)
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(&got, want) {
			t.Errorf("%s: the protobuf document is not gnostic's document of the JSON one", p)
		}
	}
	root := openapi3.NewRoot(dc.OpenAPIV3())
	spec, err := root.GVSpec(schema.GroupVersion{Group: "example.apisem.dev", Version: "v1"})
	if err != nil {
		t.Fatalf("GVSpec: %v", err)
	}
	found := false
	for _, s := range spec.Components.Schemas {
		gvks, _ := s.Extensions["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			if e, _ := g.(map[string]any); e["kind"] == "Widget" {
				found = true
			}
		}
	}
	if !found {
		t.Error("GVSpec: no schema of kind Widget")
	}
}
