package server

import (
	"strings"
	"testing"

	"github.com/apisem/apisem/patch"
	"github.com/apisem/apisem/scale"
)

// TestScaleOpenAPIBuiltin: the scale path of a resource with patch
// strategies (a built-in type) names autoscaling/v1 Scale as its kind and
// takes strategic merge patches, as kube-apiserver publishes a
// Deployment's.
func TestScaleOpenAPIBuiltin(t *testing.T) {
	res := gizmoResource(t)
	res.PatchSchema = &patch.Schema{}
	res.Scale = &ScaleSubresource{SpecReplicasPath: ".spec.size",
		Get: func(Object) (scale.Spec, scale.Status, bool, error) { return scale.Spec{}, scale.Status{}, true, nil },
		Set: func(Object, int32) error { return nil }}
	_, base := startTestServer(t, res)
	body := do(t, 200, base, "GET", "/openapi/v3/apis/demo.io/v1", "").body
	p, _ := jsonField(t, body, "paths").(map[string]any)
	scale, _ := p["/apis/demo.io/v1/namespaces/{namespace}/gizmos/{name}/scale"].(map[string]any)
	patchOp, _ := scale["patch"].(map[string]any)
	if patchOp == nil {
		t.Fatalf("no scale patch in %s", body)
	}
	if gvk, _ := patchOp["x-kubernetes-group-version-kind"].(map[string]any); gvk["group"] != "autoscaling" || gvk["kind"] != "Scale" {
		t.Errorf("gvk %v", gvk)
	}
	if _, ok := patchOp["responses"].(map[string]any)["201"]; !ok {
		t.Errorf("patch responses %v", patchOp["responses"])
	}
	content, _ := patchOp["requestBody"].(map[string]any)["content"].(map[string]any)
	if _, ok := content["application/strategic-merge-patch+json"]; !ok {
		t.Errorf("patch types %v", content)
	}
	if !strings.Contains(body, `"io.k8s.api.autoscaling.v1.ScaleStatus"`) {
		t.Error("no ScaleStatus")
	}
}
