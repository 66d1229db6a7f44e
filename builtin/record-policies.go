//go:build ignore

// Command record-policies records what a kube-apiserver answers writes
// under ValidatingAdmissionPolicies: it creates namespaces, a parameter
// ConfigMap, policies and their bindings (Deny, Warn and Audit, a
// namespaceSelector, a parameter, messageExpression, a reason, a
// subresource, a deletion, failurePolicy), waits until the server
// enforces them, then sends writes that pass and fail. From builtin/,
// with the reference of ../shared/reference running:
//
//	API=https://127.0.0.1:6443 go run record-policies.go
//
// It writes testdata/reference/policies.json, which
// TestRecordedPolicies replays in order, and policy-cases.json, the
// cases of TestPolicyCases one after the other, which
// TestRecordedPolicyCases replays.
package main

import (
	"encoding/json"
	"log"
	"strings"
	"time"

	"github.com/apisem/apisem/internal/recorder"
)

// The steps, their requests and the file written are package recorder's.
type step = recorder.Step

var (
	do    = recorder.Do
	post  = recorder.Post
	patch = recorder.Patch
	del   = recorder.Delete
)

func deployment(ns, name string, replicas int, labels string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
  namespace: ` + ns + labels + `
spec:
  replicas: ` + itoa(replicas) + `
  selector:
    matchLabels:
      app: x
  template:
    metadata:
      labels:
        app: x
    spec:
      containers:
      - name: c
        image: nginx
`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func configMap(ns, name, data string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: " + ns + "\ndata:\n" + data
}

const (
	vaps     = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
)

// setup creates what the writes are checked against.
var setup = []step{
	post("namespace prod", "/api/v1/namespaces", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: vap-prod\n  labels:\n    env: prod\n"),
	post("namespace dev", "/api/v1/namespaces", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: vap-dev\n  labels:\n    env: dev\n"),
	post("parameters", "/api/v1/namespaces/vap-prod/configmaps", configMap("vap-prod", "limits", "  maxReplicas: \"3\"\n")),
	post("configmap to keep", "/api/v1/namespaces/vap-prod/configmaps", configMap("vap-prod", "keep", "  a: \"1\"\n")),
	post("deployment to scale", "/apis/apps/v1/namespaces/vap-dev/deployments", deployment("vap-dev", "scaled", 1, "")),

	// Deny in namespaces labelled env=prod: variables, a matchCondition,
	// excludeResourceRules, a message, a messageExpression with a reason,
	// an audit annotation.
	post("policy replicas", vaps, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replicas
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
    excludeResourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
      resourceNames: ["excluded"]
  matchConditions:
  - name: not-skipped
    expression: "object.metadata.?annotations['skip'].orValue('') != 'true'"
  variables:
  - name: replicas
    expression: "object.spec.replicas"
  validations:
  - expression: "variables.replicas <= 5"
    message: "at most 5 replicas"
  - expression: "!('forbidden' in object.metadata.?labels.orValue({}))"
    messageExpression: "'the label forbidden is not allowed on ' + object.metadata.name"
    reason: Forbidden
  auditAnnotations:
  - key: replicas
    valueExpression: "string(variables.replicas)"
`),
	post("binding replicas", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replicas-prod
spec:
  policyName: replicas
  validationActions: ["Deny"]
  matchResources:
    namespaceSelector:
      matchLabels:
        env: prod
`),
	// Warn and Audit on ConfigMaps, but those labelled vap-skip.
	post("policy secrets", vaps, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-secrets
spec:
  matchConstraints:
    objectSelector:
      matchExpressions:
      - key: vap-skip
        operator: DoesNotExist
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["configmaps"]
  validations:
  - expression: "!('password' in object.?data.orValue({}))"
    message: "a ConfigMap should not hold a password"
`),
	post("binding secrets", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-secrets-warn
spec:
  policyName: no-secrets
  validationActions: ["Warn", "Audit"]
`),
	// A parameter: the limit of replicas from a ConfigMap, in both
	// namespaces; in dev it names a ConfigMap that does not exist.
	post("policy limit", vaps, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: limit
spec:
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= int(params.data.maxReplicas)"
    messageExpression: "'at most ' + params.data.maxReplicas + ' replicas in ' + namespaceObject.metadata.name"
`),
	post("binding limit prod", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: limit-prod
spec:
  policyName: limit
  validationActions: ["Deny"]
  paramRef:
    name: limits
    namespace: vap-prod
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchLabels:
        env: prod
    objectSelector:
      matchLabels:
        limited: "yes"
`),
	post("binding limit dev", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: limit-dev
spec:
  policyName: limit
  validationActions: ["Deny"]
  paramRef:
    name: missing
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchLabels:
        env: dev
    objectSelector:
      matchLabels:
        limited: "yes"
`),
	// The scale subresource: the object is the Scale.
	post("policy scale", vaps, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: scale
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["UPDATE"]
      resources: ["deployments/scale"]
  validations:
  - expression: "object.kind == 'Scale' && object.spec.replicas <= 2"
    messageExpression: "object.kind + ' ' + object.metadata.name + ' to ' + string(object.spec.replicas) + ' by ' + request.subResource"
`),
	post("binding scale", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: scale
spec:
  policyName: scale
  validationActions: ["Deny"]
`),
	// Deletions: oldObject.
	post("policy keep", vaps, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: keep
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["DELETE"]
      resources: ["configmaps"]
  validations:
  - expression: "oldObject.metadata.name != 'keep' && object == null"
    message: "keep stays"
`),
	post("binding keep", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: keep
spec:
  policyName: keep
  validationActions: ["Deny"]
`),
	// Errors of evaluation: failurePolicy Fail and Ignore on Secrets.
	post("policy fail", vaps, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: fail
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["secrets"]
  validations:
  - expression: "object.data.token == 'dG9rZW4='"
    message: "not the token"
`),
	post("binding fail", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: fail
spec:
  policyName: fail
  validationActions: ["Deny"]
  matchResources:
    namespaceSelector:
      matchLabels:
        env: prod
`),
	post("policy ignore", vaps, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ignore
spec:
  failurePolicy: Ignore
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["secrets"]
  validations:
  - expression: "object.data.other == 'eA=='"
`),
	post("binding ignore", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ignore
spec:
  policyName: ignore
  validationActions: ["Deny"]
`),
	// A policy without a binding does nothing.
	post("policy unbound", vaps, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: unbound
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["*"]
      resources: ["*"]
  validations:
  - expression: "false"
`),
}

// writes are checked by the policies.
var writes = []step{
	post("deployment of 5 in prod", "/apis/apps/v1/namespaces/vap-prod/deployments", deployment("vap-prod", "five", 5, "")),
	post("deployment of 6 in prod", "/apis/apps/v1/namespaces/vap-prod/deployments", deployment("vap-prod", "six", 6, "")),
	post("deployment of 2 in prod", "/apis/apps/v1/namespaces/vap-prod/deployments", deployment("vap-prod", "two", 2, "")),
	patch("deployment of 2 in prod to 4", "/apis/apps/v1/namespaces/vap-prod/deployments/two", `{"spec":{"replicas":4}}`),
	patch("deployment of 2 in prod to 6", "/apis/apps/v1/namespaces/vap-prod/deployments/two", `{"spec":{"replicas":6}}`),
	patch("deployment of 2 in prod labelled forbidden", "/apis/apps/v1/namespaces/vap-prod/deployments/two", `{"metadata":{"labels":{"forbidden":"x"}}}`),
	post("deployment of 2 in prod limited", "/apis/apps/v1/namespaces/vap-prod/deployments", deployment("vap-prod", "limited-two", 2, "\n  labels:\n    limited: \"yes\"")),
	post("deployment of 4 in prod limited", "/apis/apps/v1/namespaces/vap-prod/deployments", deployment("vap-prod", "limited-four", 4, "\n  labels:\n    limited: \"yes\"")),
	patch("deployment of 2 in prod limited to 3", "/apis/apps/v1/namespaces/vap-prod/deployments/limited-two", `{"spec":{"replicas":3}}`),
	patch("deployment of 3 in prod limited to 4", "/apis/apps/v1/namespaces/vap-prod/deployments/limited-two", `{"spec":{"replicas":4}}`),
	post("deployment of 9 in prod excluded", "/apis/apps/v1/namespaces/vap-prod/deployments", deployment("vap-prod", "excluded", 9, "")),
	post("deployment of 9 in prod skipped", "/apis/apps/v1/namespaces/vap-prod/deployments", deployment("vap-prod", "skipped", 9, "\n  annotations:\n    skip: \"true\"")),
	post("deployment of 9 in dev", "/apis/apps/v1/namespaces/vap-dev/deployments", deployment("vap-dev", "nine", 9, "")),
	post("deployment of 1 in dev limited", "/apis/apps/v1/namespaces/vap-dev/deployments", deployment("vap-dev", "limited", 1, "\n  labels:\n    limited: \"yes\"")),
	post("deployment of 7 in prod, dry run", "/apis/apps/v1/namespaces/vap-prod/deployments?dryRun=All", deployment("vap-prod", "dry", 7, "")),
	post("configmap with a password", "/api/v1/namespaces/vap-dev/configmaps", configMap("vap-dev", "pw", "  password: \"x\"\n")),
	post("configmap with a password, skipped", "/api/v1/namespaces/vap-dev/configmaps", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pw2\n  namespace: vap-dev\n  labels:\n    vap-skip: \"1\"\ndata:\n  password: \"x\"\n"),
	patch("configmap given a password", "/api/v1/namespaces/vap-prod/configmaps/keep", `{"data":{"password":"y"}}`),
	patch("scale to 2", "/apis/apps/v1/namespaces/vap-dev/deployments/scaled/scale", `{"spec":{"replicas":2}}`),
	patch("scale to 3", "/apis/apps/v1/namespaces/vap-dev/deployments/scaled/scale", `{"spec":{"replicas":3}}`),
	patch("deployment to 3 without scale", "/apis/apps/v1/namespaces/vap-dev/deployments/scaled", `{"spec":{"replicas":3}}`),
	{Name: "delete keep", Method: "DELETE", Path: "/api/v1/namespaces/vap-prod/configmaps/keep"},
	{Name: "delete pw", Method: "DELETE", Path: "/api/v1/namespaces/vap-dev/configmaps/pw"},
	post("secret with the token in prod", "/api/v1/namespaces/vap-prod/secrets", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: t1\n  namespace: vap-prod\ndata:\n  token: dG9rZW4=\n"),
	post("secret without the token in prod", "/api/v1/namespaces/vap-prod/secrets", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: t2\n  namespace: vap-prod\ndata:\n  other: eA==\n"),
	post("secret without the token in dev", "/api/v1/namespaces/vap-dev/secrets", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: t3\n  namespace: vap-dev\ndata:\n  other: eA==\n"),
	post("secret with the token in dev", "/api/v1/namespaces/vap-dev/secrets", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: t4\n  namespace: vap-dev\ndata:\n  token: dG9rZW4=\n"),
	post("secret with another value in dev", "/api/v1/namespaces/vap-dev/secrets", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: t5\n  namespace: vap-dev\ndata:\n  other: eQ==\n"),
	{Name: "policy replicas read", Method: "GET", Path: vaps + "/replicas"},
	{Name: "delete binding replicas", Method: "DELETE", Path: bindings + "/replicas-prod"},
}

// unbound are the writes after the binding of replicas is deleted.
var unbound = []step{
	post("deployment of 6 in prod unbound", "/apis/apps/v1/namespaces/vap-prod/deployments", deployment("vap-prod", "six", 6, "")),
}

func main() {
	var out []step
	run := func(steps []step) {
		for _, s := range steps {
			do(&s)
			log.Printf("%s: %d %s", s.Name, s.Code, s.Answer)
			out = append(out, s)
		}
	}
	run(setup)
	// The server enforces a policy once its informers have seen it and
	// its policy source has compiled it: wait for the last one.
	probe := post("probe", "/api/v1/namespaces/vap-prod/secrets?dryRun=All", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: probe\n  namespace: vap-prod\n")
	for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		do(&probe)
		if probe.Code == 422 && strings.Contains(string(probe.Answer), "'fail'") {
			break
		}
		if time.Since(start) > time.Minute {
			log.Fatalf("the policies are not enforced after a minute: %d %s", probe.Code, probe.Answer)
		}
	}
	time.Sleep(2 * time.Second)
	run(writes)
	time.Sleep(3 * time.Second) // the deletion of the binding reaches the policy source
	run(unbound)
	recorder.Write("testdata/reference/policies.json", out)

	// The cases of TestPolicyCases, one after the other: each creates
	// policy p and binding b, waits for them, writes, and deletes what
	// it made.
	out = nil
	for _, c := range cases {
		run(c.setup)
		time.Sleep(2500 * time.Millisecond)
		run([]step{c.write})
		run(c.cleanup)
		time.Sleep(2500 * time.Millisecond)
	}
	recorder.Write("testdata/reference/policy-cases.json", out)
}

func vap(spec string) string {
	return "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p\nspec:\n" + spec
}

func vapBinding(spec string) string {
	return "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: b\nspec:\n  policyName: p\n  validationActions: [Deny]\n" + spec
}

type policyCase struct {
	setup   []step
	write   step
	cleanup []step
}

const (
	cms  = "/api/v1/namespaces/default/configmaps"
	hpas = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
)

func hpa(max int) string {
	return "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\n  namespace: default\nspec:\n" +
		"  scaleTargetRef: {kind: Deployment, name: d, apiVersion: apps/v1}\n  maxReplicas: " + itoa(max) + "\n"
}

func hpaPolicy(matchPolicy string) string {
	return vap("  matchConstraints:\n    matchPolicy: " + matchPolicy + "\n    resourceRules:\n" +
		"    - {apiGroups: [autoscaling], apiVersions: [v2], operations: [CREATE], resources: [horizontalpodautoscalers]}\n" +
		"  validations:\n  - expression: \"object.apiVersion == 'autoscaling/v2' && object.spec.maxReplicas <= 5\"\n")
}

// policyCase makes a case of policy and binding specs, with the cleanup
// of them and of the object written.
func pcase(name, policy, binding string, extra []step, w step, objects ...string) policyCase {
	c := policyCase{
		setup: append(extra, post(name+": policy", vaps, policy), post(name+": binding", bindings, binding)),
		write: w,
	}
	c.write.Name = name
	c.cleanup = []step{del(name+": delete binding", bindings+"/b"), del(name+": delete policy", vaps+"/p")}
	for _, o := range objects {
		c.cleanup = append(c.cleanup, del(name+": delete "+o, o))
	}
	return c
}

var cases = []policyCase{
	pcase("equivalent version", hpaPolicy("Equivalent"), vapBinding(""), nil, post("", hpas, hpa(6)), hpas+"/h"),
	pcase("equivalent version passes", hpaPolicy("Equivalent"), vapBinding(""), nil, post("", hpas, hpa(5)), hpas+"/h"),
	pcase("exact version", hpaPolicy("Exact"), vapBinding(""), nil, post("", hpas, hpa(6)), hpas+"/h"),
	pcase("paramKind not served",
		vap("  paramKind: {apiVersion: example.com/v1, kind: Foo}\n  matchConstraints:\n    resourceRules:\n"+
			"    - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}\n  validations:\n  - expression: \"true\"\n"),
		vapBinding("  paramRef: {name: x, parameterNotFoundAction: Allow}\n"), nil,
		post("", cms, configMap("default", "c", "  a: \"1\"\n")), cms+"/c"),
	pcase("namespaced parameter of a cluster-scoped write",
		vap("  paramKind: {apiVersion: v1, kind: ConfigMap}\n  matchConstraints:\n    resourceRules:\n"+
			"    - {apiGroups: [rbac.authorization.k8s.io], apiVersions: [v1], operations: [CREATE], resources: [clusterroles]}\n"+
			"  validations:\n  - expression: \"true\"\n"),
		vapBinding("  paramRef: {name: x, parameterNotFoundAction: Allow}\n"), nil,
		post("", "/apis/rbac.authorization.k8s.io/v1/clusterroles", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n"),
		"/apis/rbac.authorization.k8s.io/v1/clusterroles/r"),
	pcase("namespace by its labels",
		vap("  matchConstraints:\n    resourceRules:\n    - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [namespaces]}\n"+
			"  validations:\n  - expression: \"false\"\n    message: nope\n"),
		vapBinding("  matchResources:\n    namespaceSelector: {matchLabels: {env: prod}}\n"), nil,
		post("", "/api/v1/namespaces", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-prod\n  labels:\n    env: prod\n"), "/api/v1/namespaces/ns-prod"),
	pcase("parameters by a selector",
		vap("  paramKind: {apiVersion: v1, kind: ConfigMap}\n  matchConstraints:\n    resourceRules:\n"+
			"    - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [secrets]}\n"+
			"  validations:\n  - expression: \"size(object.data) <= int(params.data.max)\"\n"+
			"    messageExpression: \"'at most ' + params.data.max + ' by ' + params.metadata.name + ' of kind ' + params.kind\"\n"),
		vapBinding("  paramRef: {selector: {matchLabels: {limit: \"yes\"}}, parameterNotFoundAction: Deny}\n"),
		[]step{
			post("parameters by a selector: p1", cms, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p1\n  namespace: default\n  labels:\n    limit: \"yes\"\ndata:\n  max: \"3\"\n"),
			post("parameters by a selector: p2", cms, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p2\n  namespace: default\n  labels:\n    limit: \"yes\"\ndata:\n  max: \"1\"\n"),
		},
		post("", "/api/v1/namespaces/default/secrets", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: default\ndata:\n  a: eA==\n  b: eA==\n"),
		"/api/v1/namespaces/default/secrets/s", cms+"/p1", cms+"/p2"),
	{setup: []step{post("binding of no policy: binding", bindings, vapBinding(""))},
		write:   post("binding of no policy", cms, configMap("default", "c", "  a: \"1\"\n")),
		cleanup: []step{del("binding of no policy: delete binding", bindings+"/b"), del("binding of no policy: delete c", cms+"/c")}},
}
