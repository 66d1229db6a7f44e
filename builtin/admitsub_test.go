package builtin

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// Evictions and bindings go through Options.Admission as kube-apiserver
// puts them to its admission: creates of pods/eviction (a policy/v1
// Eviction), pods/binding and bindings (a Binding), the mutating phase
// first, whose changes the write takes (a Binding's node), the validating
// phase with the Eviction's deleteOptions given the request's dryRun; the
// budget's status write is an UPDATE of poddisruptionbudgets/status by
// system:apiserver.
func TestAdmitEvictionsAndBindings(t *testing.T) {
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		seen []string
	)
	note := func(phase string) server.AdmitFunc {
		return func(_ context.Context, a server.Attributes, obj, _ server.Object) error {
			if a.Resource.Plural == "pods" && a.Subresource == "" || a.Resource.Plural == "poddisruptionbudgets" && a.Subresource == "" {
				return nil
			}
			g, v, k := a.Kind()
			line := fmt.Sprintf("%s %s %s %s/%s %s/%s/%s %s/%s dryRun=%v by %q", phase, a.Operation, a.Verb, a.Resource.Plural, a.Subresource,
				g, v, k, a.Namespace, a.Name, a.DryRun, a.User.Name)
			switch v := obj.(*Object).Value.(type) {
			case *policyv1.Eviction:
				if d := v.DeleteOptions; d != nil {
					line += fmt.Sprintf(" deleteOptions.dryRun=%v", d.DryRun)
				}
			case *corev1.Binding:
				line += " target=" + v.Target.Name
				if phase == "mutate" {
					v.Target.Name = "mutated-node"
				}
			}
			mu.Lock()
			seen = append(seen, line)
			mu.Unlock()
			return nil
		}
	}
	opts := server.Options{Resources: res, Admission: server.Admission{Mutate: note("mutate"), Validate: note("validate")}}
	_, url := servertest.New(t, opts)
	do := func(method, path, body string, code int) string {
		t.Helper()
		ctype := "application/json"
		if method == "PATCH" {
			ctype = "application/merge-patch+json"
		}
		r := servertest.Do(t, method, url+path, body, "Content-Type", ctype)
		if r.Code != code {
			t.Fatalf("%s %s: %d %s", method, path, r.Code, r.Body)
		}
		return r.Body
	}
	const pods = "/api/v1/namespaces/default/pods"
	pod := func(name, labels string) string {
		return `{"metadata":{"name":"` + name + `","labels":{` + labels + `}},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	}
	do("POST", pods, pod("a", ""), 201)
	do("POST", pods, pod("b", ""), 201)
	do("POST", pods, pod("c", `"app":"c"`), 201)
	do("PATCH", pods+"/c/status", `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`, 200)
	const pdbs = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
	do("POST", pdbs, `{"metadata":{"name":"pdb"},"spec":{"selector":{"matchLabels":{"app":"c"}}}}`, 201)
	do("PATCH", pdbs+"/pdb/status", `{"status":{"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":1,"expectedPods":1}}`, 200)
	mu.Lock()
	seen = nil
	mu.Unlock()

	do("POST", pods+"/a/eviction?dryRun=All", `{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"a"},"deleteOptions":{}}`, 201)
	do("POST", pods+"/a/binding", `{"metadata":{"name":"a"},"target":{"name":"n1"}}`, 201)
	do("POST", "/api/v1/namespaces/default/bindings", `{"metadata":{"name":"b"},"target":{"name":"n2"}}`, 201)
	do("POST", pods+"/c/eviction", `{"metadata":{"name":"c"}}`, 201)
	for _, name := range []string{"a", "b"} {
		if body := do("GET", pods+"/"+name, "", 200); !strings.Contains(body, `"nodeName":"mutated-node"`) {
			t.Errorf("pod %s is not on the node mutating admission chose: %s", name, body)
		}
	}
	want := []string{
		`mutate CREATE create pods/eviction policy/v1/Eviction default/a dryRun=true by "" deleteOptions.dryRun=[]`,
		`validate CREATE create pods/eviction policy/v1/Eviction default/a dryRun=true by "" deleteOptions.dryRun=[All]`,
		`mutate CREATE create pods/binding /v1/Binding default/a dryRun=false by "" target=n1`,
		`validate CREATE create pods/binding /v1/Binding default/a dryRun=false by "" target=mutated-node`,
		`mutate CREATE create bindings/ /v1/Binding default/b dryRun=false by "" target=n2`,
		`validate CREATE create bindings/ /v1/Binding default/b dryRun=false by "" target=mutated-node`,
		`mutate CREATE create pods/eviction policy/v1/Eviction default/c dryRun=false by ""`,
		`validate CREATE create pods/eviction policy/v1/Eviction default/c dryRun=false by ""`,
		`mutate UPDATE update poddisruptionbudgets/status policy/v1/PodDisruptionBudget default/pdb dryRun=false by "system:apiserver"`,
		`validate UPDATE update poddisruptionbudgets/status policy/v1/PodDisruptionBudget default/pdb dryRun=false by "system:apiserver"`,
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(seen, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("admission saw\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}
