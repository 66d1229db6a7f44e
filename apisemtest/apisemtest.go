package apisemtest

import (
	"context"
	"encoding/json"
	"fmt"
	neturl "net/url"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/builtin"
	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/crd/cel"
	"github.com/apisem/apisem/gc"
	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// Options configure Start. The zero value is a server with every built-in
// kind, namespaces, garbage collection and CustomResourceDefinitions.
type Options struct {
	// CRDDirectoryPaths are directories of CustomResourceDefinition
	// manifests (the .yaml, .yml and .json files in each, not in its
	// subdirectories; a file may hold several documents, and documents of
	// other kinds are skipped) or such files, installed and Established
	// before Start returns, as envtest's option of the same name.
	CRDDirectoryPaths []string
	// ErrorIfCRDPathMissing fails the test when a path does not exist;
	// otherwise such a path is skipped, as by envtest.
	ErrorIfCRDPathMissing bool
	// CRDs are definitions to install besides those of the paths.
	CRDs []*apiextensionsv1.CustomResourceDefinition

	// Groups are the built-in API groups served when Resources is nil
	// ("" is the core group, "apps", "batch", "coordination.k8s.io",
	// ...; builtin.Groups lists them); nil serves every one.
	Groups []string
	// Resources are served besides namespaces and definitions; nil
	// serves Kubernetes' built-in kinds of Groups (module
	// github.com/apisem/apisem/builtin). A test's own resources, or
	// none (an empty slice), replace them.
	Resources []*server.Resource

	// Server are the options of the server, for what a test changes:
	// Storage, Limits, an Admission hook that makes chosen writes fail,
	// a Logger. Start serves its own resources after Server.Resources,
	// turns GarbageCollection on, and puts the namespace lifecycle's
	// admission and the enforcement of Mutating and
	// ValidatingAdmissionPolicies (builtin.MutatingPolicies,
	// builtin.Policies) ahead of Server.Admission.
	Server server.Options
}

// Environment is a running test server.
type Environment struct {
	// Config is the client configuration of the server: its loopback
	// URL, no rate limit.
	Config *rest.Config
	// Server is the server itself, for what a client cannot do, such as
	// Compact.
	Server *server.Server
	// CustomResourceDefinitions installs more definitions, and waits for
	// them (Install, WaitEstablished).
	CustomResourceDefinitions *crd.Controller

	fail atomic.Pointer[func(server.Attributes) error]
}

// FailWrites makes the server ask f about every write from now on
// (creates, updates, patches, deletions, of objects and subresources),
// after its own checks: an error refuses the write with it, best a status
// error (status.NewConflict, status.NewServiceUnavailable, ...), so that a
// test sees its controller retry. nil stops.
func (e *Environment) FailWrites(f func(server.Attributes) error) {
	if f == nil {
		e.fail.Store(nil)
		return
	}
	e.fail.Store(&f)
}

// installTimeout bounds the installation of the definitions: a guard for
// a broken definition controller, not a speed goal.
const installTimeout = 30 * time.Second

// Start starts a server for the test and stops it when the test ends
// (its controllers first, then the server, whose watches end). A failure
// to start fails the test.
func Start(tb testing.TB, opts Options) *Environment {
	tb.Helper()
	defs, err := definitions(opts)
	if err != nil {
		tb.Fatal(err)
	}
	res := opts.Resources
	// The built-in strategies read the server's Namespaces (a
	// ResourceClaim's admin access needs a labelled one).
	nsr := &builtin.ServerNamespaces{}
	// Services' cluster IPs are IPAddress objects in the server's store.
	alloc := builtin.NewServiceAllocator()
	if res == nil {
		// Made per server: a Service's cluster IPs are allocated in
		// the server's store.
		if res, err = builtin.Resources(builtin.Options{Groups: opts.Groups, Namespaces: nsr, Allocator: alloc}); err != nil {
			tb.Fatal(err)
		}
	}
	ns := namespace.New(namespace.Options{})
	crds := crd.Options{Rules: cel.Compiler{}}
	defsRes := crds.Resource()
	so := opts.Server
	// Built-in groups come before custom ones in discovery, as in a
	// cluster; definitions last.
	so.Resources = append(append(append(append([]*server.Resource(nil), so.Resources...), ns.Resource()), res...), defsRes)
	env := &Environment{}
	validate := so.Admission.Validate
	so.Admission.Validate = func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
		if f := env.fail.Load(); f != nil {
			if err := (*f)(a); err != nil {
				return err
			}
		}
		if validate == nil {
			return nil
		}
		return validate(ctx, a, obj, old)
	}
	// Mutating and ValidatingAdmissionPolicies are enforced, as
	// envtest's kube-apiserver does (a server without them is left
	// alone): the mutating ones ahead of the test's Mutate hook.
	// kube-apiserver's default mutating plugins run ahead of them, less
	// ServiceAccount, as envtest disables it (no controller creates the
	// "default" service account a Pod would then need).
	policies := builtin.NewPolicies(builtin.PolicyOptions{})
	mutating := builtin.NewMutatingPolicies(builtin.PolicyOptions{})
	plugins := &builtin.Plugins{NoServiceAccount: true}
	so.Admission = ns.Admission(plugins.Admission(mutating.Admission(policies.Admission(so.Admission))))
	so.GarbageCollection = true
	s, err := server.New(so)
	if err != nil {
		tb.Fatal(err)
	}
	ns.Bind(s)
	nsr.Bind(s)
	alloc.Bind(s)
	policies.Bind(s)
	mutating.Bind(s)
	plugins.Bind(s)
	url := servertest.Start(tb, s) // its Cleanup shuts the server down, last
	ctrl := crds.Start(s, defsRes)
	ctx, cancel := context.WithCancel(context.Background())
	nsDone, gcDone := make(chan error, 1), make(chan error, 1)
	go func() { nsDone <- ns.Run(ctx) }()
	go func() { gcDone <- gc.New(s, gc.Options{}).Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		<-nsDone
		<-gcDone
		ctrl.Stop()
	})

	ictx, icancel := context.WithTimeout(ctx, installTimeout)
	defer icancel()
	if err := ns.CreateSystemNamespaces(ictx); err != nil {
		tb.Fatal(err)
	}
	if err := alloc.CreateServiceCIDR(ictx); err != nil {
		tb.Fatal(err)
	}
	// What kube-apiserver makes at start: the kubernetes Service, the
	// bootstrap RBAC policy, the system PriorityClasses, the API Priority
	// and Fairness configuration (those of the kinds served).
	if err := builtin.Bootstrap(ictx, s, builtin.BootstrapOptions{SecurePort: portOf(url)}); err != nil {
		tb.Fatal(err)
	}
	if err := ctrl.Install(ictx, defs...); err != nil {
		tb.Fatalf("apisemtest: installing the CustomResourceDefinitions: %v", err)
	}
	env.Config, env.Server, env.CustomResourceDefinitions = &rest.Config{Host: url, QPS: -1}, s, ctrl
	return env
}

// portOf is the port of a URL's host, 0 when it has none.
func portOf(u string) int32 {
	pu, err := neturl.Parse(u)
	if err != nil {
		return 0
	}
	p, _ := strconv.ParseInt(pu.Port(), 10, 32)
	return int32(p)
}

// definitions reads the definitions of opts' paths, then opts.CRDs.
func definitions(opts Options) ([]*crd.CustomResourceDefinition, error) {
	var out []*crd.CustomResourceDefinition
	for _, p := range opts.CRDDirectoryPaths {
		fi, err := os.Stat(p)
		switch {
		case os.IsNotExist(err) && !opts.ErrorIfCRDPathMissing:
			continue
		case err != nil:
			return nil, fmt.Errorf("apisemtest: %w", err)
		}
		var defs []*crd.CustomResourceDefinition
		if fi.IsDir() {
			defs, err = crd.Load(p)
		} else {
			var b []byte
			if b, err = os.ReadFile(p); err == nil {
				defs, err = crd.Parse(b)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("apisemtest: %s: %w", p, err)
		}
		out = append(out, defs...)
	}
	for _, d := range opts.CRDs {
		d = d.DeepCopy()
		d.APIVersion, d.Kind = apiextensionsv1.SchemeGroupVersion.String(), "CustomResourceDefinition"
		b, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		defs, err := crd.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("apisemtest: CRDs: %s: %w", d.Name, err)
		}
		out = append(out, defs...)
	}
	return out, nil
}
