package audit_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apisem/apisem/audit"
	"github.com/apisem/apisem/auth"
)

var (
	alice = auth.User{Name: "alice", Groups: []string{"dev", auth.AllAuthenticated}}
	bob   = auth.User{Name: "bob", Groups: []string{"ops", auth.AllAuthenticated}}
)

func res(u auth.User, verb, group, resource, sub, ns, name string) auth.Attributes {
	return auth.Attributes{User: u, Verb: verb, ResourceRequest: true, Group: group, Version: "v1",
		Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

func nonRes(u auth.User, verb, path string) auth.Attributes {
	return auth.Attributes{User: u, Verb: verb, Path: path}
}

// The matching rules of kube-apiserver's policy checker
// (k8s.io/apiserver/pkg/audit/policy/checker.go), one row each.
func TestPolicyEvaluate(t *testing.T) {
	tests := []struct {
		name string
		rule string // one rule, in YAML flow form
		a    auth.Attributes
		want bool
	}{
		{"no fields match everything", `{level: Metadata}`, nonRes(alice, "get", "/version"), true},
		{"user listed", `{level: Metadata, users: [alice]}`, res(alice, "get", "", "pods", "", "ns", "p"), true},
		{"user not listed", `{level: Metadata, users: [alice]}`, res(bob, "get", "", "pods", "", "ns", "p"), false},
		{"group of the user", `{level: Metadata, userGroups: [ops, x]}`, res(bob, "get", "", "pods", "", "ns", "p"), true},
		{"no group of the user", `{level: Metadata, userGroups: [ops]}`, res(alice, "get", "", "pods", "", "ns", "p"), false},
		{"verb listed", `{level: Metadata, verbs: [watch, list]}`, res(alice, "list", "", "pods", "", "ns", ""), true},
		{"verb not listed", `{level: Metadata, verbs: [watch]}`, res(alice, "list", "", "pods", "", "ns", ""), false},
		{"resource", `{level: Metadata, resources: [{resources: [pods]}]}`, res(alice, "get", "", "pods", "", "ns", "p"), true},
		{"resource of another group", `{level: Metadata, resources: [{group: apps, resources: [pods]}]}`, res(alice, "get", "", "pods", "", "ns", "p"), false},
		{"a subresource needs its name", `{level: Metadata, resources: [{resources: [pods]}]}`, res(alice, "get", "", "pods", "log", "ns", "p"), false},
		{"resource/subresource", `{level: Metadata, resources: [{resources: [pods/log]}]}`, res(alice, "get", "", "pods", "log", "ns", "p"), true},
		{"resource/* has every subresource", `{level: Metadata, resources: [{resources: ["pods/*"]}]}`, res(alice, "get", "", "pods", "exec", "ns", "p"), true},
		// Not in the field's doc, but in the checker's code.
		{"resource/* has the resource too", `{level: Metadata, resources: [{resources: ["pods/*"]}]}`, res(alice, "get", "", "pods", "", "ns", "p"), true},
		{"resource/* is not another resource", `{level: Metadata, resources: [{resources: ["pods/*"]}]}`, res(alice, "get", "", "services", "status", "ns", "p"), false},
		{"*/subresource of any resource", `{level: Metadata, resources: [{group: apps, resources: ["*/scale"]}]}`, res(alice, "update", "apps", "deployments", "scale", "ns", "d"), true},
		{"*/subresource is not another", `{level: Metadata, resources: [{group: apps, resources: ["*/scale"]}]}`, res(alice, "update", "apps", "deployments", "status", "ns", "d"), false},
		{"* has subresources", `{level: Metadata, resources: [{resources: ["*"]}]}`, res(alice, "get", "", "pods", "log", "ns", "p"), true},
		{"a group without resources has all", `{level: Metadata, resources: [{group: apps}]}`, res(alice, "get", "apps", "deployments", "status", "ns", "d"), true},
		{"resourceNames listed", `{level: Metadata, resources: [{resources: [configmaps], resourceNames: [a]}]}`, res(alice, "get", "", "configmaps", "", "ns", "a"), true},
		{"resourceNames not listed", `{level: Metadata, resources: [{resources: [configmaps], resourceNames: [a]}]}`, res(alice, "get", "", "configmaps", "", "ns", "b"), false},
		{"namespace listed", `{level: Metadata, namespaces: [ns]}`, res(alice, "get", "", "pods", "", "ns", "p"), true},
		{"namespace not listed", `{level: Metadata, namespaces: [kube-system]}`, res(alice, "get", "", "pods", "", "ns", "p"), false},
		{`"" is cluster scope`, `{level: Metadata, namespaces: [""]}`, res(alice, "get", "", "nodes", "", "", "n"), true},
		{"resources never match a non-resource URL", `{level: Metadata, resources: [{resources: ["*"]}]}`, nonRes(alice, "get", "/version"), false},
		{"non-resource URL exactly", `{level: Metadata, nonResourceURLs: [/version]}`, nonRes(alice, "get", "/version"), true},
		{"non-resource URL prefix*", `{level: Metadata, nonResourceURLs: ["/healthz*"]}`, nonRes(alice, "get", "/healthz/etcd"), true},
		{"non-resource URL *", `{level: Metadata, nonResourceURLs: ["*"]}`, nonRes(alice, "get", "/openapi/v2"), true},
		{"non-resource URL other", `{level: Metadata, nonResourceURLs: ["/healthz"]}`, nonRes(alice, "get", "/healthz/etcd"), false},
		{"non-resource URLs never match a resource", `{level: Metadata, nonResourceURLs: ["*"]}`, res(alice, "get", "", "pods", "", "ns", "p"), false},
	}
	for _, tc := range tests {
		p, err := audit.ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [" + tc.rule + "]"))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := p.Evaluate(tc.a).Level == audit.LevelMetadata
		if got != tc.want {
			t.Errorf("%s: rule %s matches %+v: %v, want %v", tc.name, tc.rule, tc.a, got, tc.want)
		}
	}
}

// The first matching rule decides; omitStages are the union of the
// policy's and the rule's; a rule's omitManagedFields overrides the
// policy's.
func TestPolicyFirstMatchAndStages(t *testing.T) {
	p, err := audit.ParsePolicy([]byte(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
omitManagedFields: true
rules:
- level: None
  users: [bob]
- level: RequestResponse
  verbs: [get]
  omitStages: [ResponseStarted]
  omitManagedFields: false
- level: Metadata
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a           auth.Attributes
		level       audit.Level
		omitted     []audit.Stage
		omitManaged bool
	}{
		{res(bob, "get", "", "pods", "", "ns", "p"), audit.LevelNone, []audit.Stage{audit.StageRequestReceived}, true},
		{res(alice, "get", "", "pods", "", "ns", "p"), audit.LevelRequestResponse, []audit.Stage{audit.StageRequestReceived, audit.StageResponseStarted}, false},
		{res(alice, "list", "", "pods", "", "ns", ""), audit.LevelMetadata, []audit.Stage{audit.StageRequestReceived}, true},
	} {
		c := p.Evaluate(tc.a)
		var omitted []audit.Stage
		for _, s := range []audit.Stage{audit.StageRequestReceived, audit.StageResponseStarted, audit.StageResponseComplete, audit.StagePanic} {
			if c.Omits(s) {
				omitted = append(omitted, s)
			}
		}
		if c.Level != tc.level || strings.Join(stageNames(omitted), ",") != strings.Join(stageNames(tc.omitted), ",") || c.OmitManagedFields != tc.omitManaged {
			t.Errorf("%s %s: %s omitting %v (managedFields %v), want %s omitting %v (%v)", tc.a.User.Name, tc.a.Verb,
				c.Level, omitted, c.OmitManagedFields, tc.level, tc.omitted, tc.omitManaged)
		}
	}
}

func stageNames(l []audit.Stage) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = string(s)
	}
	return out
}

// Invalid policies are refused with kube-apiserver's messages
// (k8s.io/apiserver/pkg/apis/audit/validation and policy/reader.go).
func TestParsePolicyErrors(t *testing.T) {
	const head = "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
	tests := []struct{ name, policy, want string }{
		{"no rules", head + "rules: []", "loaded illegal policy with 0 rules"},
		{"no kind", "apiVersion: audit.k8s.io/v1\nrules: [{level: None}]", "failed decoding: Object 'Kind' is missing in the policy"},
		{"an old version", "apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]",
			`failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1"`},
		{"no apiVersion", "kind: Policy\nrules: [{level: None}]", "failed decoding: Object 'apiVersion' is missing in the policy"},
		{"not YAML", head + "rules: [", "failed decoding: "},
		{"a field of the wrong type", head + "rules: {level: None}", "failed decoding: "},
		{"no level", head + "rules: [{users: [a]}]", "rules[0].level: Required value"},
		{"an unknown level", head + "rules: [{level: All}]",
			`rules[0].level: Unsupported value: "All": supported values: "None", "Metadata", "Request", "RequestResponse"`},
		{"a URL without /", head + "rules: [{level: None, nonResourceURLs: [healthz]}]",
			`rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character`},
		{"a * inside a URL", head + "rules: [{level: None, nonResourceURLs: [\"/a*/b\"]}]",
			`rules[0].nonResourceURLs[0]: Invalid value: "/a*/b": non-resource URL wildcards '*' must be the final character of the rule`},
		{"an unknown stage", head + "rules: [{level: None, omitStages: [Done]}]",
			`rules[0].omitStages[0]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic`},
		{"a group with a version", head + "rules: [{level: None, resources: [{group: apps/v1}]}]",
			`rules[0].resources.group: Invalid value: "apps/v1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"names without resources", head + "rules: [{level: None, resources: [{resourceNames: [a]}]}]",
			`rules[0].resources.resourceNames: Invalid value: ["a"]: using resourceNames requires at least one resource`},
		{"resources and URLs", head + "rules: [{level: None, namespaces: [a], nonResourceURLs: [/x]}]",
			`rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs`},
		{"two problems", head + "rules: [{level: None}, {level: \"\"}, {level: X}]",
			`[rules[1].level: Required value, rules[2].level: Unsupported value: "X": supported values: "None", "Metadata", "Request", "RequestResponse"]`},
	}
	for _, tc := range tests {
		_, err := audit.ParsePolicy([]byte(tc.policy))
		switch {
		case err == nil:
			t.Errorf("%s: ParsePolicy(%q) = nil error, want %q", tc.name, tc.policy, tc.want)
		case strings.HasSuffix(tc.want, ": ") && !strings.HasPrefix(err.Error(), tc.want),
			!strings.HasSuffix(tc.want, ": ") && err.Error() != tc.want:
			t.Errorf("%s: ParsePolicy(%q) = %q, want %q", tc.name, tc.policy, err, tc.want)
		}
	}
	// Validation problems come as a *PolicyError with each of them.
	_, err := audit.ParsePolicy([]byte(head + "rules: [{level: None}, {level: \"\"}, {level: X}]"))
	var pe *audit.PolicyError
	if !errors.As(err, &pe) || len(pe.Errors) != 2 || pe.Errors[0].Field != "rules[1].level" {
		t.Errorf("errors.As(%v, *PolicyError) = %v", err, pe)
	}
}

// JSON policies work as YAML ones; LoadPolicy names the file in its
// errors.
func TestLoadPolicy(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(good, []byte(`{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"Metadata","verbs":["get"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := audit.LoadPolicy(good)
	if err != nil || len(p.Rules) != 1 || p.Rules[0].Verbs[0] != "get" {
		t.Fatalf("LoadPolicy(json) = %+v, %v", p, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := audit.LoadPolicy(bad); err == nil || err.Error() != "loaded illegal policy with 0 rules: from file "+bad {
		t.Errorf("LoadPolicy(no rules) = %v", err)
	}
	if _, err := audit.LoadPolicy(filepath.Join(dir, "missing")); err == nil || !strings.HasPrefix(err.Error(), "failed to read file path ") {
		t.Errorf("LoadPolicy(missing) = %v", err)
	}
}

// FuzzParsePolicy: any input either parses into a policy that validates
// and evaluates, or is refused; nothing panics.
func FuzzParsePolicy(f *testing.F) {
	seeds := []string{
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata}]",
		"apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: None\n  nonResourceURLs: [\"/healthz*\"]\n- level: Request\n  resources: [{group: apps, resources: [\"*/scale\", \"deployments/*\"], resourceNames: [a]}]\n  omitManagedFields: true",
		`{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"RequestResponse","users":["a"],"userGroups":["g"],"verbs":["get"],"namespaces":[""]}]}`,
		"rules: [",
		"- a\n- &x b\n- *x",
	}
	if b, err := os.ReadFile("testdata/policy.yaml"); err == nil {
		seeds = append(seeds, string(b))
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := audit.ParsePolicy(data)
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("a parsed policy does not validate: %v", err)
		}
		for _, a := range []auth.Attributes{res(alice, "get", "", "pods", "log", "ns", "p"), nonRes(bob, "post", "/x")} {
			c := p.Evaluate(a)
			if c.Level != audit.LevelNone && !c.Level.AtLeast(audit.LevelMetadata) {
				t.Fatalf("Evaluate gave an unknown level %q", c.Level)
			}
		}
	})
}
