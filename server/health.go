package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Health endpoints, as kube-apiserver serves them
// (k8s.io/apiserver/pkg/server/healthz): /healthz, /livez and /readyz
// answer "ok" when every check passes; with ?verbose they list the checks,
// "[+]<name> ok" each, then "<endpoint> check passed"; ?exclude=<name>
// skips a check. A failing check makes the answer a 500 that lists the
// checks, the failed ones as "[-]<name> failed: reason withheld".
// /<endpoint>/<check> runs one check.
//
// The server's own checks are "ping" (every endpoint) and "shutdown"
// (readyz, last); Options.Hooks.HealthChecks adds others between them, as
// kube-apiserver lists its etcd and post-start-hook checks.

// HealthCheck is a named check of the health endpoints, such as the
// reachability of a storage or the first pass of a controller
// (Options.Hooks.HealthChecks).
type HealthCheck struct {
	// Name names the check in the endpoints' verbose output, in
	// /<endpoint>/<name> and in ?exclude=; Kubernetes' names are "etcd",
	// "etcd-readiness", "informer-sync", "poststarthook/<hook>". Two
	// checks of one endpoint have different names; checks of different
	// endpoints may share one (a stricter readiness "etcd", say).
	Name string
	// Endpoints are the endpoints that run the check. 0 means all three,
	// as kube-apiserver's AddHealthChecks adds a check to each.
	Endpoints HealthEndpoints
	// Check returns nil while the checked thing is healthy. It must
	// return once ctx ends (Timeout after it started). Requests that come
	// while a run is going share its result, so a dependency is asked at
	// most once at a time whatever the number of probes.
	Check func(ctx context.Context) error
	// Timeout bounds a run of Check: its context ends then, and the
	// check fails if Check has not returned a moment later (a second), so
	// an endpoint answers within its slowest check's Timeout. 0 means 2 s,
	// kube-apiserver's default etcd health-check timeout.
	Timeout time.Duration
}

// HealthEndpoints is a set of health endpoints.
type HealthEndpoints uint8

// The health endpoints.
const (
	Healthz HealthEndpoints = 1 << iota
	Livez
	Readyz
)

// defaultHealthCheckTimeout bounds a run of a HealthCheck without a
// Timeout of its own: kube-apiserver's default etcd health-check timeout
// (--etcd-healthcheck-timeout).
const defaultHealthCheckTimeout = 2 * time.Second

// errCheckTimeout is the error of a check that did not return in time.
var errCheckTimeout = errors.New("the check did not return in time")

// checkSlack is how long past its Timeout a check's result is waited
// for: a Check that heeds its context returns its own error (the
// dependency's timeout), which a tolerant check may forgive, a moment
// after the deadline. On a loaded machine that moment was more than
// 0.1 s: /livez failed during a short etcd outage that serverstore's
// tolerant check forgives, and a check's own error became "did not
// return in time" (TestHealthEtcdOutage, -race at a load of 20).
const checkSlack = time.Second

// healthCheck is one named check of a health endpoint: one of the
// server's own, which is cheap and run inline, or an Options.Hooks.HealthChecks
// one, run by a checkRunner.
type healthCheck struct {
	name   string
	inline func(s *Server) error
	runner *checkRunner
}

func pingCheck(*Server) error { return nil }

var errShutdownCheck = errors.New("process is shutting down")

func shutdownCheck(s *Server) error {
	if s.closing.Load() {
		return errShutdownCheck
	}
	return nil
}

// healthEndpoints are the endpoints and the set each stands for.
var healthEndpoints = map[string]HealthEndpoints{"healthz": Healthz, "livez": Livez, "readyz": Readyz}

// healthChecks returns the checks of each endpoint: the server is alive
// while it answers and ready until it shuts down, and what checks says.
func healthChecks(checks []HealthCheck, log *slog.Logger) (map[string][]healthCheck, error) {
	m := map[string][]healthCheck{}
	for ep := range healthEndpoints {
		m[ep] = []healthCheck{{name: "ping", inline: pingCheck}}
	}
	for _, c := range checks {
		if c.Name == "" || strings.ContainsAny(c.Name, "?#") || c.Check == nil {
			return nil, fmt.Errorf("server: health check %q needs a name that fits a path and a Check", c.Name)
		}
		r := &checkRunner{check: c, log: log}
		if r.check.Timeout <= 0 {
			r.check.Timeout = defaultHealthCheckTimeout
		}
		for ep, set := range healthEndpoints {
			if c.Endpoints != 0 && c.Endpoints&set == 0 {
				continue
			}
			if c.Name == "shutdown" || slices.ContainsFunc(m[ep], func(h healthCheck) bool { return h.name == c.Name }) {
				return nil, fmt.Errorf("server: two health checks of %s named %q", ep, c.Name)
			}
			m[ep] = append(m[ep], healthCheck{name: c.Name, runner: r})
		}
	}
	m["readyz"] = append(m["readyz"], healthCheck{name: "shutdown", inline: shutdownCheck})
	return m, nil
}

// checkRunner runs one HealthCheck, one run at a time.
type checkRunner struct {
	check HealthCheck
	log   *slog.Logger

	mu     sync.Mutex
	run    *checkRun // the run going on; nil if none
	failed bool      // the last run failed (logged once per change)
}

// checkRun is one run of a check. err is set before done is closed.
type checkRun struct {
	deadline time.Time
	done     chan struct{}
	err      error
}

// start returns the run going on, or starts one. The run's goroutine ends
// when Check returns, which it does once its context ends.
func (c *checkRunner) start() *checkRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.run != nil {
		return c.run
	}
	run := &checkRun{deadline: time.Now().Add(c.check.Timeout), done: make(chan struct{})}
	c.run = run
	go func() {
		ctx, cancel := context.WithDeadline(context.Background(), run.deadline)
		err := c.check.Check(ctx)
		cancel()
		run.err = err
		// Forgotten before it is done: a request that comes after a
		// result was seen gets a new run, never that result again.
		c.mu.Lock()
		c.run = nil
		c.mu.Unlock()
		close(run.done)
	}()
	return run
}

// wait returns the result of run, or errCheckTimeout if Check has not
// returned shortly after the run's deadline.
func (c *checkRunner) wait(ctx context.Context, run *checkRun) error {
	var err error
	t := time.NewTimer(time.Until(run.deadline) + checkSlack)
	select {
	case <-run.done:
		err = run.err
	case <-t.C:
		err = errCheckTimeout
	case <-ctx.Done():
		err = ctx.Err()
	}
	t.Stop()
	if ctx.Err() == nil {
		c.note(err)
	}
	return err
}

// note logs a change of the check's state: a probe every few seconds
// must not fill the log with the same failure.
func (c *checkRunner) note(err error) {
	c.mu.Lock()
	changed := c.failed != (err != nil)
	c.failed = err != nil
	c.mu.Unlock()
	switch {
	case !changed:
	case err != nil:
		c.log.Warn("health check failed", "check", c.check.Name, "err", err)
	default:
		c.log.Info("health check passes again", "check", c.check.Name)
	}
}

// isHealthPath reports whether segs address a health endpoint or one of
// its checks (whose names may hold "/", as poststarthook/<hook>), which
// are served during shutdown too (readyz then fails).
func isHealthPath(segs []string) bool {
	return len(segs) > 0 && healthEndpoints[segs[0]] != 0
}

// runChecks runs checks, those with a runner concurrently, and returns
// each one's error.
func (s *Server) runChecks(ctx context.Context, checks []healthCheck) []error {
	errs := make([]error, len(checks))
	var runs []*checkRun // nil with the server's own checks alone
	for i, c := range checks {
		if c.runner != nil {
			if runs == nil {
				runs = make([]*checkRun, len(checks))
			}
			runs[i] = c.runner.start()
		}
	}
	for i, c := range checks {
		if c.runner != nil {
			errs[i] = c.runner.wait(ctx, runs[i])
		} else {
			errs[i] = c.inline(s)
		}
	}
	return errs
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request, segs []string) {
	checks := s.health[segs[0]]
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	if len(segs) > 1 {
		name := strings.Join(segs[1:], "/")
		i := slices.IndexFunc(checks, func(c healthCheck) bool { return c.name == name })
		if i < 0 {
			http.NotFound(w, r) // as kube-apiserver's mux answers
			return
		}
		if err := s.runChecks(r.Context(), checks[i:i+1])[0]; err != nil {
			// kube-apiserver's form for one check: http.Error with the
			// check's error.
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "internal server error: %v\n", err)
			return
		}
		w.Write([]byte("ok"))
		return
	}
	q := requestOf(r).options()
	excluded := map[string]bool{}
	for _, n := range q.exclude {
		excluded[n] = true
	}
	run := make([]healthCheck, 0, len(checks))
	for _, c := range checks {
		if !excluded[c.name] {
			run = append(run, c)
		}
	}
	errs := s.runChecks(r.Context(), run)
	var out strings.Builder
	failed := false
	for _, c := range checks {
		if excluded[c.name] {
			delete(excluded, c.name)
			out.WriteString("[+]" + c.name + " excluded: ok\n")
			continue
		}
		if err := errs[0]; err != nil {
			failed = true
			out.WriteString("[-]" + c.name + " failed: reason withheld\n")
		} else {
			out.WriteString("[+]" + c.name + " ok\n")
		}
		errs = errs[1:]
	}
	if len(excluded) > 0 {
		var names []string
		for _, n := range slices.Sorted(maps.Keys(excluded)) {
			names = append(names, strconv.Quote(n))
		}
		out.WriteString("warn: some health checks cannot be excluded: no matches for " + strings.Join(names, ",") + "\n")
	}
	if failed {
		// http.Error's form: the text and a newline.
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(out.String() + segs[0] + " check failed\n"))
		return
	}
	if !q.verbose {
		w.Write([]byte("ok"))
		return
	}
	w.Write([]byte(out.String() + segs[0] + " check passed\n"))
}
