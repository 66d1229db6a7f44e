package builtin

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// mutatingServer starts a server of every built-in kind, with
// namespaces, the ValidatingAdmissionPolicies and, if mutate, the
// MutatingAdmissionPolicies applied, and returns its URL.
func mutatingServer(t testing.TB, mutate bool) string {
	t.Helper()
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := namespace.New(namespace.Options{})
	opts := server.Options{Resources: append(res, l.Resource())}
	opts.Admission = l.Admission(opts.Admission)
	v := NewPolicies(PolicyOptions{})
	opts.Admission = v.Admission(opts.Admission)
	m := NewMutatingPolicies(PolicyOptions{})
	if mutate {
		opts.Admission = m.Admission(opts.Admission)
	}
	s, url := servertest.New(t, opts)
	l.Bind(s)
	v.Bind(s)
	m.Bind(s)
	return url
}

// TestRecordedMutatingPolicies replays testdata/reference/mutating.json,
// recorded from kube-apiserver 1.37.1 (record-mutating.go): mutating
// policies and their bindings are created, then creates, updates,
// patches, server-side applies and dry runs are mutated as there (the
// answers' objects, managedFields included, and errors the same), ahead
// of a ValidatingAdmissionPolicy that only the mutated objects pass.
// Without the mutating policies the writes are stored as sent, or
// refused by the validating policy, and the test fails.
func TestRecordedMutatingPolicies(t *testing.T) {
	replay(t, mutatingServer(t, true), "testdata/reference/mutating.json")
}

const (
	mapsPath  = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies"
	mapbsPath = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings"
)

// mutatingPolicy returns the YAML of a MutatingAdmissionPolicy of
// ConfigMaps and Secrets named name, of reinvocationPolicy and mutations,
// and of its binding of the same name.
func mutatingPolicy(name, reinvocation, extra, mutations string) (policy, binding string) {
	policy = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata:\n  name: " + name + "\nspec:\n" +
		"  matchConstraints:\n    resourceRules:\n    - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps, secrets]}\n" +
		"  reinvocationPolicy: " + reinvocation + "\n" + extra + "  mutations:\n" + mutations
	binding = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata:\n  name: " + name +
		"\nspec:\n  policyName: " + name + "\n"
	return policy, binding
}

func applyConfiguration(expr string) string {
	return "  - patchType: ApplyConfiguration\n    applyConfiguration:\n      expression: \"" + expr + "\"\n"
}

// TestMutatingPolicyCases covers what the recording cannot: the order
// of the policies (a cluster's is at random, ours by name), so
// reinvocation of an IfNeeded policy and none of a Never one.
func TestMutatingPolicyCases(t *testing.T) {
	const (
		cms = "/api/v1/namespaces/default/configmaps"
	)
	readsB := applyConfiguration("Object{metadata: Object.metadata{annotations: {'a': has(object.metadata.labels) && 'b' in object.metadata.labels ? 'after-b' : 'before-b'}}}")
	setsB := applyConfiguration("Object{metadata: Object.metadata{labels: {'b': 'set'}}}")
	for _, c := range []struct {
		name     string
		policies [][2]string
		path     string
		body     string
		code     int
		want     string // in the answer
	}{
		{"reinvoked", [][2]string{pair(mutatingPolicy("a", "IfNeeded", "", readsB)), pair(mutatingPolicy("b", "Never", "", setsB))},
			cms, `{"metadata":{"name":"c"}}`, 201, `"labels":{"b":"set"},"annotations":{"a":"after-b"}`},
		{"not reinvoked", [][2]string{pair(mutatingPolicy("a", "Never", "", readsB)), pair(mutatingPolicy("b", "Never", "", setsB))},
			cms, `{"metadata":{"name":"c"}}`, 201, `"labels":{"b":"set"},"annotations":{"a":"before-b"}`},
		{"in order", [][2]string{pair(mutatingPolicy("b", "Never", "", setsB)), pair(mutatingPolicy("c", "Never", "", readsB))},
			cms, `{"metadata":{"name":"c"}}`, 201, `"labels":{"b":"set"},"annotations":{"a":"after-b"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := mutatingServer(t, true)
			if r := servertest.Do(t, "POST", url+"/api/v1/namespaces", `{"metadata":{"name":"default"}}`, "Content-Type", "application/json"); r.Code != 201 {
				t.Fatalf("%d %s", r.Code, r.Body)
			}
			for _, p := range c.policies {
				for i, path := range []string{mapsPath, mapbsPath} {
					if r := servertest.Do(t, "POST", url+path, p[i], "Content-Type", "application/yaml"); r.Code != 201 {
						t.Fatalf("%d %s", r.Code, r.Body)
					}
				}
			}
			r := servertest.Do(t, "POST", url+c.path, c.body, "Content-Type", "application/json")
			if r.Code != c.code || !strings.Contains(r.Body, c.want) {
				t.Errorf("%d %s\nwant %d with %s", r.Code, r.Body, c.code, c.want)
			}
		})
	}
}

func pair(a, b string) [2]string { return [2]string{a, b} }

// TestMutatingPolicyUnchanged: a policy that matches but sets what the
// object has already changes nothing, so an update that is otherwise a
// no-op stores nothing (its resourceVersion stays).
func TestMutatingPolicyUnchanged(t *testing.T) {
	url := mutatingServer(t, true)
	p, b := mutatingPolicy("a", "Never", "", applyConfiguration("Object{metadata: Object.metadata{labels: {'team': 'blue'}}}"))
	for _, w := range [][2]string{{"/api/v1/namespaces", `{"metadata":{"name":"default"}}`}, {mapsPath, p}, {mapbsPath, b}} {
		if r := servertest.Do(t, "POST", url+w[0], w[1], "Content-Type", "application/yaml"); r.Code != 201 {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
	}
	const cm = "/api/v1/namespaces/default/configmaps"
	r := servertest.Do(t, "POST", url+cm, `{"metadata":{"name":"c"},"data":{"a":"1"}}`, "Content-Type", "application/json")
	if r.Code != 201 || !strings.Contains(r.Body, `"labels":{"team":"blue"}`) {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	var created struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(r.Body), &created); err != nil {
		t.Fatal(err)
	}
	r = servertest.Do(t, "PATCH", url+cm+"/c", `{"data":{"a":"1"}}`, "Content-Type", "application/merge-patch+json")
	if r.Code != 200 || !strings.Contains(r.Body, `"resourceVersion":"`+created.Metadata.ResourceVersion+`"`) {
		t.Errorf("a no-op patch: %d %s; want resourceVersion %s", r.Code, r.Body, created.Metadata.ResourceVersion)
	}
}

// TestMutatingPoliciesConcurrent writes from several goroutines while the
// policy changes and a binding comes and goes (run with -race): every
// write is mutated by one version of the policy or the other.
func TestMutatingPoliciesConcurrent(t *testing.T) {
	url := mutatingServer(t, true)
	p, b := mutatingPolicy("p", "Never", "", applyConfiguration("Object{metadata: Object.metadata{labels: {'team': 'blue'}}}"))
	for _, w := range [][2]string{{"/api/v1/namespaces", `{"metadata":{"name":"default"}}`}, {mapsPath, p}, {mapbsPath, b}} {
		if r := servertest.Do(t, "POST", url+w[0], w[1], "Content-Type", "application/yaml"); r.Code != 201 {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for g := range 4 {
		wg.Go(func() {
			for i := range 25 {
				name := fmt.Sprintf("c%d-%d", g, i)
				r := servertest.Do(t, "POST", url+"/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"`+name+`"}}`,
					"Content-Type", "application/json")
				if r.Code != 201 || !strings.Contains(r.Body, `"labels":{"team":"`) {
					errs <- fmt.Sprintf("%s: %d %s", name, r.Code, r.Body)
				}
			}
		})
	}
	for i := range 10 {
		patch := fmt.Sprintf(`{"spec":{"mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: Object.metadata{labels: {'team': 'v%d'}}}"}}]}}`, i)
		if r := servertest.Do(t, "PATCH", url+mapsPath+"/p", patch, "Content-Type", "application/merge-patch+json"); r.Code != 200 {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
		b2 := strings.Replace(b, "name: p\n", "name: p2\n", 1)
		if r := servertest.Do(t, "POST", url+mapbsPath, b2, "Content-Type", "application/yaml"); r.Code != 201 {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
		if r := servertest.Do(t, "DELETE", url+mapbsPath+"/p2", ""); r.Code != 200 {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
