package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/etcdstore/internal/etcdtest"
)

// The test binary is the command when this variable holds its arguments
// (one per line): the tests run it as a process of its own, which they
// stop with SIGTERM as a user would.
const argsVar = "APISERVER_TEST_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(argsVar); ok {
		os.Args = append([]string{"apiserver"}, strings.Split(args, "\n")...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// start runs the command with args until the test ends; it returns once
// the server listens (it has seeded its demo data then), or with the
// command's exit code and output if it exits first.
func start(t *testing.T, args ...string) (exitCode int, output string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), argsVar+"="+strings.Join(args, "\n"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A guard for a server that neither listens nor exits.
	guard := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer guard.Stop()
	var out strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "listening on") {
			drained := make(chan struct{})
			go func() { // the rest of its output, until it exits
				defer close(drained)
				for sc.Scan() {
				}
			}()
			t.Cleanup(func() {
				cmd.Process.Signal(syscall.SIGTERM)
				kill := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() }) // a guard
				defer kill.Stop()
				<-drained
				if err := cmd.Wait(); err != nil {
					t.Errorf("the server's exit: %v", err)
				}
			})
			return -1, out.String()
		}
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	return 0, out.String()
}

// -storage-media-type chooses how values are stored, as kube-apiserver's
// flag does: by default ConfigMaps, which have a protobuf form, are in the
// "k8s\x00" envelope and Widgets, which have none, are JSON; with
// application/json every value is JSON. Another media type is refused.
func TestStorageMediaType(t *testing.T) {
	e := etcdtest.Start(t, t.TempDir(), "http://127.0.0.1:0")
	c := etcdtest.Client(t, e.URL)
	for _, tc := range []struct {
		name, mediaType string
		protobuf        bool
	}{
		{"default", "", true},
		{"protobuf", "application/vnd.kubernetes.protobuf", true},
		{"json", "application/json", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := "/" + tc.name
			args := []string{"-etcd-servers", e.URL, "-etcd-prefix", prefix, "-addr", "127.0.0.1:0", "-etcd-compaction-interval", "0"}
			if tc.mediaType != "" {
				args = append(args, "-storage-media-type", tc.mediaType)
			}
			if code, out := start(t, args...); code != -1 {
				t.Fatalf("the server exited with %d:\n%s", code, out)
			}
			raw := func(key string) string {
				t.Helper()
				resp, err := c.Get(context.Background(), prefix+key)
				if err != nil || len(resp.Kvs) != 1 {
					t.Fatalf("etcd get %s: %v %v", prefix+key, resp, err)
				}
				return string(resp.Kvs[0].Value)
			}
			cm := raw("/configmaps/demo/app-config")
			if e, err := envelope.ConsumeEnvelope([]byte(cm)); tc.protobuf && (err != nil || e.Kind != "ConfigMap" || e.APIVersion != "v1") {
				t.Errorf("configmap value %q (%v); want a v1 ConfigMap in the protobuf envelope", cm, err)
			}
			if !tc.protobuf && (!strings.HasPrefix(cm, "{") || !strings.Contains(cm, `"name":"app-config"`)) {
				t.Errorf("configmap value %q; want JSON", cm)
			}
			if w := raw("/example.apisem.dev/widgets/demo/gear"); !strings.HasPrefix(w, "{") {
				t.Errorf("widget value %q; want JSON", w)
			}
		})
	}
	code, out := start(t, "-etcd-servers", e.URL, "-storage-media-type", "application/yaml")
	if want := `-storage-media-type \"application/yaml\": supported media types are application/json and application/vnd.kubernetes.protobuf`; code != 2 || !strings.Contains(out, want) {
		t.Errorf("application/yaml: exit %d\n%s\nwant 2 and %s", code, out, want)
	}
}

// The objects and definitions outlive the server: started again on the
// same etcd and prefix, with the same -crd-dir (whose definitions are
// stored already) and demo data, it serves what the first run stored.
func TestRestartKeepsData(t *testing.T) {
	e := etcdtest.Start(t, t.TempDir(), "http://127.0.0.1:0")
	c := etcdtest.Client(t, e.URL)
	args := []string{"-etcd-servers", e.URL, "-addr", "127.0.0.1:0", "-etcd-compaction-interval", "0", "-crd-dir", "../../../crd/testdata"}
	var uids []string
	for run := range 2 {
		t.Run(fmt.Sprint("run", run+1), func(t *testing.T) {
			code, out := start(t, args...)
			if code != -1 {
				t.Fatalf("the server exited with %d:\n%s", code, out)
			}
			checkHealth(t, out)
			resp, err := c.Get(context.Background(), "/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com")
			if err != nil || len(resp.Kvs) != 1 {
				t.Fatalf("the definition in etcd: %v %v", resp, err)
			}
			var d struct {
				Metadata struct{ UID string } `json:"metadata"`
			}
			if err := json.Unmarshal(resp.Kvs[0].Value, &d); err != nil {
				t.Fatal(err)
			}
			uids = append(uids, d.Metadata.UID)
		})
	}
	if len(uids) != 2 || uids[0] != uids[1] || uids[0] == "" {
		t.Errorf("the definition's uid in the two runs: %q; want the first one kept", uids)
	}
}

// checkHealth checks the health endpoints of the server whose output is
// out: ready with kube-apiserver's etcd checks, the replica's, and those
// of the definitions' controller and -crd-dir.
func checkHealth(t *testing.T, out string) {
	t.Helper()
	_, url, ok := strings.Cut(out, "listening on ")
	if !ok {
		t.Fatalf("no address in the output:\n%s", out)
	}
	url, _, _ = strings.Cut(url, "\n")
	get := func(path string) (int, string) {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// The controller closes Synced right after the pass that established
	// the definitions, which may come a moment after the banner.
	for i := 0; ; i++ {
		code, body := get("/readyz?verbose")
		want := "[+]ping ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]replica-sync ok\n" +
			"[+]poststarthook/crd-informer-synced ok\n[+]poststarthook/install-crd-dir ok\n[+]shutdown ok\nreadyz check passed\n"
		if code == 200 && body == want {
			break
		}
		if i == 100 {
			t.Fatalf("/readyz?verbose: %d %q; want 200 %q", code, body, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, body := get("/livez?verbose"); code != 200 || body != "[+]ping ok\n[+]etcd ok\nlivez check passed\n" {
		t.Errorf("/livez?verbose: %d %q", code, body)
	}
}
