package interop

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/openapi/cached"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/server/servertest"
)

// kubectl create and apply validate strictly by default: they look up the
// fieldValidation parameter of each kind's PATCH operation in OpenAPI v3,
// and fail when they cannot. This is their check, run as kubectl runs it.
//
// It lives outside package suite, whose tests any storage must pass,
// because it reads OpenAPI alone and because cli-runtime would weigh on
// every module that runs the suite.
func TestKubectlFieldValidationSupport(t *testing.T) {
	s, err := demo.New(demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	config := &rest.Config{Host: servertest.Start(t, s), QPS: -1}
	dc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	v := resource.NewQueryParamVerifierV3(dyn, cached.NewClient(dc.OpenAPIV3()), resource.QueryParamFieldValidation)
	for _, gvk := range []schema.GroupVersionKind{
		{Version: "v1", Kind: "ConfigMap"},
		{Version: "v1", Kind: "Secret"},
		{Version: "v1", Kind: "Namespace"},
		{Group: "example.apisem.dev", Version: "v1", Kind: "Widget"},
	} {
		if err := v.HasSupport(gvk); err != nil {
			t.Errorf("%v: %v", gvk, err)
		}
	}
}

// kubectl apply of a built-in kind computes its strategic merge patch
// from the kind's schema in OpenAPI v3, and warns "error calculating
// patch from openapi v3 spec: unable to find api field" when the schema
// lacks a field it patches. This is its computation, run as kubectl runs
// it on a CustomResourceDefinition whose schema changed.
func TestKubectlApplyPatchOfDefinition(t *testing.T) {
	s, err := demo.New(demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: servertest.Start(t, s), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	gvk := schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
	spec, err := openapi3.NewRoot(cached.NewClient(dc.OpenAPIV3())).GVSpec(gvk.GroupVersion())
	if err != nil {
		t.Fatal(err)
	}
	const (
		def = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.example.com"},
			"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gizmos","kind":"Gizmo"},
			"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
			"properties":{"spec":{"type":"object","properties":{"tags":TAGS}}}}}}]}}`
		before = `{"type":"array","items":{"type":"string"}}`
		after  = `{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}`
	)
	original := []byte(strings.Replace(def, "TAGS", before, 1))
	modified := []byte(strings.Replace(def, "TAGS", after, 1))
	found := false
	for _, c := range spec.Components.Schemas {
		var gvks []map[string]string
		if c.Extensions.GetObject("x-kubernetes-group-version-kind", &gvks) != nil || len(gvks) != 1 || gvks[0]["kind"] != gvk.Kind {
			continue
		}
		found = true
		meta := strategicpatch.PatchMetaFromOpenAPIV3{Schema: c, SchemaList: spec.Components.Schemas}
		p, err := strategicpatch.CreateThreeWayMergePatch(original, modified, original, meta, false)
		if err != nil {
			t.Fatalf("error calculating patch from openapi v3 spec: %v", err)
		}
		// spec.versions is an atomic list: replaced whole.
		if want := `"x-kubernetes-list-type":"set"`; !strings.Contains(string(p), want) {
			t.Errorf("patch %s; want it to hold %s", p, want)
		}
	}
	if !found {
		t.Errorf("no schema of %v in OpenAPI v3", gvk)
	}
}
