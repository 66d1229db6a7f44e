package demo

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// DefaultAddr is where ListenAndServe listens unless Options.Addr says
// otherwise.
const DefaultAddr = server.DefaultAddr

// Options are the library server's. New sets Resources itself (the demo
// serves the types of package api) and puts its NamespaceLifecycle
// admission ahead of Options.Admission.Check.
type Options = server.Options

// Server is the demo API server: the library's server.Server serving the
// types of package api and CustomResourceDefinitions (package crd), plus
// the namespace controller that finishes the deletion of terminating
// namespaces and the controller that serves the definitions. Create it with New and stop it with
// Shutdown.
type Server struct {
	*server.Server

	now        func() time.Time
	resources  []*server.Resource
	byKind     map[string]*server.Resource
	namespaces *server.Resource

	// The namespace controller's goroutine: cancel stops it, done is
	// closed when it has returned.
	stopController context.CancelFunc
	controllerDone chan struct{}
	kick           chan struct{} // wakes the controller; buffered, size 1

	crds *crd.Controller
}

// New returns a Server with empty storage, ready to serve. Its
// definitions' validation rules are not evaluated (see NewWith).
func New(opts Options) (*Server, error) {
	return NewWith(opts, crd.Options{})
}

// NewWith is New with the options of its CustomResourceDefinitions, such
// as a crd.RuleCompiler that evaluates their validation rules.
func NewWith(opts Options, crds crd.Options) (*Server, error) {
	d := &Server{now: opts.Now, byKind: map[string]*server.Resource{}, kick: make(chan struct{}, 1)}
	if d.now == nil {
		d.now = time.Now
	}
	d.resources = api.Resources()
	for _, r := range d.resources {
		d.byKind[r.Kind] = r
	}
	d.namespaces = d.byKind["Namespace"]
	d.namespaces.Delete = d.deleteNamespace
	defs := crds.Resource()
	// Built-in groups come before the custom ones in discovery, as in
	// Kubernetes: the definitions go after the core resources.
	core := slices.IndexFunc(d.resources, func(r *server.Resource) bool { return r.Group != "" })
	if core < 0 {
		core = len(d.resources)
	}
	opts.Resources = slices.Insert(slices.Clone(d.resources), core, defs)
	check := opts.Admission.Check
	opts.Admission.Check = func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
		if err := d.admitNamespace(ctx, a, obj); err != nil || check == nil {
			return err
		}
		return check(ctx, a, obj, old)
	}
	s, err := server.New(opts)
	if err != nil {
		return nil, err
	}
	d.Server = s
	d.crds = crds.Start(s, defs)
	ctx, cancel := context.WithCancel(context.Background())
	d.stopController = cancel
	d.controllerDone = make(chan struct{})
	go d.runNamespaceController(ctx)
	return d, nil
}

// Shutdown stops the namespace controller, then the server (see
// server.Server.Shutdown: watches end first). It is safe to call more
// than once.
func (d *Server) Shutdown(ctx context.Context) error {
	d.crds.Stop()
	d.stopController()
	var err error
	select {
	case <-d.controllerDone:
	case <-ctx.Done():
		err = ctx.Err()
	}
	return errors.Join(err, d.Server.Shutdown(ctx))
}

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
	return d.Server.Create(ctx, res, obj)
}

// admitNamespace refuses content in a namespace that does not exist (404)
// or is being deleted (403), as Kubernetes' NamespaceLifecycle admission.
// It is a mutating admission in Kubernetes that only refuses: a Check
// here, before validation.
func (d *Server) admitNamespace(ctx context.Context, a server.Attributes, obj server.Object) error {
	res := a.Resource
	if a.Operation != server.OperationCreate || !res.Namespaced {
		return nil
	}
	m := obj.Meta()
	o, err := d.StoreOf(d.namespaces).View(ctx, "", m.Namespace, rv.Read{Semantics: rv.MostRecent})
	if err != nil {
		return err
	}
	if !o.(*api.Namespace).Terminating() {
		return nil
	}
	name := m.Name
	if name == "" {
		name = m.GenerateName
	}
	gr := status.GroupResource{Group: res.Group, Resource: res.Plural}
	msg := "unable to create new content in namespace " + m.Namespace + " because it is being terminated"
	return status.New(http.StatusForbidden, status.ReasonForbidden, gr.String()+" "+strconv.Quote(name)+" is forbidden: "+msg,
		&status.Details{Name: name, Group: gr.Group, Kind: gr.Resource,
			Causes: []status.Cause{{Type: "NamespaceTerminating", Message: "namespace " + m.Namespace + " is being terminated", Field: "metadata.namespace"}}})
}

// log is the server's logger.
func (d *Server) log() *slog.Logger { return d.Logger() }

// nsStore is the store of namespaces.
func (d *Server) nsStore() store.Backend[server.Object] { return d.StoreOf(d.namespaces) }
