package suite

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// kubectlBinary is a kubectl to run: $KUBECTL, else one on PATH. The
// interop module's tests build one from k8s.io/kubectl and set $KUBECTL.
func kubectlBinary(t *testing.T) string {
	if k := os.Getenv("KUBECTL"); k != "" {
		return k
	}
	k, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("no kubectl: set KUBECTL or put one on PATH")
	}
	return k
}

// kubectl apply --server-side against the demo server: create, change,
// a second manager's conflict with Kubernetes' message, --force-conflicts,
// --dry-run=server, and get --show-managed-fields.
func (e env) kubectlServerSideApply(t *testing.T) {
	bin := kubectlBinary(t)
	ts := e.start(t, demo.Options{})
	namespace(t, ts.clientset(t, false), "ns1")
	k := newKubectl(t, bin, ts.URL, "ns1")
	kubectl, file := k.run, k.file
	v1 := file("cm1.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  a: \"1\"\n")
	v2 := file("cm2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  a: \"2\"\n  b: \"3\"\n")
	rival := file("rival.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  a: \"9\"\n")
	cs1 := file("cs1.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cs\ndata:\n  a: \"1\"\n")
	cs2 := file("cs2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cs\ndata:\n  a: \"2\"\n")
	widget := file("w.yaml", "apiVersion: example.apisem.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  color: red\n  size: 2\n")

	for _, tt := range []struct {
		ok   bool
		args []string
		want string
	}{
		{true, []string{"apply", "--server-side", "-f", v1}, "configmap/app serverside-applied"},
		{true, []string{"apply", "--server-side", "-f", v2}, "configmap/app serverside-applied"},
		{false, []string{"apply", "--server-side", "--field-manager", "rival", "-f", rival},
			`Apply failed with 1 conflict: conflict with "kubectl": .data.a`},
		{true, []string{"apply", "--server-side", "--field-manager", "rival", "--dry-run=server", "--force-conflicts", "-f", rival},
			"configmap/app serverside-applied (server dry run)"},
		{true, []string{"get", "cm", "app", "-o", "jsonpath={.data.a}"}, "2"},
		{true, []string{"apply", "--server-side", "--field-manager", "rival", "--force-conflicts", "-f", rival}, "configmap/app serverside-applied"},
		{true, []string{"get", "cm", "app", "-o", "yaml", "--show-managed-fields"}, "manager: rival"},
		{true, []string{"apply", "--server-side", "-f", widget}, "widget.example.apisem.dev/w serverside-applied"},
		{true, []string{"get", "widget", "w", "-o", "yaml", "--show-managed-fields"}, "f:color: {}"},
		// From client-side to server-side apply: kubectl may take over
		// what its last-applied configuration shows it set, and keeps the
		// annotation current.
		{true, []string{"apply", "-f", cs1}, "configmap/cs created"},
		{true, []string{"apply", "--server-side", "-f", cs2}, "configmap/cs serverside-applied"},
		{true, []string{"get", "cm", "cs", "-o", "jsonpath={.metadata.annotations}"}, `\"a\":\"2\"`},
	} {
		out := kubectl(tt.ok, tt.args...)
		t.Logf("kubectl %s\n%s", strings.Join(tt.args, " "), out)
		if !strings.Contains(out, tt.want) {
			t.Errorf("kubectl %s:\n%s\nwant it to contain %q", strings.Join(tt.args, " "), out, tt.want)
		}
	}
	// kubectl get hides managedFields unless asked.
	if out := kubectl(true, "get", "cm", "app", "-o", "yaml"); strings.Contains(out, "managedFields") {
		t.Errorf("get -o yaml shows managedFields:\n%s", out)
	}
}

// kubectlRunner runs kubectl against one server, in one namespace, with
// a kubeconfig and a cache of its own in a temporary directory.
type kubectlRunner struct {
	t                    *testing.T
	bin, dir, kubeconfig string
}

func newKubectl(t *testing.T, bin, url, namespace string) *kubectlRunner {
	t.Helper()
	dir := t.TempDir()
	k := &kubectlRunner{t: t, bin: bin, dir: dir, kubeconfig: filepath.Join(dir, "config")}
	cfg := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: " + url + "}}]\n" +
		"contexts: [{name: c, context: {cluster: c, namespace: " + namespace + "}}]\ncurrent-context: c\nusers: []\n"
	if err := os.WriteFile(k.kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return k
}

// run runs kubectl with args; it must succeed or fail as wantOK says. It
// returns the combined output.
func (k *kubectlRunner) run(wantOK bool, args ...string) string {
	k.t.Helper()
	cmd := exec.Command(k.bin, append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", filepath.Join(k.dir, "cache")}, args...)...)
	out, err := cmd.CombinedOutput()
	if (err == nil) != wantOK {
		k.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// file writes content to name in the directory and returns its path.
func (k *kubectlRunner) file(name, content string) string {
	k.t.Helper()
	p := filepath.Join(k.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		k.t.Fatal(err)
	}
	return p
}
