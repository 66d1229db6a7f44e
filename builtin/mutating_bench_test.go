package builtin

import (
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// BenchmarkCreateDeploymentMutating measures a Deployment's create through
// the server's pipeline (as BenchmarkCreateDeploymentPolicies) without
// MutatingPolicies, with them and no binding, under a bound policy whose
// matchCondition it fails (matched, not mutated), and under bound
// policies that mutate it by a JSONPatch or by an ApplyConfiguration.
func BenchmarkCreateDeploymentMutating(b *testing.B) {
	const (
		rules = "  matchConstraints:\n    resourceRules:\n" +
			"    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}\n  reinvocationPolicy: Never\n"
		jsonPatch = "  - patchType: JSONPatch\n    jsonPatch:\n      expression: \"[JSONPatch{op: 'add', path: '/metadata/labels', value: {'team': 'blue'}}]\"\n"
		apply     = "  - patchType: ApplyConfiguration\n    applyConfiguration:\n      expression: \"Object{metadata: Object.metadata{labels: {'team': 'blue'}}}\"\n"
	)
	policy := func(extra, mutation string) string {
		return "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata:\n  name: p\nspec:\n" + rules + extra + "  mutations:\n" + mutation
	}
	binding := "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata:\n  name: p\nspec:\n  policyName: p\n"
	for _, c := range []struct {
		name    string
		enforce bool
		policy  string
	}{
		{"without", false, ""},
		{"unbound", true, ""},
		{"unmatched", true, policy("  matchConditions:\n  - {name: big, expression: \"object.spec.replicas > 100\"}\n", apply)},
		{"jsonpatch", true, policy("", jsonPatch)},
		{"apply", true, policy("", apply)},
	} {
		b.Run(c.name, func(b *testing.B) {
			res, err := Resources(Options{Groups: []string{"apps", "admissionregistration.k8s.io"}})
			if err != nil {
				b.Fatal(err)
			}
			m := NewMutatingPolicies(PolicyOptions{})
			opts := server.Options{Resources: res}
			if c.enforce {
				opts.Admission = m.Admission(opts.Admission)
			}
			s, url := servertest.New(b, opts)
			m.Bind(s)
			if c.policy != "" {
				for _, w := range [][2]string{{mapsPath, c.policy}, {mapbsPath, binding}} {
					if r := servertest.Do(b, "POST", url+w[0], w[1], "Content-Type", "application/yaml"); r.Code != 201 {
						b.Fatalf("%d %s", r.Code, r.Body)
					}
				}
			}
			var deploys *server.Resource
			for _, r := range res {
				if r.Kind == "Deployment" {
					deploys = r
				}
			}
			d := newDeployment("web")
			d.ObjectMeta = metav1.ObjectMeta{}
			ctx := b.Context()
			b.ReportAllocs()
			cpu := cputime.Process()
			i := 0
			for b.Loop() {
				o := &Object{ObjectMeta: meta.ObjectMeta{Name: "web-" + strconv.Itoa(i), Namespace: "default"}, Value: d.DeepCopy()}
				i++
				got, err := s.Create(ctx, deploys, o)
				if err != nil {
					b.Fatal(err)
				}
				if mutated := got.Meta().Labels["team"] == "blue"; mutated != (c.name == "jsonpatch" || c.name == "apply") {
					b.Fatalf("labels %v", got.Meta().Labels)
				}
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
