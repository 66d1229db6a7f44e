package interop

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/crd/cel"
	"github.com/apisem/apisem/examples/apiserver/demo"
)

// The tests below install the CustomResourceDefinitions of four projects
// nobody here wrote, as their users install them, on the example server:
// gateway-api's standard channel, cert-manager, prometheus-operator and
// cluster-api (43 definitions). Their YAML is read from the projects'
// module zips, which `go mod download` fetches from the module proxy at
// test time; nothing of theirs is copied here. Without the go command or
// the proxy the tests are skipped.

// realCRDSource is where a project keeps the definitions its users
// install, in its module.
type realCRDSource struct {
	module, version string
	dirs            []string
}

var realCRDSources = []realCRDSource{
	{"sigs.k8s.io/gateway-api", "v1.6.3", []string{"config/crd/standard"}},
	{"github.com/cert-manager/cert-manager", "v1.21.2", []string{"deploy/crds"}},
	{"github.com/prometheus-operator/prometheus-operator", "v0.85.0", []string{"example/prometheus-operator-crd"}},
	{"sigs.k8s.io/cluster-api", "v1.14.2", []string{"core/config/crd/bases", "bootstrap/kubeadm/config/crd/bases",
		"controlplane/kubeadm/config/crd/bases"}},
}

// realCRDCount is how many definitions the sources hold.
const realCRDCount = 43

var (
	moduleDirsOnce sync.Once
	moduleDirs     map[string]string
	moduleDirsErr  error
)

// moduleDir returns the directory of a module version in the module
// cache, downloading it if need be.
func moduleDir(t testing.TB, module, version string) string {
	t.Helper()
	moduleDirsOnce.Do(func() {
		moduleDirs = map[string]string{}
		for _, src := range realCRDSources {
			out, err := exec.Command("go", "mod", "download", "-json", src.module+"@"+src.version).Output()
			if err != nil {
				moduleDirsErr = errors.Join(err, errors.New(string(out)))
				return
			}
			var m struct{ Dir, Error string }
			if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
				moduleDirsErr = errors.Join(err, errors.New(m.Error))
				return
			}
			moduleDirs[src.module+"@"+src.version] = m.Dir
		}
	})
	if moduleDirsErr != nil {
		t.Skipf("the projects' modules cannot be downloaded: %v", moduleDirsErr)
	}
	return moduleDirs[module+"@"+version]
}

// realCRDs reads the 43 definitions.
func realCRDs(t testing.TB) []*crd.CustomResourceDefinition {
	t.Helper()
	var defs []*crd.CustomResourceDefinition
	for _, src := range realCRDSources {
		root := moduleDir(t, src.module, src.version)
		for _, d := range src.dirs {
			ds, err := crd.Load(filepath.Join(root, d))
			if err != nil {
				t.Fatal(err)
			}
			defs = append(defs, ds...)
		}
	}
	if len(defs) != realCRDCount {
		t.Fatalf("read %d definitions; want %d", len(defs), realCRDCount)
	}
	return defs
}

// installReal installs defs on s one by one and returns the errors of
// those that did not become Established, by name.
func installReal(t testing.TB, s *demo.Server, defs []*crd.CustomResourceDefinition) map[string]error {
	t.Helper()
	failed := map[string]error{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, not a sync
	defer cancel()
	for _, d := range defs {
		if err := s.CustomResourceDefinitions().Install(ctx, d.DeepCopy()); err != nil {
			failed[d.Name] = err
		}
	}
	return failed
}

func newRealServer(t testing.TB) *demo.Server {
	t.Helper()
	s, err := demo.NewWith(demo.Options{}, crd.Options{Rules: cel.Compiler{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s
}

// TestRealCRDs installs the 43 definitions with their validation rules
// evaluated, lists them as kubectl get crd does, and lists each of their
// resources as a Table with its printer columns.
func TestRealCRDs(t *testing.T) {
	defs := realCRDs(t)
	s := newRealServer(t)
	failed := installReal(t, s, defs)
	for name, err := range failed {
		t.Errorf("%s is not Established: %v", name, err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()

	table := realGetTable(t, ts.URL+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
	if len(table.Rows) != realCRDCount {
		t.Errorf("kubectl get crd lists %d definitions; want %d", len(table.Rows), realCRDCount)
	}
	for _, d := range defs {
		for _, v := range d.Spec.Versions {
			if !v.Served {
				continue
			}
			want := []string{"Name"}
			for _, c := range v.AdditionalPrinterColumns {
				want = append(want, c.Name)
			}
			if len(v.AdditionalPrinterColumns) == 0 {
				want = append(want, "Age")
			}
			table := realGetTable(t, ts.URL+"/apis/"+d.Spec.Group+"/"+v.Name+"/"+d.Spec.Names.Plural)
			var got []string
			for _, c := range table.ColumnDefinitions {
				got = append(got, c.Name)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s/%s %s: columns %q; want %q", d.Spec.Group, v.Name, d.Spec.Names.Plural, got, want)
			}
		}
	}
}

// realExamples are where the projects keep example objects of their
// kinds, and how many of them are at least expected to be created.
var realExamples = []struct {
	module, version, dir string
	min                  int
}{
	{"sigs.k8s.io/gateway-api", "v1.6.3", "examples/standard", 60},
	{"github.com/prometheus-operator/prometheus-operator", "v0.85.0", "example", 15},
}

// realExamplesRefused are the examples that their definitions refuse,
// and the error a cluster gives: the selector the ServiceMonitor's
// schema requires is missing.
var realExamplesRefused = map[string]string{
	"ServiceMonitor/servicemonitor-example": `spec.selector: Required value`,
}

// TestRealCRDExamples creates the projects' own example objects (those
// of gateway-api's standard channel and prometheus-operator's) on the
// server and reads them back: each is stored, and printed in its Table
// with the columns of its definition.
func TestRealCRDExamples(t *testing.T) {
	for _, ex := range realExamples {
		t.Run(filepath.Base(ex.module), func(t *testing.T) {
			testRealExamples(t, ex.module, ex.version, ex.dir, ex.min)
		})
	}
}

func testRealExamples(t *testing.T, module, version, dir string, min int) {
	defs := realCRDs(t)
	s := newRealServer(t)
	if failed := installReal(t, s, defs); len(failed) > 0 {
		t.Fatalf("not Established: %v", failed)
	}
	plural := map[string]*crd.CustomResourceDefinition{}
	for _, d := range defs {
		plural[d.Spec.Group+"/"+d.Spec.Names.Kind] = d
	}
	ts := httptest.NewServer(s)
	defer ts.Close()

	root := moduleDir(t, module, version)
	var objs []map[string]any
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for doc := range strings.SplitSeq(string(b), "\n---") {
			var o any // a document may be a list (kustomize patches, mixins)
			if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
				return err
			}
			if m, ok := o.(map[string]any); ok {
				objs = append(objs, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	created := 0
	namespaces := map[string]bool{} // the example server starts with none
	for _, o := range objs {
		kind, _ := o["kind"].(string)
		apiVersion, _ := o["apiVersion"].(string)
		group, _, _ := strings.Cut(apiVersion, "/")
		md, _ := o["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		if kind == "Namespace" {
			if !namespaces[name] {
				realPost(t, ts.URL+"/api/v1/namespaces", o, http.StatusCreated)
				namespaces[name] = true
			}
			continue
		}
		d := plural[group+"/"+kind]
		if d == nil || name == "" {
			continue // a Service, a Deployment, a kustomize patch: not this test's
		}
		url := ts.URL + "/apis/" + apiVersion + "/"
		if d.Spec.Scope == crd.NamespaceScoped {
			ns, _ := md["namespace"].(string)
			if ns == "" {
				ns = "default"
			}
			if !namespaces[ns] {
				realPost(t, ts.URL+"/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": ns}}, http.StatusCreated)
				namespaces[ns] = true
			}
			url += "namespaces/" + ns + "/"
		}
		url += d.Spec.Names.Plural
		code, body := realDo(t, "POST", url, o)
		if code == http.StatusConflict {
			continue // examples reuse names across files
		}
		if want, ok := realExamplesRefused[kind+"/"+name]; ok {
			if code != http.StatusUnprocessableEntity || !strings.Contains(body, want) {
				t.Errorf("creating %s %s: %d %s; want 422 with %q", kind, name, code, body, want)
			}
			continue
		}
		if code != http.StatusCreated {
			t.Errorf("creating %s %s: %d %s", kind, name, code, body)
			continue
		}
		created++
		// Stored: the object read back has the example's spec.
		_, got := realDo(t, "GET", url+"/"+name, nil)
		var stored map[string]any
		if err := json.Unmarshal([]byte(got), &stored); err != nil {
			t.Fatal(err)
		}
		if !specContains(stored["spec"], o["spec"]) {
			t.Errorf("%s %s stored as %s; want its spec %v", kind, name, got, o["spec"])
		}
		// Printed: a row with the name and one cell per column.
		table := realGetTable(t, url)
		i := slices.IndexFunc(table.Rows, func(r realTableRow) bool { return len(r.Cells) > 0 && r.Cells[0] == name })
		if i < 0 {
			t.Errorf("%s %s is not in its Table: %+v", kind, name, table.Rows)
			continue
		}
		if len(table.Rows[i].Cells) != len(table.ColumnDefinitions) {
			t.Errorf("%s %s: %d cells for %d columns", kind, name, len(table.Rows[i].Cells), len(table.ColumnDefinitions))
		}
		if kind == "Gateway" {
			if cls := o["spec"].(map[string]any)["gatewayClassName"]; table.Rows[i].Cells[1] != cls {
				t.Errorf("Gateway %s: Class cell %v; want %v", name, table.Rows[i].Cells[1], cls)
			}
		}
	}
	if created < min {
		t.Errorf("created %d of the examples; want at least %d", created, min)
	}
	t.Logf("created and read back %d example objects of %s", created, module)
}

// specContains reports whether every member the example sets is stored
// with its value; the server may add defaults.
func specContains(stored, example any) bool {
	switch e := example.(type) {
	case map[string]any:
		s, ok := stored.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range e {
			if !specContains(s[k], v) {
				return false
			}
		}
		return true
	case []any:
		s, ok := stored.([]any)
		if !ok || len(s) != len(e) {
			return false
		}
		for i := range e {
			if !specContains(s[i], e[i]) {
				return false
			}
		}
		return true
	case float64:
		switch s := stored.(type) {
		case float64:
			return s == e
		case int64:
			return float64(s) == e
		}
		return false
	}
	return stored == example
}

type realTableRow struct {
	Cells []any `json:"cells"`
}

type realTable struct {
	ColumnDefinitions []struct {
		Name string `json:"name"`
	} `json:"columnDefinitions"`
	Rows []realTableRow `json:"rows"`
}

func realGetTable(t testing.TB, url string) realTable {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	var tb realTable
	if err := json.Unmarshal(b, &tb); err != nil {
		t.Fatal(err)
	}
	return tb
}

func realDo(t testing.TB, method, url string, body any) (int, string) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func realPost(t testing.TB, url string, body any, want int) {
	t.Helper()
	if code, b := realDo(t, "POST", url, body); code != want {
		t.Fatalf("POST %s: %d %s", url, code, b)
	}
}

// BenchmarkInstallRealCRDs installs the 43 definitions on a new server
// until all are Established, with and without their validation rules
// compiled. Besides the time it reports the process's CPU time per
// install (cpu-ms/op), which a loaded machine does not inflate.
func BenchmarkInstallRealCRDs(b *testing.B) {
	defs := realCRDs(b)
	for _, bc := range []struct {
		name  string
		opts  crd.Options
		batch bool // all created, then all waited for, as kubectl apply -f dir
	}{
		{"rules", crd.Options{Rules: cel.Compiler{}}, false},
		{"no-rules", crd.Options{}, false},
		{"no-rules-batch", crd.Options{}, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				s, err := demo.NewWith(demo.Options{}, bc.opts)
				if err != nil {
					b.Fatal(err)
				}
				if bc.batch {
					copies := make([]*crd.CustomResourceDefinition, len(defs))
					for i, d := range defs {
						copies[i] = d.DeepCopy()
					}
					if err := s.CustomResourceDefinitions().Install(context.Background(), copies...); err != nil {
						b.Fatal(err)
					}
				} else if failed := installReal(b, s, defs); len(failed) > 0 {
					b.Fatal(failed)
				}
				_ = s.Shutdown(context.Background())
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
