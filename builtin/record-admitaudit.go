//go:build ignore

// Command record-admitaudit records what a kube-apiserver answers, and
// what its audit log holds, for writes under ValidatingAdmissionPolicies
// with auditAnnotations and the Audit action, and for evictions and
// bindings under policies that match them; and the managedFields of a
// PodDisruptionBudget an eviction takes a disruption from. From builtin/,
// with the reference of ../shared/reference running with the audit policy
// testdata/reference/admitaudit-policy.yaml (every anonymous request at
// Metadata level) and a log:
//
//	API_EXTRA_FLAGS="--audit-policy-file=$PWD/testdata/reference/admitaudit-policy.yaml --audit-log-path=/tmp/audit.log" \
//	  WARM_RESTART=0 ../../shared/reference/start-reference.sh
//	API=https://127.0.0.1:6443 AUDIT_LOG=/tmp/audit.log go run record-admitaudit.go
//
// It writes testdata/reference/admitaudit.json, the requests and
// answers, and admitaudit-audit.json, the audit events of those
// requests (user agent "recorded") at stage ResponseComplete, in the
// order of the requests; TestRecordedAdmitAudit replays both.
package main

import (
	"bufio"
	"encoding/json"
	"log"
	"os"
	"strings"
	"time"

	"github.com/apisem/apisem/internal/recorder"
)

type step = recorder.Step

var (
	post  = recorder.Post
	patch = recorder.Patch
	get   = recorder.Get
	del   = recorder.Delete
)

const (
	vaps     = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
	ns       = "/api/v1/namespaces/admit-audit"
	cms      = ns + "/configmaps"
	pods     = ns + "/pods"
	pdbs     = "/apis/policy/v1/namespaces/admit-audit/poddisruptionbudgets"
)

func pod(name, labels string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: admit-audit\n" + labels +
		"spec:\n  automountServiceAccountToken: false\n  containers:\n  - name: c\n    image: nginx\n"
}

func eviction(version, name string) string {
	return `{"apiVersion":"policy/` + version + `","kind":"Eviction","metadata":{"name":"` + name + `","namespace":"admit-audit"}}`
}

func binding(name, node string) string {
	return `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"` + name + `","namespace":"admit-audit"},"target":{"kind":"Node","name":"` + node + `"}}`
}

func jsonPost(name, path, body string) step {
	return step{Name: name, Method: "POST", Path: path, ContentType: "application/json", Body: body}
}

var setup = []step{
	post("namespace", "/api/v1/namespaces", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: admit-audit\n"),
	// auditAnnotations and the Audit action: one binding audits every
	// ConfigMap, one denies (and audits) those labelled deny.
	post("policy annotate", vaps, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: annotate
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  validations:
  - expression: "object.data.x == 'ok'"
    message: "x must be ok"
  - expression: "!has(object.data.y)"
    messageExpression: "'no y in ' + object.metadata.name"
  auditAnnotations:
  - key: x
    valueExpression: "'x is ' + object.data.x"
  - key: name
    valueExpression: "string(object.metadata.name)"
`),
	post("binding annotate audit", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: annotate-audit
spec:
  policyName: annotate
  validationActions: ["Audit"]
`),
	post("binding annotate deny", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: annotate-deny
spec:
  policyName: annotate
  validationActions: ["Deny", "Audit"]
  matchResources:
    objectSelector:
      matchLabels:
        deny: "yes"
`),
	// Evictions and bindings: what the policies see of them.
	post("policy evictions", vaps, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: evictions
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods/eviction"]
  matchConditions:
  - name: denied
    expression: "object.metadata.name.startsWith('denied')"
  validations:
  - expression: "false"
    messageExpression: "object.apiVersion + ' ' + object.kind + ' ' + object.metadata.name + ' of ' + request.kind.group + '/' + request.kind.version + '/' + request.kind.kind + ' ' + request.resource.resource + '/' + request.subResource + ' ' + request.operation + ' ' + string(oldObject == null) + ' ' + request.namespace + '/' + request.name"
    reason: Forbidden
  auditAnnotations:
  - key: evicted
    valueExpression: "string(object.metadata.name)"
`),
	post("binding evictions", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: evictions
spec:
  policyName: evictions
  validationActions: ["Deny"]
`),
	post("policy bindings", vaps, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: bindings
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["bindings", "pods/binding"]
  validations:
  - expression: "object.target.name != 'bad-node'"
    messageExpression: "object.apiVersion + ' ' + object.kind + ' ' + object.metadata.name + ' of ' + request.kind.group + '/' + request.kind.version + '/' + request.kind.kind + ' ' + request.resource.resource + '/' + request.subResource + ' ' + request.operation + ' ' + request.namespace + '/' + request.name"
`),
	post("binding bindings", bindings, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: bindings
spec:
  policyName: bindings
  validationActions: ["Deny"]
`),
	post("service account", ns+"/serviceaccounts", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: default\n  namespace: admit-audit\n"),
	post("pod denied", pods, pod("denied", "")),
	post("pod evicted", pods, pod("evicted", "")),
	post("pod bound", pods, pod("bound", "")),
	post("pod bound legacy", pods, pod("bound-legacy", "")),
	post("pod budgeted", pods, pod("budgeted", "  labels:\n    app: budgeted\n")),
	{Name: "pod budgeted running", Method: "PATCH", Path: pods + "/budgeted/status?fieldManager=test", ContentType: "application/merge-patch+json",
		Body: `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`},
	// A namespace that stays Terminating (no controller empties it),
	// with a Pod to evict.
	post("namespace terminating", "/api/v1/namespaces", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: admit-audit-gone\n"),
	post("service account terminating", "/api/v1/namespaces/admit-audit-gone/serviceaccounts", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: default\n  namespace: admit-audit-gone\n"),
	post("pod terminating", "/api/v1/namespaces/admit-audit-gone/pods", strings.ReplaceAll(pod("stays", ""), "admit-audit", "admit-audit-gone")),
	del("delete namespace terminating", "/api/v1/namespaces/admit-audit-gone"),
	post("budget", pdbs, "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: budget\n  namespace: admit-audit\nspec:\n  minAvailable: 0\n  selector:\n    matchLabels:\n      app: budgeted\n"),
	{Name: "budget status", Method: "PATCH", Path: pdbs + "/budget/status?fieldManager=test", ContentType: "application/merge-patch+json",
		Body: `{"status":{"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":1,"desiredHealthy":0,"expectedPods":1}}`},
}

var writes = []step{
	post("configmap passes", cms, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: passes\ndata:\n  x: ok\n"),
	post("configmap audited", cms, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: audited\ndata:\n  x: bad\n  y: \"1\"\n  z: zed\n"),
	post("configmap denied", cms, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: denied\n  labels:\n    deny: \"yes\"\ndata:\n  x: bad\n"),
	jsonPost("eviction denied", pods+"/denied/eviction", eviction("v1", "denied")),
	jsonPost("eviction v1beta1 denied", pods+"/denied/eviction", eviction("v1beta1", "denied")),
	jsonPost("eviction dry run", pods+"/evicted/eviction?dryRun=All", eviction("v1", "evicted")),
	jsonPost("eviction", pods+"/evicted/eviction", eviction("v1", "evicted")),
	jsonPost("binding denied", pods+"/bound/binding", binding("bound", "bad-node")),
	jsonPost("binding", pods+"/bound/binding", binding("bound", "node-1")),
	jsonPost("legacy binding denied", ns+"/bindings", binding("bound-legacy", "bad-node")),
	jsonPost("legacy binding", ns+"/bindings", binding("bound-legacy", "node-1")),
	jsonPost("eviction ignoring store read errors", pods+"/evicted/eviction",
		`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"evicted"},"deleteOptions":{"ignoreStoreReadErrorWithClusterBreakingPotential":true}}`),
	jsonPost("eviction in another namespace", pods+"/evicted/eviction",
		`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"evicted","namespace":"elsewhere"}}`),
	jsonPost("eviction in a terminating namespace", "/api/v1/namespaces/admit-audit-gone/pods/stays/eviction",
		`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"stays"}}`),
	jsonPost("eviction with a budget", pods+"/budgeted/eviction", eviction("v1", "budgeted")),
	get("budget after the eviction", pdbs+"/budget"),
}

var out []step

func run(steps []step) {
	for _, s := range steps {
		recorder.Do(&s)
		log.Printf("%s: %d", s.Name, s.Code)
		if s.Code >= 400 {
			log.Printf("  %s", s.Answer)
		}
		out = append(out, s)
	}
}

func main() {
	logPath := os.Getenv("AUDIT_LOG")
	if logPath == "" {
		log.Fatal("AUDIT_LOG is not set: it is the reference's --audit-log-path")
	}
	run(setup)
	// The policies apply once the policy source has them.
	probe := jsonPost("probe", pods+"/denied/eviction?dryRun=All", eviction("v1", "denied"))
	for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		recorder.Do(&probe)
		if probe.Code == 403 {
			break
		}
		if time.Since(start) > time.Minute {
			log.Fatalf("the policies are not enforced after a minute: %d %s", probe.Code, probe.Answer)
		}
	}
	time.Sleep(2 * time.Second)
	start := len(out)
	run(writes)
	recorder.Write("testdata/reference/admitaudit.json", out)

	time.Sleep(2 * time.Second) // the last lines reach the log
	f, err := os.Open(logPath)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var events []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, `"userAgent":"recorded"`) && strings.Contains(line, `"stage":"ResponseComplete"`) {
			events = append(events, json.RawMessage(line))
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	// The events of the writes, the probes' left out.
	n := len(events) - (len(out) - start)
	if n < 0 {
		log.Fatalf("%d events for %d writes", len(events), len(out)-start)
	}
	recorder.Write("testdata/reference/admitaudit-audit.json", events[n:])
}
