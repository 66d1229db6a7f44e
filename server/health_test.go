package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// fakeCheck is a HealthCheck whose result the test sets; block makes
// Check wait until its context ends (a dependency that does not answer),
// or, with ignoreCtx, until release is closed (a Check that breaks its
// contract).
type fakeCheck struct {
	mu        sync.Mutex
	err       error
	block     bool
	ignoreCtx bool
	release   chan struct{}
	calls     atomic.Int32
}

func newFakeCheck() *fakeCheck { return &fakeCheck{release: make(chan struct{})} }

func (f *fakeCheck) set(err error, block bool) {
	f.mu.Lock()
	f.err, f.block = err, block
	f.mu.Unlock()
}

func (f *fakeCheck) check(ctx context.Context) error {
	f.calls.Add(1)
	f.mu.Lock()
	err, block, ignore := f.err, f.block, f.ignoreCtx
	f.mu.Unlock()
	if !block {
		return err
	}
	if ignore {
		<-f.release
		return errors.New("released")
	}
	<-ctx.Done()
	return ctx.Err()
}

// Options.Hooks.HealthChecks adds named checks to the endpoints each names, as
// kube-apiserver lists its etcd checks and post-start hooks: between ping
// and readyz's shutdown, in order; a failing one fails its endpoints
// only, and /<endpoint>/<name> answers its error as kube-apiserver does.
func TestHealthChecks(t *testing.T) {
	etcd, ready, synced := newFakeCheck(), newFakeCheck(), newFakeCheck()
	s := newTestServer(t, Options{Hooks: HookOptions{HealthChecks: []HealthCheck{
		{Name: "etcd", Check: etcd.check},
		{Name: "etcd-readiness", Endpoints: Readyz, Check: ready.check},
		{Name: "poststarthook/crd-informer-synced", Endpoints: Readyz, Check: synced.check},
	}}})
	type want struct {
		path string
		code int
		body string
	}
	check := func(stage string, wants []want) {
		t.Helper()
		for _, tt := range wants {
			w := get(s, tt.path)
			if w.Code != tt.code || w.Body.String() != tt.body || w.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
				t.Errorf("%s: GET %s: %d %q; want %d %q", stage, tt.path, w.Code, w.Body, tt.code, tt.body)
			}
		}
	}
	check("healthy", []want{
		{"/readyz", 200, "ok"},
		{"/readyz?verbose", 200, "[+]ping ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]poststarthook/crd-informer-synced ok\n[+]shutdown ok\nreadyz check passed\n"},
		{"/livez?verbose", 200, "[+]ping ok\n[+]etcd ok\nlivez check passed\n"},
		{"/healthz?verbose", 200, "[+]ping ok\n[+]etcd ok\nhealthz check passed\n"},
		{"/readyz/poststarthook/crd-informer-synced", 200, "ok"},
		{"/livez/etcd", 200, "ok"},
	})
	ready.set(errors.New("etcd is down"), false)
	synced.set(errors.New("not yet"), false)
	check("not ready", []want{
		{"/readyz", 500, "[+]ping ok\n[+]etcd ok\n[-]etcd-readiness failed: reason withheld\n[-]poststarthook/crd-informer-synced failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n"},
		{"/readyz?exclude=etcd-readiness&exclude=poststarthook/crd-informer-synced", 200, "ok"},
		{"/livez", 200, "ok"},
		{"/readyz/etcd-readiness", 500, "internal server error: etcd is down\n"},
	})
	calls := ready.calls.Load()
	get(s, "/readyz?exclude=etcd-readiness")
	if n := ready.calls.Load(); n != calls {
		t.Errorf("an excluded check ran")
	}
	etcd.set(errors.New("etcd is down"), false)
	check("not alive", []want{
		{"/livez", 500, "[+]ping ok\n[-]etcd failed: reason withheld\nlivez check failed\n"},
		{"/healthz", 500, "[+]ping ok\n[-]etcd failed: reason withheld\nhealthz check failed\n"},
	})
	s.Shutdown(context.Background())
	if w := get(s, "/readyz/shutdown"); w.Code != 500 || w.Body.String() != "internal server error: process is shutting down\n" {
		t.Errorf("after Shutdown, /readyz/shutdown: %d %q", w.Code, w.Body)
	}
}

// A check bounded by its Timeout: a dependency that does not answer fails
// its check when the Timeout passes, even from a Check that does not
// heed its context, and concurrent probes share one run of a check.
func TestHealthCheckTimeout(t *testing.T) {
	for _, ignoreCtx := range []bool{false, true} {
		name := "heeds its context"
		if ignoreCtx {
			name = "ignores its context"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				etcd := newFakeCheck()
				etcd.ignoreCtx = ignoreCtx
				etcd.set(nil, true)
				s, err := New(Options{Resources: testResources(),
					Hooks: HookOptions{
						HealthChecks: []HealthCheck{
							{Name: "etcd", Endpoints: Readyz, Check: etcd.check, Timeout: 3 * time.Second},
						},
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Shutdown(context.Background())
				start := time.Now()
				var wg sync.WaitGroup
				for range 3 {
					wg.Go(func() {
						w := get(s, "/readyz")
						if w.Code != 500 || !strings.Contains(w.Body.String(), "[-]etcd failed: reason withheld\n") {
							t.Errorf("/readyz: %d %q", w.Code, w.Body)
						}
						want := 3 * time.Second // the check's Timeout
						if ignoreCtx {
							want += checkSlack
						}
						if took := time.Since(start); took != want {
							t.Errorf("/readyz answered after %v; want %v", took, want)
						}
					})
				}
				wg.Wait()
				if n := etcd.calls.Load(); n != 1 {
					t.Errorf("three concurrent probes ran the check %d times; want once", n)
				}
				close(etcd.release)
				synctest.Wait()
			})
		})
	}
}

// New refuses health checks that cannot be told apart or run.
func TestHealthCheckOptions(t *testing.T) {
	ok := func(context.Context) error { return nil }
	for _, tt := range []struct {
		name   string
		checks []HealthCheck
	}{
		{"no name", []HealthCheck{{Check: ok}}},
		{"no check", []HealthCheck{{Name: "etcd"}}},
		{"twice", []HealthCheck{{Name: "etcd", Check: ok}, {Name: "etcd", Endpoints: Readyz, Check: ok}}},
		{"twice on one", []HealthCheck{{Name: "etcd", Endpoints: Livez | Readyz, Check: ok}, {Name: "etcd", Endpoints: Readyz, Check: ok}}},
		{"the server's own", []HealthCheck{{Name: "shutdown", Check: ok}}},
		{"ping", []HealthCheck{{Name: "ping", Endpoints: Livez, Check: ok}}},
		{"not a path", []HealthCheck{{Name: "a?b", Check: ok}}},
	} {
		if _, err := New(Options{Hooks: HookOptions{HealthChecks: tt.checks}}); err == nil {
			t.Errorf("%s: New succeeded", tt.name)
		}
	}
}

// A health probe whose client goes away stops waiting.
func TestHealthCheckClientGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		etcd := newFakeCheck()
		etcd.set(nil, true)
		s, err := New(Options{Resources: testResources(),
			Hooks: HookOptions{
				HealthChecks: []HealthCheck{
					{Name: "etcd", Check: etcd.check, Timeout: time.Minute},
				},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Shutdown(context.Background())
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/livez", nil)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code == 200 {
			t.Errorf("/livez of a gone client: %d", w.Code)
		}
		if took := time.Since(start); took != time.Second {
			t.Errorf("/livez returned %v after its client went; want at once", took-time.Second)
		}
		time.Sleep(time.Minute) // the check's run ends with its timeout
		synctest.Wait()
	})
}

// Checks of different endpoints may share a name: a tolerant "etcd" on
// livez, a strict one on readyz.
func TestHealthCheckSharedName(t *testing.T) {
	live, ready := newFakeCheck(), newFakeCheck()
	ready.set(errors.New("etcd is down"), false)
	s := newTestServer(t, Options{Hooks: HookOptions{HealthChecks: []HealthCheck{
		{Name: "etcd", Endpoints: Livez | Healthz, Check: live.check},
		{Name: "etcd", Endpoints: Readyz, Check: ready.check},
	}}})
	if w := get(s, "/livez/etcd"); w.Code != 200 {
		t.Errorf("/livez/etcd: %d %q", w.Code, w.Body)
	}
	if w := get(s, "/readyz/etcd"); w.Code != 500 {
		t.Errorf("/readyz/etcd: %d %q", w.Code, w.Body)
	}
}

// BenchmarkHealth is the cost of a probe: the server's own checks alone
// (/healthz, as a load balancer polls it), and with a check of a
// dependency (/readyz, one run per probe).
func BenchmarkHealth(b *testing.B) {
	for _, bc := range []struct {
		name, path string
		checks     []HealthCheck
	}{
		{"healthz", "/healthz", nil},
		{"readyz verbose", "/readyz?verbose", nil},
		{"readyz with a check", "/readyz", []HealthCheck{{Name: "etcd", Check: func(context.Context) error { return nil }}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := New(Options{Resources: testResources(), Hooks: HookOptions{HealthChecks: bc.checks}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			r := httptest.NewRequest(http.MethodGet, bc.path, nil)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				s.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
	}
}
