// Package app is the example API server's command: its flags, demo data
// and lifecycle, shared by examples/server (the one server with
// everything: etcd, CEL, a host cluster's delegation, in a module of its
// own because it links them; it sets Server.Storage, CRD.Rules and the
// Delegate) and examples/apiserver (the library module's own build, in
// memory). A feature added here reaches both.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/metrics"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// Config is the command's flags.
type Config struct {
	Addr      string
	History   time.Duration
	Bookmarks time.Duration
	Seed      bool
	Verbose   bool
	// CRDDir holds CustomResourceDefinitions to install at start, in its
	// files and those of its subdirectories (projects ship theirs in
	// trees, such as config/crd/bases).
	CRDDir string
	// CRD configures the definitions and their controller (its peers on
	// shared storage, say).
	CRD crd.Options
	// Server holds the server options of the flags (edge, memory and
	// history limits), and the storage (Server.Storage; nil keeps
	// objects in memory).
	Server   server.Options
	Grace    time.Duration
	Security Security
	Audit    Audit   // app/audit.go
	Tracing  Tracing // app/tracing.go
	// Started, when set, is given the server once it is made, before it
	// serves: a builtin.ServerNamespaces binds to it.
	Started func(*server.Server)
}

// Register adds the flags to fs.
func (c *Config) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "addr", demo.DefaultAddr, "address to listen on")
	fs.DurationVar(&c.History, "history", 5*time.Minute, "how long write history is kept for watches and resourceVersion reads")
	fs.DurationVar(&c.Bookmarks, "bookmark-interval", time.Minute, "period of watch bookmarks")
	fs.BoolVar(&c.Seed, "seed", true, "create demo namespaces, configmaps, secrets and widgets (those that do not exist yet)")
	fs.BoolVar(&c.Verbose, "v", false, "log every request (by default only writes and failures)")
	fs.StringVar(&c.CRDDir, "crd-dir", "", "install the CustomResourceDefinitions of the YAML and JSON files in this directory and its subdirectories at start")
	l, h := &c.Server.Limits, &c.Server.History
	fs.DurationVar(&l.RequestTimeout, "request-timeout", server.DefaultRequestTimeout,
		"longest time a request other than a watch may take before it is answered with 504 Timeout")
	fs.IntVar(&l.MaxRequestsInFlight, "max-requests-inflight", server.DefaultMaxRequestsInFlight,
		"most reads served at once, watches apart; more get 429 (negative: no limit)")
	fs.IntVar(&l.MaxMutatingRequestsInFlight, "max-mutating-requests-inflight", server.DefaultMaxMutatingRequestsInFlight,
		"most writes served at once; more get 429 (negative: no limit)")
	fs.Uint64Var(&h.MaxRevisions, "max-revisions", 0, "most revisions of write history kept (0: no cap)")
	fs.Int64Var(&h.MaxBytes, "max-history-bytes", 0,
		"most estimated bytes of write history kept; older revisions answer 410 (0: 256 MiB; negative: no cap)")
	fs.Int64Var(&l.MaxListEncodingBytes, "max-list-encoding-bytes", 0,
		"memory list responses may spend at once converting items to YAML, Tables or indented JSON (0: 64 MiB; negative: no limit)")
	fs.DurationVar(&l.WriteTimeout, "watch-write-timeout", server.DefaultWriteTimeout,
		"longest a watch stream may wait for a client that stops reading before it drops it")
	fs.IntVar(&l.Connections.Max, "max-connections", 0,
		"most connections served at once; more are served health checks only, from a small reserve, or closed (0: 3/4 of the open-file limit; negative: no limit)")
	fs.IntVar(&l.Connections.MaxPerClient, "max-connections-per-client", 0,
		"most connections served at once from one client address, an IPv4 address or IPv6 /64 (0: a quarter of -max-connections; negative: no limit)")
	fs.IntVar(&l.Connections.Reserve, "health-connection-reserve", 0,
		"connections kept over the caps for health checks (0: 1/64 of the open-file limit, at least 8; negative: none)")
	fs.DurationVar(&c.Grace, "shutdown-grace", 5*time.Second,
		"how long a shutdown waits for requests in flight before it closes their connections")
	c.Security.Register(fs)
	c.Audit.Register(fs)
	c.Tracing.Register(fs)
}

// Logger is the command's logger.
func (c *Config) Logger() *slog.Logger {
	level := slog.LevelInfo
	if c.Verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// Main runs the server until SIGINT or SIGTERM and exits the process on
// error.
func Main(c *Config, d Delegate) {
	log := c.Logger()
	if err := Run(log, c, d); err != nil {
		log.Error("apiserver", "err", err)
		os.Exit(1)
	}
}

// Readiness checks of the command's start, with kube-apiserver's form for
// the work a server does once it serves (poststarthook/<hook>):
// apiextensions-apiserver's crd-informer-synced (the definitions stored
// before are served again, crd.Controller.Synced) and the installation
// of -crd-dir's definitions.
const (
	crdSyncedCheck = "poststarthook/crd-informer-synced"
	crdDirCheck    = "poststarthook/install-crd-dir"
)

// Run serves until SIGINT or SIGTERM, then shuts down gracefully. It
// serves before it has installed -crd-dir's definitions and seeded the
// demo data, /readyz failing until the definitions are served, and says
// it listens (the banner) once both are done.
func Run(log *slog.Logger, c *Config, d Delegate) error {
	opts := c.Server
	opts.Addr, opts.History.Window, opts.Watch.BookmarkInterval, opts.Logger = c.Addr, c.History, c.Bookmarks, log
	https, err := c.Security.Apply(&opts, d)
	if err != nil {
		return err
	}
	closeAudit, err := c.Audit.Apply(&opts, log)
	if err != nil {
		return err
	}
	// Closed after the shutdown, which waits for the requests that write
	// to it.
	defer closeAudit()
	if err := c.Tracing.apply(context.Background(), &opts); err != nil {
		return err
	}
	// After the server's Shutdown, which ends the last spans.
	defer c.Tracing.Shutdown(context.Background())
	asCluster(&opts)
	var started atomic.Pointer[demo.Server] // once New has returned
	var installed atomic.Bool               // -crd-dir's definitions are served
	opts.Hooks.HealthChecks = append(slices.Clone(opts.Hooks.HealthChecks),
		server.HealthCheck{Name: crdSyncedCheck, Endpoints: server.Readyz, Check: func(context.Context) error {
			s := started.Load()
			if s == nil {
				return errors.New("not started yet")
			}
			select {
			case <-s.CustomResourceDefinitions().Synced():
				return nil
			default:
				return errors.New("the definitions stored before are not all served yet")
			}
		}},
		server.HealthCheck{Name: crdDirCheck, Endpoints: server.Readyz, Check: func(context.Context) error {
			if !installed.Load() {
				return errors.New("the definitions of -crd-dir are not installed yet")
			}
			return nil
		}})
	// /metrics, behind the authorizer, with kube-apiserver's series; a
	// Recorder of the caller's (the etcd build's, which its storage
	// reports to as well) is used if there is one.
	rec, _ := opts.Hooks.Metrics.(*metrics.Recorder)
	if opts.Hooks.Metrics == nil {
		rec = &metrics.Recorder{}
		opts.Hooks.Metrics = rec
	}
	s, err := demo.NewWith(opts, c.CRD)
	if err != nil {
		return err
	}
	if rec != nil {
		rec.Source = s // before it serves
	}
	started.Store(s)
	if c.Started != nil {
		c.Started(s.Server)
	}
	l, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return errors.Join(err, s.Shutdown(context.Background()))
	}
	// Signals are caught before the server serves, so that a SIGTERM
	// sent while it starts shuts it down gracefully too.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(l) }()
	log.Info("serving; ready once started", "addr", l.Addr().String())

	startErr := func() error {
		if err := createSystemNamespaces(ctx, s); err != nil {
			return err
		}
		if err := installCRDDir(ctx, log, c.CRDDir, s); err != nil {
			return err
		}
		installed.Store(true)
		if c.Seed {
			if err := seedDemo(s); err != nil {
				return fmt.Errorf("seeding demo data: %w", err)
			}
		}
		return nil
	}()
	if ctx.Err() != nil {
		startErr = nil // a signal cut the start short: a shutdown, no failure
	}
	if startErr == nil && ctx.Err() == nil {
		if https {
			printSecureBanner(l.Addr().String(), opts)
		} else {
			printBanner("http://" + l.Addr().String())
		}
		select {
		case err := <-errc:
			return err
		case <-ctx.Done():
		}
	}
	log.Info("shutting down", "grace", c.Grace)
	sctx, cancel := context.WithTimeout(context.Background(), c.Grace)
	defer cancel()
	// Clients that do not finish within the grace period have their
	// connections closed (Shutdown logs how many): that is no failure, the
	// exit status stays 0. Only the server's own errors make it 1.
	if err := s.Shutdown(sctx); err != nil {
		return errors.Join(startErr, err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return errors.Join(startErr, err)
	}
	return startErr
}

// installCRDDir installs the definitions of the files in dir ("" means
// none) and waits until they are established.
func installCRDDir(ctx context.Context, log *slog.Logger, dir string, s *demo.Server) error {
	if dir == "" {
		return nil
	}
	defs, err := loadCRDs(dir)
	if err != nil {
		return err
	}
	if len(defs) == 0 {
		log.Warn("no CustomResourceDefinitions found in the .yaml, .yml and .json files of the directory or its subdirectories", "dir", dir)
	}
	ctrl := s.CustomResourceDefinitions()
	for i, d := range defs {
		// The server stores its own copy: let each definition read go
		// once installed, so that the definitions are not held twice
		// while the others install (the memory a process keeps follows
		// its peak heap).
		defs[i] = nil
		err := ctrl.Install(ctx, d)
		if status.IsAlreadyExists(err) {
			// Stored by an earlier run (storage such as etcd outlives
			// the server) or by another server on the same storage:
			// kept as it is, as kubectl create would.
			_, err = ctrl.WaitEstablished(ctx, d.Name)
		}
		if err != nil {
			return fmt.Errorf("installing the definitions of %s: %w", dir, err)
		}
	}
	log.Info("installed CustomResourceDefinitions", "dir", dir, "count", len(defs))
	return nil
}

func printBanner(url string) {
	fmt.Fprintf(os.Stderr, `apisem example API server listening on %s

Point kubectl at it:
    kubectl --server=%s get namespaces
    kubectl --server=%s get configmaps -A
    kubectl --server=%s get configmaps -A -w
    kubectl --server=%s get configmaps -A --chunk-size=2
    kubectl --server=%s get widgets -n demo

or make it the current context:
    kubectl config set-cluster apisem --server=%s
    kubectl config set-context apisem --cluster=apisem
    kubectl config use-context apisem

Press Ctrl-C to stop.
`, url, url, url, url, url, url, url)
}

func printSecureBanner(addr string, opts server.Options) {
	url := "https://" + addr
	fmt.Fprintf(os.Stderr, "apisem example API server listening on %s (TLS", url)
	if opts.Security.Authenticator != nil {
		fmt.Fprint(os.Stderr, ", authentication and authorization on")
	}
	fmt.Fprintf(os.Stderr, `)

    kubectl --server=%s --certificate-authority=<CA of the serving certificate> get configmaps -A
    kubectl --server=%s --insecure-skip-tls-verify get configmaps -A    # a self-signed certificate

Press Ctrl-C to stop.
`, url, url)
}

// seedDemo creates a namespace "demo" with a few objects of every type,
// those that do not exist yet (storage such as etcd outlives the server).
func seedDemo(s *demo.Server) error {
	ctx := context.Background()
	objs := []server.Object{
		&api.Namespace{ObjectMeta: meta.ObjectMeta{Name: "default"}},
		&api.Namespace{ObjectMeta: meta.ObjectMeta{Name: "demo", Labels: map[string]string{"team": "apisem"}}},
		&api.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "app-config", Namespace: "demo", Labels: map[string]string{"app": "shop"}},
			Data: map[string]string{"LOG_LEVEL": "info", "FEATURES": "search,cart"}},
		&api.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "nginx", Namespace: "demo", Labels: map[string]string{"app": "web"}},
			Data: map[string]string{"nginx.conf": "worker_processes 1;\n"}},
		&api.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "settings", Namespace: "default"},
			Data: map[string]string{"greeting": "hello"}},
		&api.Secret{ObjectMeta: meta.ObjectMeta{Name: "db-credentials", Namespace: "demo"},
			StringData: map[string]string{"username": "shop", "password": "not-a-real-password"}},
		&api.Widget{ObjectMeta: meta.ObjectMeta{Name: "sprocket", Namespace: "demo"},
			Spec: api.WidgetSpec{Color: "red", Size: 3, Tags: []string{"metal"}}},
		&api.Widget{ObjectMeta: meta.ObjectMeta{Name: "gear", Namespace: "demo"},
			Spec: api.WidgetSpec{Color: "blue", Size: 12}},
	}
	created := map[string]server.Object{}
	for _, o := range objs {
		c, err := s.Create(ctx, o)
		switch {
		case status.IsAlreadyExists(err):
			continue // seeded by an earlier run
		case err != nil:
			return err
		}
		created[c.Meta().Name] = c
	}
	if created["app-config"] == nil {
		return nil
	}
	// An event, so kubectl describe and get events have something to show.
	cm := created["app-config"].Meta()
	now := meta.NewTime(time.Now())
	_, err := s.Create(ctx, &api.Event{
		ObjectMeta: meta.ObjectMeta{Name: "app-config.seeded", Namespace: "demo"},
		InvolvedObject: api.ObjectReference{Kind: "ConfigMap", Namespace: "demo", Name: cm.Name, UID: cm.UID,
			APIVersion: "v1", ResourceVersion: cm.ResourceVersion},
		Reason: "Seeded", Message: "Created by the example server's demo data",
		Source: api.EventSource{Component: "apisem-example"}, FirstTimestamp: now, LastTimestamp: now, Count: 1, Type: "Normal",
	})
	return err
}

// loadCRDs reads the CustomResourceDefinitions under dir: those of its
// files, then those of each subdirectory in name order (crd.Load reads
// one directory), skipping hidden directories such as .git.
func loadCRDs(dir string) ([]*crd.CustomResourceDefinition, error) {
	var out []*crd.CustomResourceDefinition
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		if path != dir && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		defs, err := crd.Load(path)
		out = append(out, defs...)
		return err
	})
	return out, err
}
