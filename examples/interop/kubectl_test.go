package interop

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/openapi/cached"
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
