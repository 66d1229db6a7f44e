//go:build ignore

// Command record-mutating records what a kube-apiserver answers writes
// under MutatingAdmissionPolicies: it creates namespaces, a parameter
// ConfigMap, policies and their bindings (ApplyConfiguration and
// JSONPatch mutations, matchConditions, variables, a paramRef, a
// namespaceSelector, reinvocation, failurePolicy, a
// ValidatingAdmissionPolicy that only the mutated object passes), waits
// until the server applies them, then sends creates, updates, patches,
// server-side applies and dry runs. From builtin/, with the reference of
// ../shared/reference running:
//
//	API=https://127.0.0.1:6443 go run record-mutating.go
//
// It writes testdata/reference/mutating.json, which
// TestRecordedMutatingPolicies replays in order.
package main

import (
	"log"
	"strings"
	"time"

	"github.com/apisem/apisem/internal/recorder"
)

type step = recorder.Step

var (
	post  = recorder.Post
	patch = recorder.Patch
	del   = recorder.Delete
)

const (
	maps     = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies"
	mapbs    = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings"
	vaps     = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	vapbs    = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
	prodCMs  = "/api/v1/namespaces/map-prod/configmaps"
	devCMs   = "/api/v1/namespaces/map-dev/configmaps"
	deploys  = "/apis/apps/v1/namespaces/map-dev/deployments"
	secrets  = "/api/v1/namespaces/map-dev/secrets"
	services = "/api/v1/namespaces/map-dev/services"
)

func policy(name, spec string) string {
	if !strings.Contains(spec, "reinvocationPolicy") {
		spec += "  reinvocationPolicy: Never\n"
	}
	return "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata:\n  name: " + name + "\nspec:\n" + spec
}

func binding(name, policy, spec string) string {
	return "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata:\n  name: " + name + "\nspec:\n  policyName: " + policy + "\n" + spec
}

func rule(group, resource, ops string) string {
	return "  matchConstraints:\n    resourceRules:\n    - {apiGroups: [\"" + group + "\"], apiVersions: [v1], operations: [" + ops + "], resources: [" + resource + "]}\n"
}

func configMap(ns, name, labels string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: " + ns + labels + "\ndata:\n  a: \"1\"\n"
}

func deployment(name string, replicas string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\n  namespace: map-dev\nspec:\n  replicas: " + replicas +
		"\n  selector:\n    matchLabels:\n      app: x\n  template:\n    metadata:\n      labels:\n        app: x\n    spec:\n      containers:\n      - name: c\n        image: nginx\n"
}

var setup = []step{
	post("namespace prod", "/api/v1/namespaces", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: map-prod\n  labels:\n    env: prod\n"),
	post("namespace dev", "/api/v1/namespaces", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: map-dev\n  labels:\n    env: dev\n"),
	post("parameters", prodCMs, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: defaults\n  namespace: map-prod\ndata:\n  team: blue\n"),

	// ApplyConfiguration with a parameter, a variable and a
	// matchCondition, in namespaces labelled env=prod.
	post("policy team", maps, policy("team", "  paramKind: {apiVersion: v1, kind: ConfigMap}\n"+
		rule("", "configmaps", "CREATE, UPDATE")+
		"  matchConditions:\n  - name: unlabelled\n    expression: \"!has(object.metadata.labels) || !('team' in object.metadata.labels)\"\n"+
		"  variables:\n  - name: team\n    expression: \"params.data.team\"\n"+
		"  mutations:\n  - patchType: ApplyConfiguration\n    applyConfiguration:\n"+
		"      expression: \"Object{metadata: Object.metadata{labels: {'team': variables.team}}}\"\n")),
	post("binding team", mapbs, binding("team", "team",
		"  paramRef: {name: defaults, namespace: map-prod, parameterNotFoundAction: Deny}\n"+
			"  matchResources:\n    namespaceSelector: {matchLabels: {env: prod}}\n")),
	// A validating policy that only the mutated ConfigMaps pass: the
	// mutating policies run first.
	post("vap team", vaps, "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: needs-team\nspec:\n"+
		rule("", "configmaps", "CREATE")+
		"  validations:\n  - expression: \"has(object.metadata.labels) && 'team' in object.metadata.labels\"\n    message: no team\n"),
	post("vap team binding", vapbs, "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: needs-team\nspec:\n"+
		"  policyName: needs-team\n  validationActions: [Deny]\n  matchResources:\n    namespaceSelector: {matchLabels: {env: prod}}\n"),

	// JSONPatch: cap the replicas of Deployments, and annotate them.
	post("policy cap", maps, policy("cap", rule("apps", "deployments", "CREATE, UPDATE")+
		"  mutations:\n  - patchType: JSONPatch\n    jsonPatch:\n"+
		"      expression: \"object.spec.replicas > 3 ? [JSONPatch{op: 'replace', path: '/spec/replicas', value: 3}] : []\"\n"+
		"  - patchType: JSONPatch\n    jsonPatch:\n"+
		"      expression: \"[JSONPatch{op: 'add', path: '/metadata/annotations', value: {'capped': string(object.spec.replicas)}}]\"\n")),
	post("binding cap", mapbs, binding("cap", "cap", "")),

	// Reinvocation: a-first (IfNeeded) reads a label b-second sets. The
	// cluster orders its policies as a map does (at random), so only
	// IfNeeded, which ends the same in either order, is recorded.
	post("policy a-first", maps, policy("a-first", rule("", "secrets", "CREATE")+"  reinvocationPolicy: IfNeeded\n"+
		"  mutations:\n  - patchType: ApplyConfiguration\n    applyConfiguration:\n"+
		"      expression: \"Object{metadata: Object.metadata{annotations: {'a': has(object.metadata.labels) && 'b' in object.metadata.labels ? 'after-b' : 'before-b'}}}\"\n")),
	post("binding a-first", mapbs, binding("a-first", "a-first", "")),
	post("policy b-second", maps, policy("b-second", rule("", "secrets", "CREATE")+
		"  mutations:\n  - patchType: ApplyConfiguration\n    applyConfiguration:\n"+
		"      expression: \"Object{metadata: Object.metadata{labels: {'b': 'set'}}}\"\n")),
	post("binding b-second", mapbs, binding("b-second", "b-second", "")),
	// failurePolicy: an error of evaluation refuses a Service (Fail),
	// and is ignored for a ConfigMap in map-dev (Ignore).
	post("policy fails", maps, policy("fails", rule("", "services", "CREATE")+"  failurePolicy: Fail\n"+
		"  mutations:\n  - patchType: ApplyConfiguration\n    applyConfiguration:\n"+
		"      expression: \"Object{metadata: Object.metadata{labels: {'x': string(object.spec.nope)}}}\"\n")),
	post("binding fails", mapbs, binding("fails", "fails", "")),
	post("policy ignored", maps, policy("ignored", rule("", "configmaps", "CREATE")+"  failurePolicy: Ignore\n"+
		"  matchConditions:\n  - name: dev\n    expression: \"object.metadata.namespace == 'map-dev'\"\n"+
		"  mutations:\n  - patchType: JSONPatch\n    jsonPatch:\n"+
		"      expression: \"[JSONPatch{op: 'replace', path: '/data/missing', value: string(object.data.nope)}]\"\n")),
	post("binding ignored", mapbs, binding("ignored", "ignored", "")),

	// The scale subresource: its Scale is mutated by a JSONPatch; an
	// ApplyConfiguration of a Scale (replicas 2 only) fails, as the
	// cluster has no type of it.
	post("policy scale", maps, policy("scale", rule("apps", "deployments/scale", "UPDATE")+
		"  mutations:\n  - patchType: JSONPatch\n    jsonPatch:\n"+
		"      expression: \"object.spec.replicas > 4 ? [JSONPatch{op: 'replace', path: '/spec/replicas', value: 4}] : []\"\n")),
	post("binding scale", mapbs, binding("scale", "scale", "")),
	post("policy scale apply", maps, policy("scale-apply", rule("apps", "deployments/scale", "UPDATE")+
		"  matchConditions:\n  - name: two\n    expression: \"object.spec.replicas == 2\"\n"+
		"  mutations:\n  - patchType: ApplyConfiguration\n    applyConfiguration:\n"+
		"      expression: \"Object{spec: Object.spec{replicas: 3}}\"\n")),
	post("binding scale apply", mapbs, binding("scale-apply", "scale-apply", "")),
	// matchPolicy Equivalent: a policy of autoscaling/v1 HPAs mutates
	// one written through autoscaling/v2, converted there and back.
	post("policy hpa", maps, policy("hpa", rule("autoscaling", "horizontalpodautoscalers", "CREATE")+
		"  mutations:\n  - patchType: ApplyConfiguration\n    applyConfiguration:\n"+
		"      expression: \"Object{metadata: Object.metadata{annotations: {'seen-as': object.apiVersion}}, spec: Object.spec{targetCPUUtilizationPercentage: 50}}\"\n")),
	post("binding hpa", mapbs, binding("hpa", "hpa", "")),
}

var writes = []step{
	post("configmap in prod", prodCMs, configMap("map-prod", "c1", "")),
	post("configmap in prod labelled", prodCMs, configMap("map-prod", "c2", "\n  labels:\n    team: red")),
	post("configmap in prod dry run", prodCMs+"?dryRun=All", configMap("map-prod", "c3", "")),
	post("configmap in dev", devCMs, configMap("map-dev", "c1", "")),
	patch("configmap in prod: drop the label", prodCMs+"/c1", `{"metadata":{"labels":{"team":null}}}`),
	{Name: "configmap in prod applied", Method: "PATCH", Path: prodCMs + "/c4?fieldManager=applier", ContentType: "application/apply-patch+yaml",
		Body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c4\n  namespace: map-prod\ndata:\n  b: \"2\"\n"},
	post("deployment of 5", deploys, deployment("five", "5")),
	post("deployment of 2", deploys, deployment("two", "2")),
	patch("deployment scaled to 7", deploys+"/two", `{"spec":{"replicas":7}}`),
	post("secret", secrets, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: map-dev\n"),
	post("service", services, "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  namespace: map-dev\nspec:\n  ports:\n  - port: 80\n"),
	patch("deployment scaled to 9 through its scale", deploys+"/two/scale", `{"spec":{"replicas":9}}`),
	patch("deployment scaled to 2 through its scale", deploys+"/two/scale", `{"spec":{"replicas":2}}`),
	post("hpa through v2", "/apis/autoscaling/v2/namespaces/map-dev/horizontalpodautoscalers",
		"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\n  namespace: map-dev\nspec:\n"+
			"  scaleTargetRef: {kind: Deployment, name: two, apiVersion: apps/v1}\n  maxReplicas: 5\n"),
	del("delete binding team", mapbs+"/team"),
}

var unbound = []step{
	post("configmap in prod unbound", prodCMs, configMap("map-prod", "c5", "")),
}

func main() {
	var out []step
	run := func(steps []step) {
		for _, s := range steps {
			recorder.Do(&s)
			log.Printf("%s: %d %s", s.Name, s.Code, s.Answer)
			out = append(out, s)
		}
	}
	run(setup)
	// The server applies a policy once its informers have seen it and
	// its policy source has compiled it: wait for the last ones.
	probe := post("probe", secrets+"?dryRun=All", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: probe\n  namespace: map-dev\n")
	probe2 := post("probe", prodCMs+"?dryRun=All", configMap("map-prod", "probe", ""))
	for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		recorder.Do(&probe)
		recorder.Do(&probe2)
		if strings.Contains(string(probe.Answer), "after-b") && strings.Contains(string(probe2.Answer), "blue") {
			break
		}
		if time.Since(start) > time.Minute {
			log.Fatalf("the policies are not applied after a minute: %d %s\n%d %s", probe.Code, probe.Answer, probe2.Code, probe2.Answer)
		}
	}
	time.Sleep(3 * time.Second)
	run(writes)
	time.Sleep(3 * time.Second) // the deletion of the binding reaches the policy source
	run(unbound)
	recorder.Write("testdata/reference/mutating.json", out)
}
