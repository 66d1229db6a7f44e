package app

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

func gadgetCRD(plural string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + `.tree.apisem.dev
spec:
  group: tree.apisem.dev
  scope: Namespaced
  names: {plural: ` + plural + `, singular: ` + strings.TrimSuffix(plural, "s") + `, kind: K` + strings.TrimSuffix(plural, "s") + `, listKind: K` + strings.TrimSuffix(plural, "s") + `List}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`
}

// -crd-dir reads the definitions of the directory's subdirectories too,
// as projects ship them in trees (config/crd/bases), skipping hidden
// directories; a directory without any is worth a warning.
func TestInstallCRDs(t *testing.T) {
	dir := t.TempDir()
	for path, body := range map[string]string{
		"top.yaml":                   gadgetCRD("tops"),
		"bases/nested.yaml":          gadgetCRD("nesteds"),
		"bases/deeper/deepest.json":  "", // not a definition: skipped
		"bases/deeper/deepest2.yaml": gadgetCRD("deepests"),
		"bases/README.md":            "# not YAML",
		".git/hidden.yaml":           gadgetCRD("hiddens"),
	} {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defs, err := loadCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	if got, want := strings.Join(names, " "), "tops.tree.apisem.dev nesteds.tree.apisem.dev deepests.tree.apisem.dev"; got != want {
		t.Errorf("loadCRDs = %s; want %s", got, want)
	}

	s, err := demo.New(demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	if err := installCRDDir(t.Context(), log, dir, s); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, err := s.CustomResourceDefinitions().WaitEstablished(t.Context(), n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if strings.Contains(logs.String(), "WARN") {
		t.Errorf("warned with definitions found:\n%s", logs.String())
	}
	logs.Reset()
	if err := installCRDDir(t.Context(), log, filepath.Join(dir, "bases", "deeper", "none"), s); err == nil {
		t.Error("a missing directory was accepted")
	}
	empty := t.TempDir()
	if err := installCRDDir(t.Context(), log, empty, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "level=WARN msg=\"no CustomResourceDefinitions found") {
		t.Errorf("no warning for a directory without definitions:\n%s", logs.String())
	}
}
