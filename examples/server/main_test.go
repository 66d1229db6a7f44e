package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/etcdstore/embedded"
)

// The test binary is the command when this variable holds its arguments
// (one per line): the tests run it as a process of its own, which they
// stop with SIGTERM as a user would.
const argsVar = "APISEM_SERVER_TEST_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(argsVar); ok {
		os.Args = append([]string{"server"}, strings.Split(args, "\n")...)
		main()
		os.Exit(0)
	}
	code := m.Run()
	if kubectlDir != "" {
		os.RemoveAll(kubectlDir)
	}
	os.Exit(code)
}

// proc is a running server.
type proc struct {
	url    string // http://host:port, once it listens
	out    string // its output until then
	code   int    // its exit code if it exited before it listened, else -1
	stopFn func() error
}

// stop stops the server with SIGTERM and waits for its exit.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	if err := p.stopFn(); err != nil {
		t.Errorf("the server's exit: %v", err)
	}
}

// start runs the command with args; it returns once the server listens
// (it has seeded its demo data then), or with the command's exit code
// and output if it exits first. Cleanup stops it if the test has not.
func start(t *testing.T, args ...string) *proc {
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
	guard := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer guard.Stop()
	var out strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if _, url, ok := strings.Cut(sc.Text(), "listening on "); ok {
			url, _, _ = strings.Cut(url, " ") // "https://... (TLS, ...)"
			drained := make(chan struct{})
			go func() { // the rest of its output, until it exits
				defer close(drained)
				for sc.Scan() {
				}
			}()
			var stopped bool
			var stopErr error
			p := &proc{url: url, out: out.String(), code: -1}
			p.stopFn = func() error {
				if !stopped {
					stopped = true
					cmd.Process.Signal(syscall.SIGTERM)
					kill := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() }) // a guard
					defer kill.Stop()
					<-drained
					stopErr = cmd.Wait()
				}
				return stopErr
			}
			t.Cleanup(func() { p.stop(t) })
			return p
		}
	}
	err = cmd.Wait()
	p := &proc{out: out.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		p.code = ee.ExitCode()
	}
	return p
}

// mustStart is start for a server that must listen.
func mustStart(t *testing.T, args ...string) *proc {
	t.Helper()
	p := start(t, args...)
	if p.code != -1 {
		t.Fatalf("the server exited with %d:\n%s", p.code, p.out)
	}
	return p
}

// call sends a request with a JSON body (nil for none) and returns the
// status code and the decoded response.
func (p *proc) call(t *testing.T, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, p.url+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: %d, body not JSON: %v", method, path, resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

func metadata(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	return m
}

// startEtcd starts an etcd in the test process, as an etcd of the user's.
func startEtcd(t *testing.T) (url string, client *clientv3.Client) {
	t.Helper()
	e, err := embedded.Start(embedded.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{e.Endpoint()}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return e.Endpoint(), c
}

// The objects, definitions and revisions outlive the server, in the
// embedded etcd (-etcd-data-dir) as in an etcd of the user's
// (-etcd-servers): started again with the same flags (and -crd-dir,
// whose definition is stored already, and demo data), it serves what the
// first run stored, at the resourceVersions it had, and its next write
// has a later one.
func TestRestartKeepsData(t *testing.T) {
	for _, tc := range []struct {
		name    string
		storage func(t *testing.T) []string
	}{
		{"embedded", func(t *testing.T) []string { return []string{"-etcd-data-dir", t.TempDir()} }},
		{"external", func(t *testing.T) []string {
			url, _ := startEtcd(t)
			return []string{"-etcd-servers", url}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.storage(t), "-addr", "127.0.0.1:0", "-etcd-compaction-interval", "0", "-crd-dir", "../../crd/testdata/definitions")
			const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com"
			const cmPath = "/api/v1/namespaces/demo/configmaps/kept"

			p := mustStart(t, args...)
			checkHealth(t, p)
			if tc.name == "embedded" {
				// A second server on the directory is refused, not left
				// waiting for etcd's lock.
				second := start(t, args...)
				if want := "is in use by another process"; second.code != 1 || !strings.Contains(second.out, want) {
					t.Errorf("a second server on the directory: exit %d\n%s\nwant 1 and %q", second.code, second.out, want)
				}
			}
			code, cm := p.call(t, "POST", "/api/v1/namespaces/demo/configmaps", map[string]any{
				"metadata": map[string]any{"name": "kept"}, "data": map[string]any{"k": "v"}})
			if code != http.StatusCreated {
				t.Fatalf("create: %d %v", code, cm)
			}
			_, def := p.call(t, "GET", crdPath, nil)
			boot := bootstrapped(t, p)
			// A deleted bootstrap object is made again at the next start.
			if code, _ := p.call(t, "DELETE", "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:basic-user", nil); code != http.StatusOK {
				t.Fatalf("delete system:basic-user: %d", code)
			}
			p.stop(t)

			p = mustStart(t, args...)
			checkHealth(t, p)
			code, got := p.call(t, "GET", cmPath, nil)
			if code != http.StatusOK {
				t.Fatalf("get after the restart: %d %v", code, got)
			}
			for _, f := range []string{"uid", "resourceVersion", "creationTimestamp"} {
				if metadata(got)[f] != metadata(cm)[f] {
					t.Errorf("metadata.%s after the restart: %v; want %v", f, metadata(got)[f], metadata(cm)[f])
				}
			}
			if d, _ := got["data"].(map[string]any); d["k"] != "v" {
				t.Errorf("data after the restart: %v", got["data"])
			}
			// The bootstrap objects are those of the first start, kept (not
			// made again, not doubled), and the deleted one is back.
			boot2 := bootstrapped(t, p)
			for k, uid := range boot {
				if k != "clusterroles/system:basic-user" && boot2[k] != uid {
					t.Errorf("%s after the restart: uid %q, want %q", k, boot2[k], uid)
				}
			}
			if len(boot2) != len(boot) || boot2["clusterroles/system:basic-user"] == "" {
				t.Errorf("after the restart %d bootstrap objects (system:basic-user %q), want %d and it made again",
					len(boot2), boot2["clusterroles/system:basic-user"], len(boot))
			}
			if strings.Contains(p.out, "bootstrap objects") {
				t.Errorf("the restart's bootstrap failed:\n%s", p.out)
			}
			_, def2 := p.call(t, "GET", crdPath, nil)
			if uid := metadata(def)["uid"]; uid == nil || metadata(def2)["uid"] != uid {
				t.Errorf("the definition's uid: %v, then %v; want it kept", uid, metadata(def2)["uid"])
			}
			code, next := p.call(t, "POST", "/api/v1/namespaces/demo/configmaps", map[string]any{"metadata": map[string]any{"name": "next"}})
			if code != http.StatusCreated {
				t.Fatalf("create after the restart: %d %v", code, next)
			}
			before, _ := strconv.ParseUint(metadata(cm)["resourceVersion"].(string), 10, 64)
			after, _ := strconv.ParseUint(metadata(next)["resourceVersion"].(string), 10, 64)
			if after <= before {
				t.Errorf("resourceVersion of a write after the restart: %d; want more than %d, the first run's", after, before)
			}
		})
	}
}

// bootstrapped returns the uids of the objects a server makes at start
// (builtin.Bootstrap), by resource/namespace/name.
func bootstrapped(t *testing.T, p *proc) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, path := range []string{
		"/api/v1/namespaces/default/services",
		"/apis/rbac.authorization.k8s.io/v1/clusterroles",
		"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
		"/apis/rbac.authorization.k8s.io/v1/roles",
		"/apis/rbac.authorization.k8s.io/v1/rolebindings",
		"/apis/scheduling.k8s.io/v1/priorityclasses",
		"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
		"/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations",
	} {
		code, l := p.call(t, "GET", path, nil)
		items, _ := l["items"].([]any)
		if code != http.StatusOK || len(items) == 0 {
			t.Fatalf("GET %s: %d, %d items", path, code, len(items))
		}
		resource := path[strings.LastIndex(path, "/")+1:]
		for _, it := range items {
			m := metadata(it.(map[string]any))
			ns, _ := m["namespace"].(string)
			key := resource + "/" + m["name"].(string)
			if ns != "" {
				key = resource + "/" + ns + "/" + m["name"].(string)
			}
			out[key], _ = m["uid"].(string)
		}
	}
	return out
}

// checkHealth checks the health endpoints of a server on etcd: ready
// with kube-apiserver's etcd checks, the replica's, and those of the
// definitions' controller and -crd-dir.
func checkHealth(t *testing.T, p *proc) {
	t.Helper()
	get := func(path string) (int, string) {
		resp, err := http.Get(p.url + path)
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

// -storage-media-type chooses how values are stored, as kube-apiserver's
// flag does: by default ConfigMaps, which have a protobuf form, are in the
// "k8s\x00" envelope and Widgets, which have none, are JSON; with
// application/json every value is JSON. Another media type is refused.
func TestStorageMediaType(t *testing.T) {
	url, c := startEtcd(t)
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
			args := []string{"-etcd-servers", url, "-etcd-prefix", prefix, "-addr", "127.0.0.1:0", "-etcd-compaction-interval", "0"}
			if tc.mediaType != "" {
				args = append(args, "-storage-media-type", tc.mediaType)
			}
			p := mustStart(t, args...)
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

			// Versions of one storage: HPAs read through the other
			// version, an events.k8s.io Event under core's key and read
			// through core/v1, each value in the storage version and
			// naming it, whatever version wrote it, as kube-apiserver's
			// (autoscaling/v2, and v1 for Events: recorded in
			// etcdstore/serverstore/testdata/reference-v1.37.1-etcd-values.txt).
			if code, obj := p.call(t, "POST", "/apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers", map[string]any{
				"metadata": map[string]any{"name": "h"},
				"spec": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3,
					"metrics": []any{map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu",
						"target": map[string]any{"type": "Utilization", "averageUtilization": 60}}}}},
			}); code != 201 {
				t.Fatalf("create hpa: %d %v", code, obj)
			}
			if code, obj := p.call(t, "GET", "/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers/h", nil); code != 200 ||
				obj["spec"].(map[string]any)["targetCPUUtilizationPercentage"] != float64(60) {
				t.Errorf("hpa read through v1: %d %v", code, obj)
			}
			if code, obj := p.call(t, "POST", "/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers", map[string]any{
				"metadata": map[string]any{"name": "h1"},
				"spec": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3,
					"targetCPUUtilizationPercentage": 50},
			}); code != 201 {
				t.Fatalf("create hpa through v1: %d %v", code, obj)
			}
			if code, obj := p.call(t, "GET", "/apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers/h1", nil); code != 200 ||
				len(obj["spec"].(map[string]any)["metrics"].([]any)) != 1 {
				t.Errorf("v1 hpa read through v2: %d %v", code, obj)
			}
			// An update that changes nothing, through either version,
			// writes nothing (once the object has no managedFields of the
			// other version, which package managedfields would drop).
			const h1 = "/namespaces/demo/horizontalpodautoscalers/h1"
			_, obj := p.call(t, "GET", "/apis/autoscaling/v2"+h1, nil)
			metadata(obj)["managedFields"] = []any{map[string]any{}}
			code, obj := p.call(t, "PUT", "/apis/autoscaling/v2"+h1, obj)
			if code != 200 {
				t.Fatalf("clearing managedFields: %d %v", code, obj)
			}
			rv := metadata(obj)["resourceVersion"]
			for _, v := range []string{"v1", "v2", "v1"} {
				_, obj := p.call(t, "GET", "/apis/autoscaling/"+v+h1, nil)
				if code, obj := p.call(t, "PUT", "/apis/autoscaling/"+v+h1, obj); code != 200 || metadata(obj)["resourceVersion"] != rv {
					t.Errorf("an update through %s that changes nothing: %d, resourceVersion %v, want %v", v, code, metadata(obj)["resourceVersion"], rv)
				}
			}
			if code, obj := p.call(t, "POST", "/apis/events.k8s.io/v1/namespaces/demo/events", map[string]any{
				"metadata": map[string]any{"name": "e"}, "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "c",
				"reportingInstance": "i", "action": "A", "reason": "R", "note": "hello", "type": "Normal",
				"regarding": map[string]any{"kind": "Pod", "namespace": "demo", "name": "p"},
			}); code != 201 {
				t.Fatalf("create event: %d %v", code, obj)
			}
			if code, obj := p.call(t, "GET", "/api/v1/namespaces/demo/events/e", nil); code != 200 || obj["message"] != "hello" {
				t.Errorf("event read through core/v1: %d %v", code, obj)
			}
			if code, obj := p.call(t, "GET", "/apis/events.k8s.io/v1/namespaces/demo/events/e", nil); code != 200 || obj["note"] != "hello" {
				t.Errorf("event read through events.k8s.io/v1: %d %v", code, obj)
			}
			for key, want := range map[string]string{"/horizontalpodautoscalers/demo/h": "autoscaling/v2",
				"/horizontalpodautoscalers/demo/h1": "autoscaling/v2", "/events/demo/e": "v1"} {
				v := raw(key)
				if e, err := envelope.ConsumeEnvelope([]byte(v)); tc.protobuf && (err != nil || e.APIVersion != want) {
					t.Errorf("%s: %q (%v); want %s in the envelope", key, v, err, want)
				}
				var tm struct{ APIVersion string }
				if err := json.Unmarshal([]byte(v), &tm); !tc.protobuf && (err != nil || tm.APIVersion != want) {
					t.Errorf("%s: %q (%v); want JSON with apiVersion %s", key, v, err, want)
				}
			}
		})
	}
}

// Flags that cannot work are refused before anything starts, with exit
// code 2, as flag errors are.
func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-etcd-servers", "http://127.0.0.1:2379", "-etcd-data-dir", "x"},
			"-etcd-servers and -etcd-data-dir exclude each other: use an etcd of yours or the embedded one"},
		{[]string{"-etcd-data-dir", "x", "-storage-media-type", "application/yaml"},
			`-storage-media-type "application/yaml": supported media types are application/json and application/vnd.kubernetes.protobuf`},
		{[]string{"-delegate-in-cluster", "-kubeconfig", "k"},
			"-delegate-in-cluster and the -*kubeconfig flags exclude each other"},
	} {
		p := start(t, tc.args...)
		if p.code != 2 || !strings.Contains(p.out, tc.want) {
			t.Errorf("%q: exit %d\n%s\nwant 2 and %s", tc.args, p.code, p.out, tc.want)
		}
	}
}

// fakeEtcd answers etcd's Maintenance Status call with a version, as
// an etcd of that version would.
type fakeEtcd struct {
	pb.UnimplementedMaintenanceServer
	version string
}

func (f *fakeEtcd) Status(context.Context, *pb.StatusRequest) (*pb.StatusResponse, error) {
	return &pb.StatusResponse{Header: &pb.ResponseHeader{}, Version: f.version}, nil
}

// An etcd older than Kubernetes requires for progress requests is
// refused at start, with the reason.
func TestTooOldEtcd(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	pb.RegisterMaintenanceServer(s, &fakeEtcd{version: "3.4.23"})
	go s.Serve(l)
	t.Cleanup(s.Stop)
	url := "http://" + l.Addr().String()
	p := start(t, "-etcd-servers", url, "-addr", "127.0.0.1:0")
	want := fmt.Sprintf("etcd at %s: etcd 3.4.23 is too old: its watch progress requests, on which consistent reads rely", url)
	if p.code != 1 || !strings.Contains(p.out, want) {
		t.Errorf("exit %d\n%s\nwant 1 and %s", p.code, p.out, want)
	}
}

// The server evaluates the x-kubernetes-validations rules of a
// definition with Kubernetes' CEL code: an object that breaks a rule is
// refused with the rule's message, one that keeps it is stored.
func TestCELRules(t *testing.T) {
	p := mustStart(t, "-addr", "127.0.0.1:0", "-crd-dir", "testdata/cel")
	const path = "/apis/example.com/v1/namespaces/demo/gadgets"
	gadget := func(name string, lo, hi int) map[string]any {
		return map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"min": lo, "max": hi}}
	}
	code, st := p.call(t, "POST", path, gadget("bad", 5, 2))
	want := `Gadget.example.com "bad" is invalid: spec: Invalid value: min 5 exceeds max 2`
	if code != http.StatusUnprocessableEntity || st["reason"] != "Invalid" || st["message"] != want {
		t.Errorf("create breaking a rule: %d %v; want 422 Invalid %q", code, st, want)
	}
	if code, obj := p.call(t, "POST", path, gadget("good", 2, 5)); code != http.StatusCreated {
		t.Errorf("create keeping the rules: %d %v", code, obj)
	}
}

// fakeHost is the host cluster of an aggregated API server: it reviews
// tokens ("alice-token" is alice, of group devs) and permissions (alice
// may list configmaps, nothing else), as kube-apiserver's TokenReview
// and SubjectAccessReview APIs do, in whichever encoding client-go sends.
func fakeHost(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
	if err != nil || r.Method != "POST" {
		http.Error(w, fmt.Sprint("bad request: ", err), http.StatusBadRequest)
		return
	}
	switch o := obj.(type) {
	case *authenticationv1.TokenReview:
		if o.Spec.Token == "alice-token" {
			o.Status = authenticationv1.TokenReviewStatus{Authenticated: true,
				User: authenticationv1.UserInfo{Username: "alice", Groups: []string{"devs"}}}
		}
	case *authorizationv1.SubjectAccessReview:
		ra := o.Spec.ResourceAttributes
		o.Status.Allowed = o.Spec.User == "alice" && ra != nil && ra.Verb == "list" && ra.Resource == "configmaps"
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(obj)
}

// With -kubeconfig the server is an aggregated API server of that
// cluster: HTTPS, bearer tokens and permissions reviewed by the cluster.
func TestDelegation(t *testing.T) {
	host := httptest.NewServer(http.HandlerFunc(fakeHost))
	t.Cleanup(host.Close)
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: host, cluster: {server: "`+host.URL+`"}}]
users: [{name: apiserver, user: {}}]
contexts: [{name: host, context: {cluster: host, user: apiserver}}]
current-context: host
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	p := mustStart(t, "-addr", "127.0.0.1:0", "-kubeconfig", kubeconfig, "-authentication-skip-lookup", "-cert-dir", filepath.Join(dir, "certs"))
	if !strings.HasPrefix(p.url, "https://") {
		t.Fatalf("serving %s; want HTTPS", p.url)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for _, tc := range []struct {
		token, path string
		code        int
		message     string
	}{
		{"alice-token", "/api/v1/namespaces/demo/configmaps", http.StatusOK, ""},
		{"alice-token", "/api/v1/namespaces/demo/secrets", http.StatusForbidden,
			`secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "demo"`},
		{"mallory-token", "/api/v1/namespaces/demo/configmaps", http.StatusUnauthorized, "Unauthorized"},
		{"", "/api/v1/namespaces/demo/configmaps", http.StatusForbidden,
			`configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "demo"`},
	} {
		req, _ := http.NewRequest("GET", p.url+tc.path, nil)
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ Message string }
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.HasPrefix(st.Message, tc.message) {
			t.Errorf("%s with %q: %d %q; want %d %q", tc.path, tc.token, resp.StatusCode, st.Message, tc.code, tc.message)
		}
	}
}

// The server applies its MutatingAdmissionPolicies, as kube-apiserver
// does, ahead of the validating ones: from the write after the
// binding's, a ConfigMap is created with the policy's label.
func TestMutatingAdmissionPolicy(t *testing.T) {
	p := mustStart(t, "-addr", "127.0.0.1:0")
	const adm = "/apis/admissionregistration.k8s.io/v1/"
	policy := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
		"metadata": map[string]any{"name": "team"},
		"spec": map[string]any{
			"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"},
				"operations": []any{"CREATE"}, "resources": []any{"configmaps"}}}},
			"reinvocationPolicy": "Never",
			"mutations": []any{map[string]any{"patchType": "ApplyConfiguration",
				"applyConfiguration": map[string]any{"expression": "Object{metadata: Object.metadata{labels: {'team': 'blue'}}}"}}},
		}}
	binding := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": "team"}, "spec": map[string]any{"policyName": "team"}}
	for path, obj := range map[string]any{adm + "mutatingadmissionpolicies": policy, adm + "mutatingadmissionpolicybindings": binding} {
		if code, out := p.call(t, "POST", path, obj); code != http.StatusCreated {
			t.Fatalf("%s: %d %v", path, code, out)
		}
	}
	code, cm := p.call(t, "POST", "/api/v1/namespaces/demo/configmaps", map[string]any{"metadata": map[string]any{"name": "c"}})
	if labels, _ := metadata(cm)["labels"].(map[string]any); code != http.StatusCreated || labels["team"] != "blue" {
		t.Errorf("a ConfigMap under the policy: %d %v; want 201 with label team=blue", code, cm)
	}
}
