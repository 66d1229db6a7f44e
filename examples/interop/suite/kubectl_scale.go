package suite

import (
	"strings"
	"testing"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// kubectl scale of a custom resource with the scale subresource: kubectl
// finds the subresource in discovery, patches /scale, and the object's
// spec.replicas follows; a precondition that fails and a value the
// schema refuses get Kubernetes' answers.
func (e env) kubectlScaleCustomResource(t *testing.T) {
	bin := kubectlBinary(t)
	ts := e.start(t, demo.Options{})
	namespace(t, ts.clientset(t, false), "ns1")
	k := newKubectl(t, bin, ts.URL, "ns1")
	kubectl, file := k.run, k.file
	crd := file("crd.yaml", `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: pools.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: pools, singular: pool, kind: Pool}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {replicas: {type: integer, maximum: 10}}}
          status: {type: object, properties: {replicas: {type: integer}, selector: {type: string}}}
`)
	pool := file("pool.yaml", "apiVersion: stable.example.com/v1\nkind: Pool\nmetadata:\n  name: p\nspec:\n  replicas: 1\n")
	kubectl(true, "apply", "-f", crd)
	kubectl(true, "wait", "--for=condition=Established", "crd/pools.stable.example.com", "--timeout=10s")
	kubectl(true, "apply", "-f", pool)

	if out := kubectl(true, "scale", "pool/p", "--replicas=3"); !strings.Contains(out, "pool.stable.example.com/p scaled") {
		t.Errorf("scale: %s", out)
	}
	if out := kubectl(true, "get", "pool/p", "-o", "jsonpath={.spec.replicas} {.metadata.generation}"); out != "3 2" {
		t.Errorf("after scale: replicas and generation %q; want \"3 2\"", out)
	}
	// --current-replicas makes kubectl read the Scale and update it with
	// its resourceVersion.
	if out := kubectl(false, "scale", "pool/p", "--current-replicas=2", "--replicas=5"); !strings.Contains(out, "Expected replicas to be 2, was 3") {
		t.Errorf("scale with a wrong precondition: %s", out)
	}
	kubectl(true, "scale", "pool/p", "--current-replicas=3", "--replicas=5")
	if out := kubectl(false, "scale", "pool/p", "--replicas=11"); !strings.Contains(out,
		`The Pool "p" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`) {
		t.Errorf("scale past the maximum: %s", out)
	}
	if out := kubectl(true, "get", "pool/p", "--subresource=scale", "-o", "jsonpath={.kind} {.spec.replicas}"); out != "Scale 5" {
		t.Errorf("get --subresource=scale: %q", out)
	}
}
