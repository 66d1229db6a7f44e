package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// Command is the server's command line: NewCommand registers its flags,
// Run runs the server they describe.
type Command struct {
	opts      server.Options
	addr      *string
	history   *time.Duration
	bookmarks *time.Duration
	seed      *bool
	verbose   *bool
	grace     *time.Duration
}

// NewCommand registers the server's flags on fs.
func NewCommand(fs *flag.FlagSet) *Command {
	c := &Command{}
	c.addr = fs.String("addr", demo.DefaultAddr, "address to listen on")
	c.history = fs.Duration("history", 5*time.Minute, "how long write history is kept for watches and resourceVersion reads")
	c.bookmarks = fs.Duration("bookmark-interval", time.Minute, "period of watch bookmarks")
	c.seed = fs.Bool("seed", true, "create demo namespaces, configmaps, secrets and widgets (those that do not exist yet)")
	c.verbose = fs.Bool("v", false, "log every request (by default only writes and failures)")
	fs.DurationVar(&c.opts.RequestTimeout, "request-timeout", server.DefaultRequestTimeout,
		"longest time a request other than a watch may take before it is answered with 504 Timeout")
	fs.IntVar(&c.opts.MaxRequestsInFlight, "max-requests-inflight", server.DefaultMaxRequestsInFlight,
		"most reads served at once, watches apart; more get 429 (negative: no limit)")
	fs.IntVar(&c.opts.MaxMutatingRequestsInFlight, "max-mutating-requests-inflight", server.DefaultMaxMutatingRequestsInFlight,
		"most writes served at once; more get 429 (negative: no limit)")
	fs.DurationVar(&c.opts.WriteTimeout, "watch-write-timeout", server.DefaultWriteTimeout,
		"longest a watch stream may wait for a client that stops reading before it drops it")
	c.grace = fs.Duration("shutdown-grace", 5*time.Second,
		"how long a shutdown waits for requests in flight before it closes their connections")
	return c
}

// Logger returns the logger the flags ask for; call it after parsing.
func (c *Command) Logger() *slog.Logger {
	level := slog.LevelInfo
	if *c.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// Run serves until SIGINT or SIGTERM, then shuts down gracefully. storage
// is server.Options.Storage: nil keeps the objects in memory.
func (c *Command) Run(log *slog.Logger, storage func(store.Options[server.Object]) (server.Storage, error)) error {
	opts := c.opts
	opts.Addr, opts.HistoryWindow, opts.BookmarkInterval, opts.Logger = *c.addr, *c.history, *c.bookmarks, log
	opts.Storage = storage
	return run(log, opts, *c.grace, *c.seed)
}

func run(log *slog.Logger, opts demo.Options, grace time.Duration, seed bool) error {
	addr := opts.Addr
	s, err := demo.New(opts)
	if err != nil {
		return err
	}
	if seed {
		if err := seedDemo(s); err != nil {
			return fmt.Errorf("seeding demo data: %w", err)
		}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	url := "http://" + l.Addr().String()
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

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", grace)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	// Clients that do not finish within the grace period have their
	// connections closed (Shutdown logs how many): that is no failure, the
	// exit status stays 0. Only the server's own errors make it 1.
	if err := s.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// seedDemo creates a namespace "demo" with a few objects of every type,
// those that do not exist yet.
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
			continue // seeded before, in storage that outlives the server
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
