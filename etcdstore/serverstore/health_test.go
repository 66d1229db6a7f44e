package serverstore_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/etcdstore/internal/etcdtest"
	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// get sends a GET with a client-side guard and returns the code, the body
// and how long the answer took.
func get(t *testing.T, url string) (int, string, time.Duration) {
	t.Helper()
	start := time.Now()
	c := &http.Client{Timeout: 20 * time.Second} // a guard, well past every bound under test
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v after %v", url, err, time.Since(start))
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), time.Since(start)
}

// waitReady polls /readyz until it answers 200.
func waitReady(t *testing.T, base string) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		code, body, _ := get(t, base+"/readyz?verbose")
		if code == 200 {
			return time.Since(start)
		}
		if time.Since(start) > 60*time.Second { // a guard, not a sync
			t.Fatalf("/readyz did not pass: %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// With etcd stopped, /readyz fails at once (within the checks' timeout)
// with kube-apiserver's etcd checks, /livez stays ok through a short
// outage, a watch with timeoutSeconds and resourceVersion unset answers
// within its own timeout, not the etcd request timeout; with etcd back,
// the server is ready again by itself.
func TestHealthEtcdOutage(t *testing.T) {
	e, c := newEtcd(t)
	b := serverstore.New(serverstore.Options{Client: c, RequestTimeout: 30 * time.Second})
	s, err := demo.New(demo.Options{Storage: b.Storage, Hooks: server.HookOptions{HealthChecks: b.HealthChecks()}})
	if err != nil {
		t.Fatal(err)
	}
	base := servertest.Start(t, s)
	waitReady(t, base)
	for _, tt := range []struct{ path, body string }{
		{"/readyz?verbose", "[+]ping ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]replica-sync ok\n[+]shutdown ok\nreadyz check passed\n"},
		{"/livez?verbose", "[+]ping ok\n[+]etcd ok\nlivez check passed\n"},
		{"/healthz?verbose", "[+]ping ok\n[+]etcd ok\nhealthz check passed\n"},
	} {
		if code, body, _ := get(t, base+tt.path); code != 200 || body != tt.body {
			t.Errorf("etcd up: GET %s: %d %q; want 200 %q", tt.path, code, body, tt.body)
		}
	}

	e.Stop()
	code, body, took := get(t, base+"/readyz?verbose")
	t.Logf("/readyz with etcd stopped answered in %v", took)
	if want := "[+]ping ok\n[-]etcd failed: reason withheld\n[-]etcd-readiness failed: reason withheld\n[-]replica-sync failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n"; code != 500 || body != want {
		t.Errorf("etcd down: /readyz: %d %q; want 500 %q", code, body, want)
	}
	if code, body, _ := get(t, base+"/readyz/etcd-readiness"); code != 500 || !strings.HasPrefix(body, "internal server error: error getting data from etcd: ") {
		t.Errorf("etcd down: /readyz/etcd-readiness: %d %q", code, body)
	}
	if code, body, _ := get(t, base+"/livez"); code != 200 || body != "ok" {
		t.Errorf("etcd down for a moment: /livez: %d %q; want 200 ok", code, body)
	}
	// The watch's own timeout bounds its wait for a consistent start,
	// not RequestTimeout (30 s).
	code, body, took = get(t, base+"/api/v1/namespaces/demo/configmaps?watch=1&timeoutSeconds=1")
	t.Logf("a watch with timeoutSeconds=1 answered in %v", took)
	if code != 504 || !strings.Contains(body, `"message":"Timeout: request did not complete within the allotted timeout"`) {
		t.Errorf("etcd down: watch with timeoutSeconds=1: %d %s; want kube-apiserver's 504", code, body)
	}

	// A consistent list waits no longer than its request's ?timeout=.
	code, body, took = get(t, base+"/api/v1/namespaces/demo/configmaps?timeout=1s")
	t.Logf("a list with timeout=1s answered in %v", took)
	if code != 504 || !strings.Contains(body, `"message":"Timeout: request did not complete within the allotted timeout"`) {
		t.Errorf("etcd down: list with timeout=1s: %d %s; want kube-apiserver's 504", code, body)
	}

	e2 := etcdtest.Start(t, e.Dir, e.URL)
	t.Cleanup(e2.Stop)
	t.Logf("ready again %v after etcd restarted", waitReady(t, base))
	if code, body, _ := get(t, base+"/livez?verbose"); code != 200 {
		t.Errorf("etcd back: /livez: %d %q", code, body)
	}
}

// The "etcd" check of /livez tolerates an etcd outage for
// LivenessGrace; a negative grace fails it at once, as kube-apiserver's.
func TestLivenessGrace(t *testing.T) {
	e, c := newEtcd(t)
	checks := func(grace time.Duration) map[server.HealthEndpoints]server.HealthCheck {
		m := map[server.HealthEndpoints]server.HealthCheck{}
		for _, h := range serverstore.New(serverstore.Options{Client: c, LivenessGrace: grace, HealthcheckTimeout: 500 * time.Millisecond}).HealthChecks() {
			if h.Name == "etcd" {
				m[h.Endpoints] = h
			}
		}
		return m
	}
	long, none := checks(time.Hour), checks(-1)
	run := func(h server.HealthCheck) error {
		ctx, cancel := context.WithTimeout(context.Background(), h.Timeout)
		defer cancel()
		return h.Check(ctx)
	}
	live := server.Livez | server.Healthz
	for _, h := range []server.HealthCheck{long[live], long[server.Readyz], none[live]} {
		if err := run(h); err != nil {
			t.Fatalf("etcd up: %v", err)
		}
	}
	e.Stop()
	if err := run(long[live]); err != nil {
		t.Errorf("etcd down, grace an hour: the livez check failed: %v", err)
	}
	if err := run(long[server.Readyz]); err == nil {
		t.Errorf("etcd down: the readyz etcd check passed")
	}
	if err := run(none[live]); err == nil {
		t.Errorf("etcd down, no grace: the livez check passed")
	}
}
