package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// kubectlDir is the directory kubectlBin built kubectl in (a hundred
// megabytes), which TestMain removes after the tests.
var kubectlDir string

// kubectlBin builds kubectl (./internal/kubectl) once per run, unless
// $KUBECTL names one.
var kubectlBin = sync.OnceValues(func() (string, error) {
	if k := os.Getenv("KUBECTL"); k != "" {
		return k, nil
	}
	dir, err := os.MkdirTemp("", "apisem-server-kubectl-")
	if err != nil {
		return "", err
	}
	kubectlDir = dir
	bin := filepath.Join(dir, "kubectl")
	if out, err := exec.Command("go", "build", "-o", bin, "./internal/kubectl").CombinedOutput(); err != nil {
		return "", &buildError{err, string(out)}
	}
	return bin, nil
})

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "building kubectl: " + e.err.Error() + "\n" + e.out }

// kubectl runs kubectl against p with a kubeconfig and a cache of its
// own, and returns its standard output; a failure fails the test.
func (p *proc) kubectl(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	bin, err := kubectlBin()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(bin, append([]string{"--server=" + p.url, "--cache-dir=" + filepath.Join(home, "cache")}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG="+filepath.Join(home, "config"))
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// ageCell is a cell of kubectl's ages: 5s, 10m, 2m30s, 3d4h, 120ms.
var ageCell = regexp.MustCompile(`^([0-9]+(ms|[smhdy]))+$`)

// spaces collapses runs of blanks, so that rows compare without
// kubectl's column widths (a row's empty cells go with them); ages
// become AGE.
func spaces(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		cells := strings.Fields(l)
		for j, c := range cells {
			if ageCell.MatchString(c) {
				cells[j] = "AGE"
			}
		}
		lines[i] = strings.Join(cells, " ")
	}
	return strings.Join(lines, "\n")
}

// The answers kubectl (k8s.io/kubectl v0.37.1, ./internal/kubectl)
// gave against the reference kube-apiserver v1.37.1 (../shared/reference,
// started with its defaults, no controller manager) for the commands of
// TestKubectl, in order, are in testdata/kubectl (see its README).

// recorded returns the reference's answer in testdata/kubectl/name.
func recorded(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "kubectl", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	clusterIPs    = regexp.MustCompile(`\b10\.(?:9[6-9]|10[0-9]|11[01])\.[0-9]+\.[0-9]+\b`)
	apiserverIDs  = regexp.MustCompile(`\bapiserver-[a-z0-9]{26}(_[0-9a-f-]{36})?\b`)
	generatedMeta = regexp.MustCompile(`(?m)^(\s*(creationTimestamp|resourceVersion|uid|time|timeAdded): ).*$`)
)

// normalise makes a table comparable across servers and runs: blanks
// collapsed, ages, cluster IPs and kube-apiserver's identity (its Lease's
// name and holder) replaced by placeholders.
func normalise(s string) string {
	s = clusterIPs.ReplaceAllString(s, "CLUSTER-IP")
	s = apiserverIDs.ReplaceAllStringFunc(s, func(id string) string {
		if strings.Contains(id, "_") {
			return "apiserver-ID_UUID"
		}
		return "apiserver-ID"
	})
	return spaces(s)
}

// normaliseObject makes an object's YAML comparable across servers and
// runs: the values the server makes up (uid, resourceVersion, times)
// replaced by placeholders.
func normaliseObject(s string) string {
	return generatedMeta.ReplaceAllString(s, "${1}GENERATED")
}

// onlyOnReference are the rows of the reference's kubectl get that ours
// does not print, each with the reason; the test removes them from the
// recorded answer (normalised) before comparing.
var onlyOnReference = map[string]string{
	"kube-system lease.coordination.k8s.io/apiserver-ID apiserver-ID_UUID AGE": "kube-apiserver's identity Lease (feature APIServerIdentity), " +
		"renewed by each apiserver of a cluster; a single server of this module has no peers to tell apart",
}

// withoutReferenceOnly removes the rows of onlyOnReference from a
// normalised table.
func withoutReferenceOnly(t *testing.T, table string) string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		if _, ok := onlyOnReference[line]; ok {
			t.Logf("only on the reference: %s (%s)", line, onlyOnReference[line])
			seen[line] = true
			continue
		}
		out = append(out, line)
	}
	for line := range onlyOnReference {
		if !seen[line] {
			t.Errorf("onlyOnReference lists %q, which the reference did not print", line)
		}
	}
	return strings.Join(out, "\n")
}

// kubectl's everyday commands print what they print against a cluster's
// kube-apiserver, with the built-in kinds served by module builtin:
// Kubernetes' printers (the columns), defaults, OpenAPI (explain) and
// server-side apply, compared with kubectl's recorded answers from the
// reference cluster.
func TestKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kubectl")
	}
	p := mustStart(t, "-seed=false", "-addr", "127.0.0.1:0")

	if got, want := p.kubectl(t, "", "create", "deployment", "nginx", "--image=nginx"), recorded(t, "create-deployment.txt"); got != want {
		t.Errorf("create deployment: %q, the reference %q", got, want)
	}
	if got := p.kubectl(t, "", "create", "service", "clusterip", "nginx", "--tcp=80:8080"); got != "service/nginx created\n" {
		t.Errorf("create service: %q", got)
	}
	p.kubectl(t, "", "create", "serviceaccount", "bot")
	p.kubectl(t, `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"leader","namespace":"kube-system"},
		"spec":{"holderIdentity":"op-1","leaseDurationSeconds":15}}`, "create", "-f", "-")

	// No controller runs, here or on the reference: the Deployment has no
	// ReplicaSet and no Pods (kubectl leaves out kinds with nothing to
	// show), its status is empty.
	clusterIP := p.kubectl(t, "", "get", "svc", "nginx", "-o", "jsonpath={.spec.clusterIP}")
	if !clusterIPs.MatchString(clusterIP) { // the default service CIDR, 10.96.0.0/12
		t.Errorf("clusterIP %q", clusterIP)
	}
	got := normalise(p.kubectl(t, "", "get", "deploy,rs,pods,svc,sa,leases", "-A"))
	want := withoutReferenceOnly(t, normalise(recorded(t, "get-deploy-rs-pods-svc-sa-leases.txt")))
	if got != want {
		t.Errorf("kubectl get deploy,rs,pods,svc,sa,leases -A (normalised):\n%s\nthe reference's:\n%s", got, want)
	}

	// The Deployment as a cluster defaults it, and kubectl create's
	// managed fields.
	got = normaliseObject(p.kubectl(t, "", "get", "deploy", "nginx", "-o", "yaml", "--show-managed-fields"))
	if want := normaliseObject(recorded(t, "created-deployment.yaml")); got != want {
		t.Errorf("kubectl get deploy nginx -o yaml --show-managed-fields:\n%s\nthe reference's:\n%s", got, want)
	}

	if got, want := p.kubectl(t, "", "explain", "deployment.spec.strategy"), recorded(t, "explain-deployment.spec.strategy.txt"); got != want {
		t.Errorf("kubectl explain deployment.spec.strategy:\n%s\nthe reference's:\n%s", got, want)
	}

	manifest := func(replicas string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: ` + replicas + `
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
`
	}
	if got, want := p.kubectl(t, manifest("2"), "apply", "--server-side", "-f", "-"), recorded(t, "apply-server-side.txt"); got != want {
		t.Errorf("apply --server-side: %q, the reference %q", got, want)
	}
	if got, want := p.kubectl(t, manifest("3"), "apply", "--server-side", "-f", "-"), recorded(t, "apply-server-side-again.txt"); got != want {
		t.Errorf("second apply --server-side: %q, the reference %q", got, want)
	}
	got = normaliseObject(p.kubectl(t, "", "get", "deploy", "web", "-o", "yaml", "--show-managed-fields"))
	if want := normaliseObject(recorded(t, "applied-deployment.yaml")); got != want {
		t.Errorf("after the applies, kubectl get deploy web -o yaml --show-managed-fields:\n%s\nthe reference's:\n%s", got, want)
	}

	// The kinds of admission policies, dynamic resource allocation and
	// storage migration: applied, printed and stored (defaults, managed
	// fields, a DeviceTaintRule's timeAdded) as on the reference.
	if got, want := p.kubectl(t, recorded(t, "new-kinds.yaml"), "apply", "--server-side", "-f", "-"), recorded(t, "new-kinds-apply.txt"); got != want {
		t.Errorf("apply --server-side -f new-kinds.yaml:\n%s\nthe reference's:\n%s", got, want)
	}
	const newKinds = "validatingadmissionpolicies,validatingadmissionpolicybindings,mutatingadmissionpolicies,mutatingadmissionpolicybindings," +
		"deviceclasses,resourceclaims,resourceclaimtemplates,resourceslices,devicetaintrules,storageversionmigrations"
	got = normalise(p.kubectl(t, "", "get", newKinds, "-A", "-o", "wide"))
	if want := normalise(recorded(t, "new-kinds-get-wide.txt")); got != want {
		t.Errorf("kubectl get %s -A -o wide (normalised):\n%s\nthe reference's:\n%s", newKinds, got, want)
	}
	got = normaliseObject(p.kubectl(t, "", "get", newKinds, "-A", "-o", "yaml", "--show-managed-fields"))
	if want := normaliseObject(recorded(t, "new-kinds-applied.yaml")); got != want {
		t.Errorf("kubectl get %s -A -o yaml --show-managed-fields:\n%s\nthe reference's:\n%s", newKinds, got, want)
	}
}

// What kube-apiserver gives the objects kubectl creates beyond what it
// sent: a Job's labels (defaulted from its template once the strategy
// generated the selector's), a Pod's service account, priority and
// tolerations and a new Node's taint (the default admission plugins),
// compared with kubectl's recorded answers from the reference (where
// the namespace's default ServiceAccount was created first, there being
// no controller to).
func TestKubectlDefaultedObjects(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kubectl")
	}
	p := mustStart(t, "-seed=false", "-addr", "127.0.0.1:0")
	p.kubectl(t, "", "create", "namespace", "rec")
	for _, c := range []struct {
		stdin string
		args  []string
		file  string
	}{
		{"", []string{"-n", "rec", "create", "job", "pi", "--image=busybox"}, "create-job.txt"},
		{"", []string{"-n", "rec", "get", "job", "pi", "-L", "job-name,batch.kubernetes.io/job-name"}, "get-job-labels.txt"},
		{"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: rec}\nspec:\n  priorityClassName: system-cluster-critical\n  containers: [{name: c, image: busybox}]\n",
			[]string{"create", "-f", "-"}, "create-pod.txt"},
		{"", []string{"-n", "rec", "get", "pod", "p", "-o", "custom-columns=SA:.spec.serviceAccountName,CLASS:.spec.priorityClassName,PRIORITY:.spec.priority," +
			"POLICY:.spec.preemptionPolicy,TOLERATIONS:.spec.tolerations[*].key,SECONDS:.spec.tolerations[*].tolerationSeconds"}, "get-pod-admitted.txt"},
		{"apiVersion: v1\nkind: Node\nmetadata: {name: n9}\n", []string{"create", "-f", "-"}, "create-node.txt"},
		{"", []string{"get", "node", "n9", "-o", "custom-columns=NAME:.metadata.name,TAINTS:.spec.taints[*].key,EFFECTS:.spec.taints[*].effect"}, "get-node-taints.txt"},
	} {
		if got, want := normalise(p.kubectl(t, c.stdin, c.args...)), normalise(recorded(t, c.file)); got != want {
			t.Errorf("kubectl %s (normalised):\n%s\nthe reference's:\n%s", strings.Join(c.args, " "), got, want)
		}
	}
}
