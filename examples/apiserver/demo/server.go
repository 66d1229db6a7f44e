package demo

import (
	"context"
	"errors"
	"slices"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// DefaultAddr is where ListenAndServe listens unless Options.Addr says
// otherwise.
const DefaultAddr = server.DefaultAddr

// Options are the library server's. New serves the types of package api
// with Options.Resources, which replace those of the same group and
// plural (a build serving Kubernetes' own ConfigMaps, say: module
// builtin), and puts package namespace's NamespaceLifecycle admission
// ahead of Options.Admission.
type Options = server.Options

// Server is the demo API server: the library's server.Server serving the
// types of package api and CustomResourceDefinitions (package crd), plus
// the namespace controller that finishes the deletion of terminating
// namespaces, the controller that serves the definitions and, with
// Options.GarbageCollection, package gc's garbage collector. Create it
// with New and stop it with Shutdown.
type Server struct {
	*server.Server

	resources []*server.Resource
	byKind    map[string]*server.Resource
	ns        *namespace.Lifecycle

	// The namespace controller's goroutine: cancel stops it, done is
	// closed when it has returned.
	stopController context.CancelFunc
	controllerDone chan struct{}
	gcDone         chan struct{} // closed when the garbage collector has returned

	crds *crd.Controller
}

// New returns a Server with empty storage, ready to serve. Its
// definitions' validation rules are not evaluated (see NewWith).
func New(opts Options) (*Server, error) {
	return NewWith(opts, crd.Options{})
}

// NewWith is New with the options of its CustomResourceDefinitions, such
// as a schema.RuleCompiler that evaluates their validation rules.
func NewWith(opts Options, crds crd.Options) (*Server, error) {
	d := &Server{byKind: map[string]*server.Resource{}}
	ns := namespace.New(namespace.Options{})
	d.ns = ns
	var builtin int // how many resources come before the demo's custom group
	d.resources, builtin = withReplacements(api.Resources(), opts.Resources)
	for i, r := range d.resources {
		if r.Kind == "Namespace" && r.Group == "" {
			d.resources[i] = ns.Resource() // with the two-phase deletion
		}
		if d.byKind[d.resources[i].Kind] == nil { // core/v1's Event, not events.k8s.io's
			d.byKind[d.resources[i].Kind] = d.resources[i]
		}
	}
	defs := crds.Resource()
	// Built-in groups come before the custom ones in discovery, as in
	// Kubernetes: the definitions go after the built-in resources.
	opts.Resources = slices.Insert(slices.Clone(d.resources), builtin, defs)
	opts.Admission = ns.Admission(opts.Admission)
	s, err := server.New(opts)
	if err != nil {
		return nil, err
	}
	d.Server = s
	ns.Bind(s)
	d.crds = crds.Start(s, defs)
	ctx, cancel := context.WithCancel(context.Background())
	d.stopController = cancel
	d.controllerDone = make(chan struct{})
	go func() {
		defer close(d.controllerDone)
		ns.Run(ctx) // returns when ctx is done
	}()
	d.startCollector(ctx, opts.GarbageCollection)
	return d, nil
}

// Shutdown stops the namespace controller and the garbage collector, then
// the server (see
// server.Server.Shutdown: watches end first). It is safe to call more
// than once.
func (d *Server) Shutdown(ctx context.Context) error {
	d.crds.Stop()
	d.stopController()
	var err error
	for _, done := range []chan struct{}{d.controllerDone, d.gcDone} {
		select {
		case <-done:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	return errors.Join(err, d.Server.Shutdown(ctx))
}

// Namespaces returns the server's namespace lifecycle (package
// namespace), to create the system namespaces with.
func (d *Server) Namespaces() *namespace.Lifecycle { return d.ns }

// CustomResourceDefinitions returns the controller of the server's
// CustomResourceDefinitions, to install definitions with.
func (d *Server) CustomResourceDefinitions() *crd.Controller { return d.crds }

// Create stores obj, one of the types of package api, as a POST to its
// collection would: for seeding the server and for tests. obj is not
// modified.
func (d *Server) Create(ctx context.Context, obj server.Object) (server.Object, error) {
	res := d.byKind[api.Kind(obj)]
	if res == nil {
		return nil, status.NewBadRequest("the server serves no resource of this type")
	}
	obj, err := asServed(res, obj)
	if err != nil {
		return nil, err
	}
	return d.Server.Create(ctx, res, obj)
}
