package interop

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMain builds kubectl from k8s.io/kubectl (./internal/kubectl) for the
// suite's kubectl tests, which would otherwise skip wherever no kubectl is
// installed, CI included. $KUBECTL, if set, names one to use instead. The
// build is once per run and mostly cached: a cold one compiles kubectl's
// dependencies (some 40s on two cores), a warm one only links.
func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := buildKubectl()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// buildKubectl builds kubectl into a new temporary directory, which it
// returns, and points $KUBECTL at it; it does nothing when $KUBECTL is
// set or the run is -short.
func buildKubectl() (string, error) {
	if os.Getenv("KUBECTL") != "" || testing.Short() {
		return "", nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building kubectl: %v", err)
	}
	dir, err := os.MkdirTemp("", "apisem-kubectl-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "kubectl")
	out, err := exec.Command(goTool, "build", "-o", bin, "./internal/kubectl").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("building kubectl: %v\n%s", err, out)
	}
	return dir, os.Setenv("KUBECTL", bin)
}
