//go:build ignore

// Command record-mutating records what a kube-apiserver answers writes of
// a custom resource under MutatingAdmissionPolicies: it creates the
// definition of testdata/mutating-crds (not recorded: apisemtest.Start
// installs it), then policies that merge an ApplyConfiguration into the
// resource's list keyed by name and add to it by a JSONPatch, waits
// until the server applies them, and sends creates, an update, a merge
// patch, a server-side apply and a dry run. From apisemtest/, with the
// reference of ../shared/reference running:
//
//	API=https://127.0.0.1:6443 go run record-mutating.go
//
// It writes testdata/reference/mutating-crd.json, which
// TestRecordedMutatingCustomResource replays.
package main

import (
	"log"
	"os"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/internal/recorder"
)

type step = recorder.Step

const (
	crds    = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	maps    = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies"
	mapbs   = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings"
	gadgets = "/apis/example.com/v1/namespaces/default/gadgets"
)

func policy(name, mutation string) string {
	return "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata:\n  name: " + name + "\nspec:\n" +
		"  matchConstraints:\n    resourceRules:\n    - {apiGroups: [example.com], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [gadgets]}\n" +
		"  reinvocationPolicy: Never\n  mutations:\n" + mutation
}

func binding(name string) string {
	return "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata:\n  name: " + name + "\nspec:\n  policyName: " + name + "\n"
}

func gadget(name, spec string) string {
	return "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: " + name + "\n  namespace: default\nspec:\n" + spec
}

var setup = []step{
	// An ApplyConfiguration merges a port into the list keyed by name
	// (replacing the port of one of that name), and labels the gadget.
	recorder.Post("policy metrics", maps, policy("metrics",
		"  - patchType: ApplyConfiguration\n    applyConfiguration:\n"+
			"      expression: \"Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}, spec: Object.spec{ports: [Object.spec.ports{name: 'metrics', port: 9090}]}}\"\n")),
	recorder.Post("binding metrics", mapbs, binding("metrics")),
	// A JSONPatch appends a tag to an atomic list.
	recorder.Post("policy tags", maps, policy("tags",
		"  - patchType: JSONPatch\n    jsonPatch:\n"+
			"      expression: \"has(object.spec.tags) ? [JSONPatch{op: 'add', path: '/spec/tags/-', value: 'seen'}] : [JSONPatch{op: 'add', path: '/spec/tags', value: ['seen']}]\"\n")),
	recorder.Post("binding tags", mapbs, binding("tags")),
}

var writes = []step{
	recorder.Post("gadget with a port", gadgets, gadget("g1", "  size: 1\n  ports:\n  - {name: http, port: 80}\n")),
	recorder.Post("gadget with the port", gadgets, gadget("g2", "  tags: [a]\n  ports:\n  - {name: metrics, port: 1}\n  - {name: http, port: 80}\n")),
	recorder.Post("gadget without ports", gadgets+"?dryRun=All", gadget("g3", "  size: 3\n")),
	recorder.Patch("gadget patched", gadgets+"/g1", `{"spec":{"size":2,"tags":null}}`),
	{Name: "gadget applied", Method: "PATCH", Path: gadgets + "/g4?fieldManager=applier", ContentType: "application/apply-patch+yaml",
		Body: gadget("g4", "  size: 4\n  ports:\n  - {name: admin, port: 8080}\n")},
	{Name: "gadget applied again", Method: "PATCH", Path: gadgets + "/g4?fieldManager=applier", ContentType: "application/apply-patch+yaml",
		Body: gadget("g4", "  size: 5\n")},
}

func main() {
	b, err := os.ReadFile("testdata/mutating-crds/gadgets.yaml")
	if err != nil {
		log.Fatal(err)
	}
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		log.Fatal(err)
	}
	crd := step{Name: "crd", Method: "POST", Path: crds, ContentType: "application/json", Body: string(j)}
	recorder.Do(&crd)
	log.Printf("crd: %d", crd.Code)

	var out []step
	run := func(steps []step) {
		for _, s := range steps {
			recorder.Do(&s)
			log.Printf("%s: %d %s", s.Name, s.Code, s.Answer)
			out = append(out, s)
		}
	}
	// The definition is served once Established.
	for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		probe := recorder.Get("probe", gadgets)
		recorder.Do(&probe)
		if probe.Code == 200 {
			break
		}
		if time.Since(start) > time.Minute {
			log.Fatalf("gadgets are not served after a minute: %d %s", probe.Code, probe.Answer)
		}
	}
	run(setup)
	// The plugin types the resource by its /openapi/v3, refreshed every
	// few seconds: wait until both policies apply.
	for start := time.Now(); ; time.Sleep(500 * time.Millisecond) {
		probe := recorder.Post("probe", gadgets+"?dryRun=All", gadget("probe", "  ports:\n  - {name: http, port: 80}\n"))
		recorder.Do(&probe)
		if probe.Code == 201 && strings.Contains(string(probe.Answer), "9090") && strings.Contains(string(probe.Answer), "seen") {
			break
		}
		if time.Since(start) > 2*time.Minute {
			log.Fatalf("the policies are not applied after two minutes: %d %s", probe.Code, probe.Answer)
		}
	}
	time.Sleep(2 * time.Second)
	run(writes)
	recorder.Write("testdata/reference/mutating-crd.json", out)
}
