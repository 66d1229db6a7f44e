package interop

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/openapi/cached"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// kubectl create and apply validate strictly by default: they look up the
// fieldValidation parameter of each kind's PATCH operation in OpenAPI v3,
// and fail when they cannot. This is their check, run as kubectl runs it.
func TestKubectlFieldValidationSupport(t *testing.T) {
	ts := start(t, demo.Options{})
	dc, err := discovery.NewDiscoveryClientForConfig(ts.config(false))
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(ts.config(false))
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
