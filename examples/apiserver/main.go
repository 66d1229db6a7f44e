// Command apiserver runs the example Kubernetes-compatible API server:
// core v1 Namespaces, ConfigMaps, Secrets and Events, the custom resource
// widgets.example.apisem.dev/v1 and CustomResourceDefinitions (installed
// from files at start with -crd-dir, or by clients), kept in memory, served to kubectl and
// client-go as a kube-apiserver would.
//
//	go run ./examples/apiserver             # listens on 127.0.0.1:8080
//	go run ./examples/apiserver -addr :9090
//	go run ./examples/apiserver -crd-dir config/crd/bases
//	kubectl --server=http://127.0.0.1:8080 get configmaps -A
//
// It seeds a little demo data, logs one line per request with log/slog,
// and stops gracefully on SIGINT or SIGTERM.
package main

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

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

func main() {
	addr := flag.String("addr", demo.DefaultAddr, "address to listen on")
	history := flag.Duration("history", 5*time.Minute, "how long write history is kept for watches and resourceVersion reads")
	bookmarks := flag.Duration("bookmark-interval", time.Minute, "period of watch bookmarks")
	seed := flag.Bool("seed", true, "create demo namespaces, configmaps, secrets and widgets")
	verbose := flag.Bool("v", false, "log every request (by default only writes and failures)")
	crdDir := flag.String("crd-dir", "", "install the CustomResourceDefinitions of the YAML and JSON files in this directory at start")
	var limits server.Options
	flag.DurationVar(&limits.RequestTimeout, "request-timeout", server.DefaultRequestTimeout,
		"longest time a request other than a watch may take before it is answered with 504 Timeout")
	flag.IntVar(&limits.MaxRequestsInFlight, "max-requests-inflight", server.DefaultMaxRequestsInFlight,
		"most reads served at once, watches apart; more get 429 (negative: no limit)")
	flag.IntVar(&limits.MaxMutatingRequestsInFlight, "max-mutating-requests-inflight", server.DefaultMaxMutatingRequestsInFlight,
		"most writes served at once; more get 429 (negative: no limit)")
	flag.Uint64Var(&limits.MaxRevisions, "max-revisions", 0, "most revisions of write history kept (0: no cap)")
	flag.Int64Var(&limits.MaxHistoryBytes, "max-history-bytes", 0,
		"most estimated bytes of write history kept; older revisions answer 410 (0: 256 MiB; negative: no cap)")
	flag.Int64Var(&limits.MaxListEncodingBytes, "max-list-encoding-bytes", 0,
		"memory list responses may spend at once converting items to YAML, Tables or indented JSON (0: 64 MiB; negative: no limit)")
	flag.DurationVar(&limits.WriteTimeout, "watch-write-timeout", server.DefaultWriteTimeout,
		"longest a watch stream may wait for a client that stops reading before it drops it")
	grace := flag.Duration("shutdown-grace", 5*time.Second,
		"how long a shutdown waits for requests in flight before it closes their connections")
	flag.Parse()

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	limits.Addr, limits.HistoryWindow, limits.BookmarkInterval, limits.Logger = *addr, *history, *bookmarks, log
	if err := run(log, limits, *grace, *seed, *crdDir); err != nil {
		log.Error("apiserver", "err", err)
		os.Exit(1)
	}
}

func run(log *slog.Logger, opts demo.Options, grace time.Duration, seed bool, crdDir string) error {
	addr := opts.Addr
	s, err := demo.New(opts)
	if err != nil {
		return err
	}
	if crdDir != "" {
		defs, err := crd.Load(crdDir)
		if err != nil {
			return err
		}
		if err := s.CustomResourceDefinitions().Install(context.Background(), defs...); err != nil {
			return fmt.Errorf("installing the definitions of %s: %w", crdDir, err)
		}
		log.Info("installed CustomResourceDefinitions", "dir", crdDir, "count", len(defs))
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

// seedDemo creates a namespace "demo" with a few objects of every type.
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
		if err != nil {
			return err
		}
		created[c.Meta().Name] = c
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
