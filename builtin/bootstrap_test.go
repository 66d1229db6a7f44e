package builtin

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// The reference's secure port when bootstrap.json was recorded: the
// targetPort of its kubernetes Service.
const referenceSecurePort = 6429

// bootstrapPaths are the list paths of the kinds of bootstrap.json, by
// its keys.
var bootstrapPaths = map[string]string{
	"services":                    "/api/v1/services",
	"ipaddresses":                 "/apis/networking.k8s.io/v1/ipaddresses",
	"clusterroles":                "/apis/rbac.authorization.k8s.io/v1/clusterroles",
	"clusterrolebindings":         "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
	"roles":                       "/apis/rbac.authorization.k8s.io/v1/roles",
	"rolebindings":                "/apis/rbac.authorization.k8s.io/v1/rolebindings",
	"priorityclasses":             "/apis/scheduling.k8s.io/v1/priorityclasses",
	"flowschemas":                 "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
	"prioritylevelconfigurations": "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations",
}

// referenceBootstrap reads the objects a fresh kube-apiserver v1.37.1
// held after its start (testdata/reference/bootstrap.json, recorded with
// kubectl get -o json of each kind, less the reference's own
// ClusterRoleBinding for anonymous access).
func referenceBootstrap(t *testing.T) map[string][]map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/reference/bootstrap.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string][]map[string]any
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// listed returns the items of a list of the server at url.
func listed(t *testing.T, url, path string) []map[string]any {
	t.Helper()
	r := servertest.Do(t, "GET", url+path, "", "Accept", "application/json")
	if r.Code != 200 {
		t.Fatalf("GET %s: %d %s", path, r.Code, r.Body)
	}
	var l struct{ Items []map[string]any }
	if err := json.Unmarshal([]byte(r.Body), &l); err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// startIndependent is o without what differs from one start to another:
// uid, resourceVersion, creationTimestamp, the times of managedFields and
// of conditions.
func startIndependent(kind string, o map[string]any) map[string]any {
	m := o["metadata"].(map[string]any)
	delete(m, "uid")
	delete(m, "resourceVersion")
	delete(m, "creationTimestamp")
	for _, e := range asSlice(m["managedFields"]) {
		delete(e.(map[string]any), "time")
	}
	if st, ok := o["status"].(map[string]any); ok {
		for _, c := range asSlice(st["conditions"]) {
			delete(c.(map[string]any), "lastTransitionTime")
		}
	}
	return o
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func key(o map[string]any) string {
	m := o["metadata"].(map[string]any)
	ns, _ := m["namespace"].(string)
	return ns + "/" + m["name"].(string)
}

// bootstrapServer starts a server of every built-in kind and namespaces
// (those of a cluster's start left to Bootstrap to make), and runs
// Bootstrap on it.
func bootstrapServer(t *testing.T, before ...string) (*server.Server, string) {
	t.Helper()
	s, url := allocServer(t, NewServiceAllocator(), nil)
	for i := 0; i < len(before); i += 2 {
		r := servertest.Do(t, "POST", url+before[i], before[i+1], "Content-Type", "application/json")
		if r.Code != 201 {
			t.Fatalf("POST %s: %d %s", before[i], r.Code, r.Body)
		}
	}
	if err := Bootstrap(context.Background(), s, BootstrapOptions{SecurePort: referenceSecurePort}); err != nil {
		t.Fatal(err)
	}
	return s, url
}

// A server after Bootstrap holds what a fresh kube-apiserver holds: the
// same objects of each kind, each the same but for its uid, times and
// resourceVersion.
//
// On a fresh server the objects are copies of those made once per
// process; on one that holds objects of the kinds already (a user's, or
// a server on etcd), each is reconciled through the server's writes: both
// are compared.
func TestBootstrapMatchesReference(t *testing.T) {
	ref := referenceBootstrap(t)
	const user = `{"metadata":{"name":"user-1"`
	servers := map[string][]string{
		"fresh": nil,
		"not fresh": {
			bootstrapPaths["clusterroles"], user + `}}`,
			bootstrapPaths["clusterrolebindings"], user + `},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"user-1"}}`,
			"/api/v1/namespaces", `{"metadata":{"name":"kube-system"}}`,
			"/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles", user + `}}`,
			"/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings", user + `},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"user-1"}}`,
			bootstrapPaths["priorityclasses"], user + `},"value":5}`,
			bootstrapPaths["prioritylevelconfigurations"], user + `},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Reject"}}}}`,
			bootstrapPaths["flowschemas"], user + `},"spec":{"priorityLevelConfiguration":{"name":"user-1"}}}`,
		},
	}
	for name, before := range servers {
		t.Run(name, func(t *testing.T) {
			_, url := bootstrapServer(t, before...)
			compareBootstrap(t, ref, url)
		})
	}
}

// compareBootstrap compares the objects of the server at url with those
// of the reference, leaving out the user's (named user-*).
func compareBootstrap(t *testing.T, ref map[string][]map[string]any, url string) {
	for kind, path := range bootstrapPaths {
		t.Run(kind, func(t *testing.T) {
			want := map[string]map[string]any{}
			for _, o := range ref[kind] {
				want[key(o)] = startIndependent(kind, o)
			}
			got := map[string]map[string]any{}
			for _, o := range listed(t, url, path) {
				if k := key(o); !strings.Contains(k, "/user-") {
					got[k] = startIndependent(kind, o)
				}
			}
			if d := cmp.Diff(slices.Sorted(mapKeys(want)), slices.Sorted(mapKeys(got))); d != "" {
				t.Fatalf("names (-reference +ours):\n%s", d)
			}
			for k, w := range want {
				if d := cmp.Diff(w, got[k]); d != "" {
					t.Errorf("%s (-reference +ours):\n%s", k, d)
				}
			}
		})
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Bootstrap on a server that has its objects, as at a second start on
// the same etcd, writes nothing; one whose objects were changed or
// deleted reconciles them as kube-apiserver does.
func TestBootstrapReconciles(t *testing.T) {
	ctx := context.Background()
	s, url := bootstrapServer(t)
	rev := s.Revision()
	if err := Bootstrap(ctx, s, BootstrapOptions{SecurePort: referenceSecurePort}); err != nil {
		t.Fatal(err)
	}
	if got := s.Revision(); got != rev {
		t.Fatalf("a second Bootstrap wrote: revision %d, was %d", got, rev)
	}

	const rbac = "/apis/rbac.authorization.k8s.io/v1/"
	const apf = "/apis/flowcontrol.apiserver.k8s.io/v1/"
	do := func(method, path, body string) {
		t.Helper()
		ct := "application/json"
		if method == "PATCH" {
			ct = "application/merge-patch+json"
		}
		r := servertest.Do(t, method, url+path, body, "Content-Type", ct)
		if r.Code >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, r.Code, r.Body)
		}
	}
	// Deleted: each is made again.
	do("DELETE", rbac+"clusterroles/system:basic-user", "")
	do("DELETE", rbac+"namespaces/kube-system/rolebindings/system:controller:token-cleaner", "")
	do("DELETE", "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical", "")
	do("DELETE", apf+"flowschemas/probes", "")
	do("DELETE", "/api/v1/namespaces/default/services/kubernetes", "")
	// Changed: kube-apiserver adds what a role or binding lacks unless
	// it is annotated not to, and never takes anything away.
	do("PATCH", rbac+"clusterroles/system:discovery", `{"rules":[{"nonResourceURLs":["/healthz"],"verbs":["get"]}]}`)
	do("PATCH", rbac+"clusterroles/system:public-info-viewer", `{"metadata":{"annotations":{"rbac.authorization.kubernetes.io/autoupdate":"false"}},"rules":[{"nonResourceURLs":["/livez"],"verbs":["get"]}]}`)
	do("PATCH", rbac+"clusterrolebindings/system:discovery", `{"subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}]}`)
	// A suggested APF object's spec stays when the annotation says so,
	// and goes back when it does not (a mandatory one's cannot change).
	do("DELETE", apf+"flowschemas/catch-all", "")
	do("PATCH", apf+"flowschemas/global-default", `{"metadata":{"annotations":{"apf.kubernetes.io/autoupdate-spec":"false"}},"spec":{"matchingPrecedence":9001}}`)
	do("PATCH", apf+"flowschemas/service-accounts", `{"spec":{"matchingPrecedence":9002}}`)
	// One the configuration lacks, annotated for auto-update, goes.
	do("POST", apf+"flowschemas", `{"metadata":{"name":"retired","annotations":{"apf.kubernetes.io/autoupdate-spec":"true"}},"spec":{"priorityLevelConfiguration":{"name":"global-default"},"matchingPrecedence":9100}}`)
	do("POST", apf+"flowschemas", `{"metadata":{"name":"mine"},"spec":{"priorityLevelConfiguration":{"name":"global-default"},"matchingPrecedence":9101}}`)
	do("POST", apf+"flowschemas", `{"metadata":{"name":"orphan"},"spec":{"priorityLevelConfiguration":{"name":"nope"},"matchingPrecedence":9102}}`)

	if err := Bootstrap(ctx, s, BootstrapOptions{SecurePort: referenceSecurePort}); err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		r := servertest.Do(t, "GET", url+path, "", "Accept", "application/json")
		return r.Code, r.Body
	}
	for _, tt := range []struct {
		path     string
		code     int
		has, not []string
	}{
		{path: rbac + "clusterroles/system:basic-user", code: 200, has: []string{`"selfsubjectreviews"`}},
		{path: rbac + "namespaces/kube-system/rolebindings/system:controller:token-cleaner", code: 200},
		{path: "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical", code: 200, has: []string{`"value":2000001000`}},
		{path: apf + "flowschemas/probes", code: 200},
		{path: "/api/v1/namespaces/default/services/kubernetes", code: 200, has: []string{`"clusterIP":"10.96.0.1"`, `"targetPort":6429`}},
		// The bootstrap rules are back, and the user's stays.
		{path: rbac + "clusterroles/system:discovery", code: 200, has: []string{`"/healthz"`, `"/openapi/*"`, `"/version/"`}},
		{path: rbac + "clusterroles/system:public-info-viewer", code: 200, has: []string{`"/livez"`}, not: []string{`"/version/"`}},
		{path: rbac + "clusterrolebindings/system:discovery", code: 200, has: []string{`"alice"`, `"system:authenticated"`}},
		{path: apf + "flowschemas/catch-all", code: 200, has: []string{`"matchingPrecedence":10000`}},
		{path: apf + "flowschemas/global-default", code: 200, has: []string{`"matchingPrecedence":9001`}},
		{path: apf + "flowschemas/service-accounts", code: 200, has: []string{`"matchingPrecedence":9000`}},
		{path: apf + "flowschemas/retired", code: 404},
		{path: apf + "flowschemas/mine", code: 200, has: []string{`"reason":"Found"`, `"manager":"api-priority-and-fairness-config-consumer-v1","operation":"Apply"`}},
		{path: apf + "flowschemas/orphan", code: 200, has: []string{`"status":"True","lastTransitionTime"`, `"reason":"NotFound"`,
			`"message":"This FlowSchema references the PriorityLevelConfiguration object named \"nope\" but there is no such object"`}},
	} {
		code, body := get(tt.path)
		if code != tt.code {
			t.Errorf("GET %s: %d, want %d: %s", tt.path, code, tt.code, body)
			continue
		}
		for _, h := range tt.has {
			if !strings.Contains(body, h) {
				t.Errorf("GET %s lacks %s: %s", tt.path, h, body)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(body, n) {
				t.Errorf("GET %s has %s: %s", tt.path, n, body)
			}
		}
	}
}

// No other Service gets the kubernetes Service's cluster IP, even before
// Bootstrap made it: the allocator never chooses it.
func TestServiceAllocatorSkipsKubernetesIP(t *testing.T) {
	a := NewServiceAllocator()
	offers := 0
	a.rand = func(n int) int {
		offers++
		if offers == 1 {
			return 0 // the first IP of the range
		}
		return 41
	}
	_, url := allocServer(t, a, nil)
	createNamespace(t, url)
	r := postService(t, url, "web", "  ports:\n  - port: 80\n")
	if r.Code != 201 {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	if ip, _ := allocated(t, r.Body); ip != "10.96.0.42" || offers != 2 {
		t.Errorf("got %s after %d offers, want 10.96.0.42 after 2", ip, offers)
	}
}

// BenchmarkBootstrap is the cost Bootstrap adds to a server's start: the
// ~200 writes of a fresh server (fresh), and the reads of one that
// holds them already (again, a restart on the same etcd).
func BenchmarkBootstrap(b *testing.B) {
	ctx := context.Background()
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		var cpu time.Duration
		for b.Loop() {
			b.StopTimer()
			s, _ := allocServer(b, NewServiceAllocator(), nil)
			b.StartTimer()
			start := cputime.Process()
			if err := Bootstrap(ctx, s, BootstrapOptions{}); err != nil {
				b.Fatal(err)
			}
			cpu += cputime.Process() - start
		}
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
	b.Run("again", func(b *testing.B) {
		s, _ := allocServer(b, NewServiceAllocator(), nil)
		if err := Bootstrap(ctx, s, BootstrapOptions{}); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		cpu := cputime.Process()
		for b.Loop() {
			if err := Bootstrap(ctx, s, BootstrapOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
}
