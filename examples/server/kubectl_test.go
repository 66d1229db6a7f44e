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

// spaces collapses runs of blanks, so that rows compare without
// kubectl's column widths; ages (a number and a unit) become AGE.
func spaces(s string) string {
	s = regexp.MustCompile(`[ \t]+`).ReplaceAllString(s, " ")
	return regexp.MustCompile(`(?m) [0-9]+(ms|s|m)$`).ReplaceAllString(s, " AGE")
}

// kubectl's everyday commands print what a cluster's kube-apiserver
// makes them print, with the built-in kinds served by module builtin:
// Kubernetes' printers (the columns), defaults, OpenAPI (explain) and
// server-side apply.
func TestKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kubectl")
	}
	p := mustStart(t, "-seed=false")

	if got := p.kubectl(t, "", "create", "deployment", "nginx", "--image=nginx"); got != "deployment.apps/nginx created\n" {
		t.Errorf("create deployment: %q", got)
	}
	if got := p.kubectl(t, "", "create", "service", "clusterip", "nginx", "--tcp=80:8080"); got != "service/nginx created\n" {
		t.Errorf("create service: %q", got)
	}
	p.kubectl(t, "", "create", "serviceaccount", "bot")
	p.kubectl(t, `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"leader","namespace":"kube-system"},
		"spec":{"holderIdentity":"op-1","leaseDurationSeconds":15}}`, "create", "-f", "-")

	// No controller runs: the Deployment has no ReplicaSet and no Pods
	// (kubectl leaves out kinds with nothing to show), its status is
	// empty, as a cluster shows a Deployment before its controller saw it.
	clusterIP := p.kubectl(t, "", "get", "svc", "nginx", "-o", "jsonpath={.spec.clusterIP}")
	if !strings.HasPrefix(clusterIP, "10.96.") { // the default service CIDR, 10.96.0.0/12
		t.Errorf("clusterIP %q", clusterIP)
	}
	got := spaces(p.kubectl(t, "", "get", "deploy,rs,pods,svc,sa,leases", "-A"))
	want := []string{
		"NAMESPACE NAME READY UP-TO-DATE AVAILABLE AGE",
		"default deployment.apps/nginx 0/1 0 0 AGE",
		"",
		"NAMESPACE NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE",
		"default service/nginx ClusterIP " + clusterIP + " <none> 80/TCP AGE",
		"",
		"NAMESPACE NAME AGE",
		"default serviceaccount/bot AGE",
		"",
		"NAMESPACE NAME HOLDER AGE",
		"kube-system lease.coordination.k8s.io/leader op-1 AGE",
		"",
	}
	if got != strings.Join(want, "\n") {
		t.Errorf("kubectl get deploy,rs,pods,svc,sa,leases -A:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}

	// The Deployment as a cluster defaults it.
	if got := p.kubectl(t, "", "get", "deploy", "nginx", "-o", "jsonpath={.spec.strategy}{' '}{.spec.revisionHistoryLimit}{' '}{.spec.progressDeadlineSeconds}{' '}{.spec.template.spec.containers[0].imagePullPolicy}"); got !=
		`{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"} 10 600 Always` {
		t.Errorf("defaults: %s", got)
	}

	explain := p.kubectl(t, "", "explain", "deployment.spec.strategy")
	for _, line := range []string{
		"GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nFIELD: strategy <DeploymentStrategy>\n",
		"DESCRIPTION:\n    The deployment strategy to use to replace existing pods with new ones.\n",
		"FIELDS:\n  rollingUpdate\t<RollingUpdateDeployment>\n",
		"  type\t<string>\n  enum: Recreate, RollingUpdate\n",
	} {
		if !strings.Contains(explain, line) {
			t.Errorf("kubectl explain deployment.spec.strategy lacks %q:\n%s", line, explain)
		}
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
	if got := p.kubectl(t, manifest("2"), "apply", "--server-side", "-f", "-"); got != "deployment.apps/web serverside-applied\n" {
		t.Errorf("apply --server-side: %q", got)
	}
	if got := p.kubectl(t, manifest("3"), "apply", "--server-side", "-f", "-"); got != "deployment.apps/web serverside-applied\n" {
		t.Errorf("second apply --server-side: %q", got)
	}
	if got := p.kubectl(t, "", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}{' '}{.metadata.managedFields[0].manager}{' '}{.metadata.managedFields[0].operation}"); got != "3 kubectl Apply" {
		t.Errorf("after the applies: %s; want 3 kubectl Apply", got)
	}
}
