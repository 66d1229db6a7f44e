package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/internal/recorded"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// policyServer starts a server of every built-in kind, with namespaces
// and the enforcement of ValidatingAdmissionPolicies (unless enforce is
// false), and returns its URL.
func policyServer(t *testing.T, enforce bool) string {
	t.Helper()
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := namespace.New(namespace.Options{})
	opts := server.Options{Resources: append(res, l.Resource())}
	opts.Admission = l.Admission(opts.Admission)
	p := NewPolicies(PolicyOptions{})
	if enforce {
		opts.Admission = p.Admission(opts.Admission)
	}
	s, url := servertest.New(t, opts)
	l.Bind(s)
	p.Bind(s)
	return url
}

// step is one request of a recorded sequence (record-policies.go).
type step struct {
	Name        string          `json:"name"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	ContentType string          `json:"contentType"`
	Body        string          `json:"body"`
	Code        int             `json:"code"`
	Warnings    []string        `json:"warnings"`
	Answer      json.RawMessage `json:"answer"`
}

// replay sends the recorded steps of file to the server at url in order,
// and reports where an answer differs from the recorded one in its code,
// Warning headers or body (identities, resourceVersions and times
// aside; the bodies of the steps named in codeOnly aside).
func replay(t *testing.T, url, file string, codeOnly ...string) {
	t.Helper()
	replayWith(t, url, file, nil, codeOnly...)
}

// replayWith is replay with norm, if not nil, applied to both bodies
// after recorded.Normalize: for what else differs by design (allocated
// IPs, times inside strings).
func replayWith(t *testing.T, url, file string, norm func(string) string, codeOnly ...string) {
	t.Helper()
	if norm == nil {
		norm = func(s string) string { return s }
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var steps []step
	if err := json.Unmarshal(b, &steps); err != nil {
		t.Fatal(err)
	}
	hdr := []string{"Accept", "application/json", "User-Agent", "recorded"}
	for _, s := range steps {
		h := hdr
		if s.Body != "" {
			h = append(slices.Clone(hdr), "Content-Type", s.ContentType)
		}
		r := servertest.Do(t, s.Method, url+s.Path, s.Body, h...)
		got, want := norm(recorded.Normalize(strings.TrimSuffix(r.Body, "\n"))), norm(recorded.Normalize(string(s.Answer)))
		if slices.Contains(codeOnly, s.Name) {
			got = want
		}
		if r.Code != s.Code || got != want || !slices.Equal(r.Header.Values("Warning"), s.Warnings) {
			t.Errorf("%s: %s %s\n= %d %q\n  %s\nwant %d %q\n  %s", s.Name, s.Method, s.Path,
				r.Code, r.Header.Values("Warning"), got, s.Code, s.Warnings, want)
		}
	}
}

// TestRecordedPolicies replays testdata/reference/policies.json, recorded
// from kube-apiserver 1.37.1 (record-policies.go): policies and bindings
// are created, then writes pass or are refused as there, with the same
// status, message and Warning headers. Without the enforcement the
// refused writes pass, and the test fails.
func TestRecordedPolicies(t *testing.T) {
	replay(t, policyServer(t, true), "testdata/reference/policies.json")
}

// TestRecordedPolicyCases replays testdata/reference/policy-cases.json:
// the cases of TestPolicyCases (but the generated name) as
// kube-apiserver 1.37.1 answered them, one after the other.
func TestRecordedPolicyCases(t *testing.T) {
	url := policyServer(t, true)
	if r := servertest.Do(t, "POST", url+"/api/v1/namespaces", `{"metadata":{"name":"default"}}`, "Content-Type", "application/json"); r.Code != 201 {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	// The HPAs created through autoscaling/v1 differ in their
	// managedFields, which a cluster computes on its storage version
	// (autoscaling/v2; see the package doc): not the policies' concern.
	replay(t, url, "testdata/reference/policy-cases.json", "equivalent version passes", "exact version")
}

// vap and binding return the YAML of a ValidatingAdmissionPolicy named p
// of spec and of its binding b of spec.
func vap(spec string) string {
	return "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p\nspec:\n" + spec
}

func vapBinding(spec string) string {
	return "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: b\nspec:\n  policyName: p\n  validationActions: [Deny]\n" + spec
}

// TestPolicyCases covers what the recording does not, with the messages
// of Kubernetes' dispatcher: a generated name, matchPolicy Equivalent
// across the versions of one storage, configuration errors of a paramKind
// and a paramRef, a Namespace matched by its own labels, parameters
// chosen by a selector, a binding of no policy.
func TestPolicyCases(t *testing.T) {
	const (
		vaps     = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
		bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
		cms      = "/api/v1/namespaces/default/configmaps"
		hpas     = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
		denied   = " is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "
	)
	cmRules := "  matchConstraints:\n    resourceRules:\n    - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}\n"
	hpa := func(max int) string {
		return `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d","apiVersion":"apps/v1"},"maxReplicas":` + strconv.Itoa(max) + `}}`
	}
	hpaPolicy := func(matchPolicy string) string {
		return vap("  matchConstraints:\n    matchPolicy: " + matchPolicy + "\n    resourceRules:\n" +
			"    - {apiGroups: [autoscaling], apiVersions: [v2], operations: [CREATE], resources: [horizontalpodautoscalers]}\n" +
			"  validations:\n  - expression: \"object.apiVersion == 'autoscaling/v2' && object.spec.maxReplicas <= 5\"\n")
	}
	type write struct{ path, body string }
	for _, c := range []struct {
		name   string
		setup  []write
		write  write
		code   int
		prefix string // of the message; "" for a success
		suffix string
	}{
		{"generated name", []write{
			{vaps, vap(cmRules + "  validations:\n  - expression: \"!has(object.data)\"\n")}, {bindings, vapBinding("")}},
			write{cms, `{"metadata":{"generateName":"gen-"},"data":{"a":"1"}}`},
			422, `configmaps "gen-`, denied + "failed expression: !has(object.data)"},
		{"equivalent version", []write{{vaps, hpaPolicy("Equivalent")}, {bindings, vapBinding("")}},
			write{hpas, hpa(6)}, 422, `horizontalpodautoscalers.autoscaling "h"` + denied +
				"failed expression: object.apiVersion == 'autoscaling/v2' && object.spec.maxReplicas <= 5", ""},
		{"equivalent version passes", []write{{vaps, hpaPolicy("Equivalent")}, {bindings, vapBinding("")}},
			write{hpas, hpa(5)}, 201, "", ""},
		{"exact version", []write{{vaps, hpaPolicy("Exact")}, {bindings, vapBinding("")}},
			write{hpas, hpa(6)}, 201, "", ""},
		{"paramKind not served", []write{
			{vaps, vap("  paramKind: {apiVersion: example.com/v1, kind: Foo}\n" + cmRules + "  validations:\n  - expression: \"true\"\n")},
			{bindings, vapBinding("  paramRef: {name: x, parameterNotFoundAction: Allow}\n")}},
			write{cms, `{"metadata":{"name":"c"}}`},
			422, `configmaps "c" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: ` +
				"failed to find resource referenced by paramKind: 'example.com/v1, Kind=Foo'", ""},
		{"namespaced parameter of a cluster-scoped write", []write{
			{vaps, vap("  paramKind: {apiVersion: v1, kind: ConfigMap}\n  matchConstraints:\n    resourceRules:\n" +
				"    - {apiGroups: [rbac.authorization.k8s.io], apiVersions: [v1], operations: [CREATE], resources: [clusterroles]}\n" +
				"  validations:\n  - expression: \"true\"\n")},
			{bindings, vapBinding("  paramRef: {name: x, parameterNotFoundAction: Allow}\n")}},
			write{"/apis/rbac.authorization.k8s.io/v1/clusterroles", `{"metadata":{"name":"r"}}`},
			422, `clusterroles.rbac.authorization.k8s.io "r"` + denied +
				"failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources", ""},
		{"namespace by its labels", []write{
			{vaps, vap("  matchConstraints:\n    resourceRules:\n    - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [namespaces]}\n" +
				"  validations:\n  - expression: \"false\"\n    message: nope\n")},
			{bindings, vapBinding("  matchResources:\n    namespaceSelector: {matchLabels: {env: prod}}\n")}},
			write{"/api/v1/namespaces", `{"metadata":{"name":"n","labels":{"env":"prod"}}}`},
			422, `namespaces "n"` + denied + "nope", ""},
		{"namespace by its labels passes", []write{
			{vaps, vap("  matchConstraints:\n    resourceRules:\n    - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [namespaces]}\n" +
				"  validations:\n  - expression: \"false\"\n    message: nope\n")},
			{bindings, vapBinding("  matchResources:\n    namespaceSelector: {matchLabels: {env: prod}}\n")}},
			write{"/api/v1/namespaces", `{"metadata":{"name":"n","labels":{"env":"dev"}}}`},
			201, "", ""},
		{"parameters by a selector", []write{
			{cms, `{"metadata":{"name":"p1","labels":{"limit":"yes"}},"data":{"max":"3"}}`},
			{cms, `{"metadata":{"name":"p2","labels":{"limit":"yes"}},"data":{"max":"1"}}`},
			{vaps, vap("  paramKind: {apiVersion: v1, kind: ConfigMap}\n  matchConstraints:\n    resourceRules:\n" +
				"    - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [secrets]}\n" +
				"  validations:\n  - expression: \"size(object.data) <= int(params.data.max)\"\n" +
				"    messageExpression: \"'at most ' + params.data.max + ' by ' + params.metadata.name + ' of kind ' + params.kind\"\n")},
			{bindings, vapBinding("  paramRef: {selector: {matchLabels: {limit: \"yes\"}}, parameterNotFoundAction: Deny}\n")}},
			write{"/api/v1/namespaces/default/secrets", `{"metadata":{"name":"s"},"data":{"a":"eA==","b":"eA=="}}`},
			422, `secrets "s"` + denied + "at most 1 by p2 of kind ConfigMap", ""},
		{"binding of no policy", []write{{bindings, vapBinding("")}},
			write{cms, `{"metadata":{"name":"c"}}`}, 201, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := policyServer(t, true)
			for _, w := range append([]write{{"/api/v1/namespaces", `{"metadata":{"name":"default"}}`}}, c.setup...) {
				ctype := "application/json"
				if !strings.HasPrefix(w.body, "{") {
					ctype = "application/yaml"
				}
				if r := servertest.Do(t, "POST", url+w.path, w.body, "Content-Type", ctype); r.Code != 201 {
					t.Fatalf("setup %s: %d %s", w.path, r.Code, r.Body)
				}
			}
			r := servertest.Do(t, "POST", url+c.write.path, c.write.body, "Content-Type", "application/json")
			var st struct{ Message string }
			if r.Code >= 300 {
				if err := json.Unmarshal([]byte(r.Body), &st); err != nil {
					t.Fatal(err)
				}
			}
			if r.Code != c.code || !strings.HasPrefix(st.Message, c.prefix) || !strings.HasSuffix(st.Message, c.suffix) {
				t.Errorf("%d %s\nwant %d %q...%q", r.Code, r.Body, c.code, c.prefix, c.suffix)
			}
		})
	}
}

// BenchmarkPolicies measures what the enforcement adds to the write of a
// ConfigMap: with no binding, with a bound policy of other resources,
// and with one that matches and evaluates one expression.
func BenchmarkPolicies(b *testing.B) {
	for _, c := range []struct{ name, resource string }{{"none", ""}, {"unmatched", "secrets"}, {"matched", "configmaps"}} {
		b.Run(c.name, func(b *testing.B) {
			res, err := Resources(Options{Groups: []string{"", "admissionregistration.k8s.io"}})
			if err != nil {
				b.Fatal(err)
			}
			p := NewPolicies(PolicyOptions{})
			s, url := servertest.New(b, server.Options{Resources: res})
			p.Bind(s)
			if c.resource != "" {
				for _, w := range []struct{ path, body string }{
					{"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", vap("  matchConstraints:\n    resourceRules:\n" +
						"    - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [" + c.resource + "]}\n" +
						"  validations:\n  - expression: \"!has(object.data) || size(object.data) < 10\"\n")},
					{"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", vapBinding("")},
				} {
					if r := servertest.Do(b, "POST", url+w.path, w.body, "Content-Type", "application/yaml"); r.Code != 201 {
						b.Fatalf("%d %s", r.Code, r.Body)
					}
				}
			}
			var cm *server.Resource
			for _, r := range s.Resources() {
				if r.Group == "" && r.Plural == "configmaps" {
					cm = r
				}
			}
			obj := cm.New()
			if err := json.Unmarshal([]byte(`{"metadata":{"name":"c","namespace":"default"},"data":{"a":"1"}}`), obj); err != nil {
				b.Fatal(err)
			}
			a := server.Attributes{Operation: server.OperationCreate, Verb: "create", Resource: cm, Namespace: "default", Name: "c"}
			ctx := b.Context()
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				if err := p.Validate(ctx, a, obj, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkCreateDeploymentPolicies measures a Deployment's create through
// the server's pipeline (as BenchmarkCreateDeployment) without Policies,
// with Policies and no binding, and under a bound policy of Deployments
// that evaluates one expression.
func BenchmarkCreateDeploymentPolicies(b *testing.B) {
	for _, c := range []struct {
		name           string
		enforce, bound bool
	}{{"without", false, false}, {"unbound", true, false}, {"bound", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			res, err := Resources(Options{Groups: []string{"apps", "admissionregistration.k8s.io"}})
			if err != nil {
				b.Fatal(err)
			}
			p := NewPolicies(PolicyOptions{})
			opts := server.Options{Resources: res}
			if c.enforce {
				opts.Admission = p.Admission(opts.Admission)
			}
			s, url := servertest.New(b, opts)
			p.Bind(s)
			if c.bound {
				for _, w := range []struct{ path, body string }{
					{"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", vap("  matchConstraints:\n    resourceRules:\n" +
						"    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}\n" +
						"  validations:\n  - expression: \"object.spec.replicas <= 5\"\n")},
					{"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", vapBinding("")},
				} {
					if r := servertest.Do(b, "POST", url+w.path, w.body, "Content-Type", "application/yaml"); r.Code != 201 {
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
				if _, err := s.Create(ctx, deploys, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// The policies' CEL authorizer asks PolicyOptions.Authorizer, with the
// request's attributes; without one every check is allowed.
func TestPolicyAuthorizer(t *testing.T) {
	noDelete := auth.AuthorizerFunc(func(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
		if a.Verb == "delete" && a.Group == "apps" && a.Resource == "deployments" && a.Namespace == "default" && a.ResourceRequest {
			return auth.DecisionDeny, "no", nil
		}
		return auth.DecisionAllow, "", nil
	})
	policy := vap("  matchConstraints:\n    resourceRules:\n" +
		"    - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}\n" +
		"  validations:\n  - expression: \"authorizer.group('apps').resource('deployments').namespace('default').check(object.data.verb).allowed()\"\n" +
		"    message: not allowed\n")
	for _, c := range []struct {
		name  string
		authz auth.Authorizer
		verb  string
		code  int
	}{
		{"denied", noDelete, "delete", 422},
		{"allowed", noDelete, "get", 201},
		{"no authorizer", nil, "delete", 201},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Resources(Options{Groups: []string{"", "admissionregistration.k8s.io"}})
			if err != nil {
				t.Fatal(err)
			}
			p := NewPolicies(PolicyOptions{Authorizer: c.authz})
			s, url := servertest.New(t, server.Options{Resources: res, Admission: p.Admission(server.Admission{})})
			p.Bind(s)
			for _, w := range []struct{ path, body string }{
				{"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", policy},
				{"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", vapBinding("")},
			} {
				if r := servertest.Do(t, "POST", url+w.path, w.body, "Content-Type", "application/yaml"); r.Code != 201 {
					t.Fatalf("%d %s", r.Code, r.Body)
				}
			}
			r := servertest.Do(t, "POST", url+"/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"c"},"data":{"verb":"`+c.verb+`"}}`,
				"Content-Type", "application/json")
			if r.Code != c.code {
				t.Errorf("%d %s; want %d", r.Code, r.Body, c.code)
			}
		})
	}
}

// Writes checked while the policy and binding change under them share
// the compiled policies safely (run with -race), and each write is
// judged by a policy as stored before or after the change.
func TestPoliciesConcurrent(t *testing.T) {
	url := policyServer(t, true)
	const cms = "/api/v1/namespaces/default/configmaps"
	for _, w := range []struct{ path, body string }{
		{"/api/v1/namespaces", `{"metadata":{"name":"default"}}`},
		{"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", vap("  matchConstraints:\n    resourceRules:\n" +
			"    - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}\n" +
			"  validations:\n  - expression: \"!has(object.data) || !('bad' in object.data)\"\n")},
		{"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", vapBinding("")},
	} {
		ctype := "application/yaml"
		if strings.HasPrefix(w.body, "{") {
			ctype = "application/json"
		}
		if r := servertest.Do(t, "POST", url+w.path, w.body, "Content-Type", ctype); r.Code != 201 {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 200)
	for g := range 4 {
		wg.Go(func() {
			for i := range 25 {
				name := fmt.Sprintf("c%d-%d", g, i)
				if r := servertest.Do(t, "POST", url+cms, `{"metadata":{"name":"`+name+`"},"data":{"bad":"1"}}`,
					"Content-Type", "application/json"); r.Code != 422 {
					errs <- fmt.Sprintf("%s: %d %s", name, r.Code, r.Body)
				}
			}
		})
	}
	// Meanwhile the policy changes (a message) and a binding comes and goes.
	for i := range 10 {
		patch := fmt.Sprintf(`{"spec":{"validations":[{"expression":"!has(object.data) || !('bad' in object.data)","message":"m%d"}]}}`, i)
		if r := servertest.Do(t, "PATCH", url+"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/p", patch,
			"Content-Type", "application/merge-patch+json"); r.Code != 200 {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
		b2 := strings.Replace(vapBinding(""), "name: b\n", "name: b2\n", 1)
		if r := servertest.Do(t, "POST", url+"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", b2,
			"Content-Type", "application/yaml"); r.Code != 201 {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
		if r := servertest.Do(t, "DELETE", url+"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/b2", ""); r.Code != 200 {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
