// Command server is the example API server with everything on: every
// built-in kind of Kubernetes (module builtin, in place of the demo's
// ConfigMaps, Secrets and Events) with Namespaces and the garbage
// collector and the enforcement of Mutating and
// ValidatingAdmissionPolicies, the objects kube-apiserver makes at start
// (builtin.Bootstrap: the kubernetes Service, the bootstrap RBAC policy,
// the system PriorityClasses, the API Priority and Fairness
// configuration; reconciled as kube-apiserver does at each start on
// etcd), the resources, flags and demo data of examples/apiserver
// (package app),
// CustomResourceDefinitions with their x-kubernetes-validations (CEL)
// rules evaluated by Kubernetes' own code (crd/cel), objects in memory,
// in an etcd of yours or in an etcd embedded in the process, and
// kube-apiserver's serving, authentication and delegated-authorization
// flags (auth/kubedelegate), to run as an aggregated API server of a
// cluster; -tracing-config-file sends kube-apiserver's spans over
// OpenTelemetry (tracing/otel). From the repository's root:
//
//	go -C examples/server run .                              # in memory, http://127.0.0.1:8080
//	go -C examples/server run . -etcd-data-dir /tmp/apisem   # in an embedded etcd, kept across restarts
//	go -C examples/server run . -etcd-servers http://127.0.0.1:2379
//	go -C examples/server run . -kubeconfig ~/.kube/config -cert-dir /tmp/apisem-certs
//
// It is a module of its own so that the library's module does not
// depend on etcd, client-go or Kubernetes' CEL code; its features are
// added in package app (examples/apiserver/app), which every build of
// the example shares, and reach this server from there.
//
// # Storage
//
// Without -etcd-servers or -etcd-data-dir objects are kept in memory.
// -etcd-data-dir DIR runs etcd in the process (etcdstore/embedded),
// on loopback ports the system chooses, with its data in DIR: stop the
// server and start it again on the same DIR and every object is there,
// resourceVersions continuing where they were. -etcd-servers URL[,URL]
// uses an etcd of yours, which must be 3.4.31 or later of 3.4, 3.5.13 or
// later of 3.5, or 3.6 and later (etcdstore.CheckVersion refuses older
// ones, whose watch progress requests consistent reads cannot rely on).
// -etcd-prefix, -etcd-compaction-interval and -storage-media-type are
// kube-apiserver's flags of the same names; several servers on one etcd
// and prefix serve as one.
//
// # A cluster's aggregated API server
//
// -kubeconfig (or -authentication-kubeconfig and
// -authorization-kubeconfig), or -delegate-in-cluster in a pod, make the
// host cluster review bearer tokens (TokenReview) and every request
// (SubjectAccessReview) and publish the front proxy's CA
// (kube-system/extension-apiserver-authentication, unless
// -authentication-skip-lookup), as kube-apiserver's aggregated servers
// do; AGGREGATED.md shows the APIService registration.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/apisem/apisem/auth/kubedelegate"
	"github.com/apisem/apisem/builtin"
	"github.com/apisem/apisem/crd/cel"
	"github.com/apisem/apisem/etcdstore"
	"github.com/apisem/apisem/etcdstore/embedded"
	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/app"
	"github.com/apisem/apisem/metrics"
	"github.com/apisem/apisem/server"
	apiotel "github.com/apisem/apisem/tracing/otel"
)

// flags are the command's flags: package app's and those of the
// dependencies this module adds.
type flags struct {
	app app.Config

	etcdServers       string
	etcdDataDir       string
	etcdPrefix        string
	compaction        time.Duration
	mediaType         string
	delegate          kubedelegate.Options
	delegateInCluster bool
}

func (f *flags) register(fs *flag.FlagSet) {
	f.app.Register(fs)
	fs.StringVar(&f.etcdServers, "etcd-servers", "", "etcd client URLs, comma-separated (e.g. http://127.0.0.1:2379); etcd 3.4.31+, 3.5.13+ or 3.6+")
	fs.StringVar(&f.etcdDataDir, "etcd-data-dir", "", "run an etcd in the process, on loopback, with its data in this directory (kept across restarts)")
	fs.StringVar(&f.etcdPrefix, "etcd-prefix", "/registry", "etcd key prefix of the objects")
	fs.DurationVar(&f.compaction, "etcd-compaction-interval", 5*time.Minute, "how often etcd's history is compacted (0: never)")
	fs.StringVar(&f.mediaType, "storage-media-type", protobufMediaType,
		"how values are stored in etcd: "+protobufMediaType+" (for the types that have a protobuf form, JSON for the others) or "+jsonMediaType+" (every value)")
	fs.StringVar(&f.delegate.Kubeconfig, "kubeconfig", "", "delegate authentication and authorization to this cluster, as its aggregated API server")
	fs.StringVar(&f.delegate.AuthenticationKubeconfig, "authentication-kubeconfig", "", "the cluster that reviews tokens and publishes the front-proxy CA (default: -kubeconfig)")
	fs.StringVar(&f.delegate.AuthorizationKubeconfig, "authorization-kubeconfig", "", "the cluster that reviews permissions (default: -kubeconfig)")
	fs.BoolVar(&f.delegateInCluster, "delegate-in-cluster", false, "delegate authentication and authorization to the cluster the server runs in (its pod's service account)")
	fs.BoolVar(&f.delegate.SkipLookup, "authentication-skip-lookup", false, "do not read kube-system/extension-apiserver-authentication; use the -requestheader-* and -client-ca-file flags only")
}

// check refuses flags that contradict each other.
func (f *flags) check() error {
	if f.etcdServers != "" && f.etcdDataDir != "" {
		return errors.New("-etcd-servers and -etcd-data-dir exclude each other: use an etcd of yours or the embedded one")
	}
	if _, err := storeJSON(f.mediaType); err != nil {
		return err
	}
	d := f.delegate
	if f.delegateInCluster && (d.Kubeconfig != "" || d.AuthenticationKubeconfig != "" || d.AuthorizationKubeconfig != "") {
		return errors.New("-delegate-in-cluster and the -*kubeconfig flags exclude each other")
	}
	return nil
}

func (f *flags) delegating() bool {
	d := f.delegate
	return f.delegateInCluster || d.Kubeconfig != "" || d.AuthenticationKubeconfig != "" || d.AuthorizationKubeconfig != ""
}

func main() {
	var f flags
	f.register(flag.CommandLine)
	flag.Parse()
	if err := f.check(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	log := f.app.Logger()
	if err := run(log, &f); err != nil {
		log.Error("apiserver", "err", err)
		os.Exit(1)
	}
}

// run serves until SIGINT or SIGTERM (app.Run), then stops what it
// started, in the reverse order.
func run(log *slog.Logger, f *flags) error {
	// CEL rules of CustomResourceDefinitions, with Kubernetes' code.
	f.app.CRD.Rules = cel.Compiler{}
	// -tracing-config-file, with OpenTelemetry's SDK.
	f.app.Tracing.Provider = apiotel.FromConfigFile
	// Kubernetes' built-in kinds, in place of the demo's ConfigMaps,
	// Secrets and Events (package app serves Namespaces with their
	// lifecycle, and runs the garbage collector).
	// Their strategies read the server's Namespaces (a ResourceClaim's
	// admin access needs a labelled one).
	nsr := &builtin.ServerNamespaces{}
	// Services' cluster IPs are IPAddress objects in the store, which
	// holds the default ServiceCIDR, as kube-apiserver's.
	alloc := builtin.NewServiceAllocator()
	res, err := builtin.Resources(builtin.Options{Namespaces: nsr, Allocator: alloc})
	if err != nil {
		return err
	}
	// Mutating and ValidatingAdmissionPolicies are enforced, as by
	// kube-apiserver: the mutating ones in admission's first phase.
	policies := builtin.NewPolicies(builtin.PolicyOptions{})
	mutating := builtin.NewMutatingPolicies(builtin.PolicyOptions{})
	// kube-apiserver's default mutating plugins (a Pod's service
	// account, priority and tolerations, a new Node's taint) run first,
	// as there.
	plugins := &builtin.Plugins{}
	f.app.Server.Admission = plugins.Admission(mutating.Admission(policies.Admission(f.app.Server.Admission)))
	f.app.Started = func(s *server.Server) {
		nsr.Bind(s)
		plugins.Bind(s)
		alloc.Bind(s)
		policies.Bind(s)
		mutating.Bind(s)
		if err := alloc.CreateServiceCIDR(context.Background()); err != nil {
			log.Error("default ServiceCIDR", "err", err)
		}
		// What kube-apiserver makes (or reconciles, on etcd) at start:
		// the kubernetes Service, the bootstrap RBAC policy, the system
		// PriorityClasses, the API Priority and Fairness configuration.
		if err := builtin.Bootstrap(context.Background(), s, builtin.BootstrapOptions{SecurePort: portOf(f.app.Addr)}); err != nil {
			log.Error("bootstrap objects", "err", err)
		}
	}
	f.app.Server.Resources = append(res, f.app.Server.Resources...)

	var d app.Delegate
	if f.delegating() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		del, err := kubedelegate.New(ctx, f.delegate)
		cancel()
		if err != nil {
			return fmt.Errorf("delegating to the host cluster: %w", err)
		}
		d = app.Delegate{Tokens: del.Tokens, Access: del.Access,
			ClientCA: del.Authentication.ClientCA, RequestHeader: del.Authentication.RequestHeader}
	}

	endpoints := f.etcdServers
	if f.etcdDataDir != "" {
		e, err := embedded.Start(embedded.Options{Dir: f.etcdDataDir, Logger: etcdLogger()})
		if err != nil {
			return err
		}
		defer e.Close() // last: the server and the client have stopped
		log.Info("started an embedded etcd", "dir", f.etcdDataDir, "endpoint", e.Endpoint())
		endpoints = e.Endpoint()
	}
	if endpoints == "" {
		return app.Run(log, &f.app, d)
	}
	return runOnEtcd(log, f, strings.Split(endpoints, ","), d)
}

// portOf is the port of a listen address (":8080"), 0 when it has none.
func portOf(addr string) int32 {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	p, _ := strconv.ParseInt(port, 10, 32)
	return int32(p)
}

// runOnEtcd serves with every object in the etcd at endpoints.
func runOnEtcd(log *slog.Logger, f *flags, endpoints []string, d app.Delegate) error {
	asJSON, _ := storeJSON(f.mediaType) // checked with the flags
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err = etcdstore.CheckVersion(ctx, client)
	cancel()
	if err != nil {
		return err
	}
	if f.compaction > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go etcdstore.RunCompactor(ctx, client, f.etcdPrefix, f.compaction)
	}
	log.Info("storing objects in etcd", "servers", strings.Join(endpoints, ","), "prefix", f.etcdPrefix, "media-type", f.mediaType)
	// One Recorder for the server's metrics and etcd's
	// (etcd_request_duration_seconds), served at /metrics by app.Run.
	rec := &metrics.Recorder{}
	c := &f.app
	c.Server.Hooks.Metrics = rec
	// The request's tracer, for the storage and etcd spans below it.
	tr, err := c.Tracing.Tracer(context.Background())
	if err != nil {
		return err
	}
	so := serverstore.Options{Client: client, Prefix: f.etcdPrefix, JSON: asJSON, Metrics: rec, Tracer: tr}
	// /readyz fails while etcd or the replica cannot serve; /livez only
	// once etcd has been down for a while (serverstore.Backend).
	b := serverstore.New(so)
	c.Server.Storage, c.Server.Hooks.HealthChecks = b.Storage, append(c.Server.Hooks.HealthChecks, b.HealthChecks()...)
	// Other servers on the same etcd and prefix serve the same
	// definitions: each is Established once all of them serve it.
	peers, err := serverstore.NewPeers(so)
	if err != nil {
		return err
	}
	c.CRD.Peers = peers
	err = app.Run(log, c, d)
	return errors.Join(err, peers.Close()) // after the server's shutdown has stopped its controllers
}

// etcdLogger writes the embedded etcd's errors to standard error, as
// lines of text.
func etcdLogger() *zap.Logger {
	enc := zap.NewDevelopmentEncoderConfig()
	return zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.Lock(os.Stderr), zapcore.ErrorLevel)).Named("etcd")
}

// The values of -storage-media-type, as kube-apiserver's
// --storage-media-type names them.
const (
	jsonMediaType     = "application/json"
	protobufMediaType = "application/vnd.kubernetes.protobuf"
)

// storeJSON reports whether the media type stores every value as JSON.
func storeJSON(mediaType string) (bool, error) {
	switch mediaType {
	case jsonMediaType:
		return true, nil
	case protobufMediaType:
		return false, nil
	}
	return false, fmt.Errorf("-storage-media-type %q: supported media types are %s and %s", mediaType, jsonMediaType, protobufMediaType)
}
