package namespace

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// The namespaces a cluster makes at start (Kubernetes' system namespaces
// controller): kube-apiserver creates the first three, the node lease
// controller's namespace comes with them.
const (
	Default       = "default"
	KubeSystem    = "kube-system"
	KubePublic    = "kube-public"
	KubeNodeLease = "kube-node-lease"
)

// immortal are the namespaces Kubernetes' NamespaceLifecycle admission
// refuses to delete (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle).
var immortal = []string{Default, KubeSystem, KubePublic}

// Options configure a Lifecycle. The zero value is a cluster's lifecycle.
type Options struct {
	// AllowDeletingSystem lets the system namespaces (default,
	// kube-system and kube-public) be deleted, as a kube-apiserver
	// without the NamespaceLifecycle admission plugin.
	AllowDeletingSystem bool
}

// Lifecycle is Kubernetes' namespace lifecycle for one server: the
// namespaces resource with its two-phase deletion, the admission that
// goes with it, and the controller that empties a deleted namespace.
// Create it with New, serve Resource, install Admission, then Bind it to
// the server before serving and Run the controller.
type Lifecycle struct {
	opts Options
	res  *server.Resource
	srv  atomic.Pointer[server.Server]
	kick chan struct{} // wakes the controller; buffered, size 1
	// deleted are the namespaces deleted through this Lifecycle lately,
	// whose content admission reads from the source of truth.
	deleted recentDeletions
}

// New returns a Lifecycle with its namespaces resource.
func New(opts Options) *Lifecycle {
	l := &Lifecycle{opts: opts, res: Resource(), kick: make(chan struct{}, 1), deleted: recentDeletions{now: time.Now}}
	l.res.Delete = l.delete
	return l
}

// Resource returns the namespaces resource to serve: Resource's, whose
// DELETE marks the namespace Terminating for the controller to finish.
func (l *Lifecycle) Resource() *server.Resource { return l.res }

// Bind makes the admission and the controller act on s, which serves
// Resource. Call it after server.New, before s serves requests.
func (l *Lifecycle) Bind(s *server.Server) { l.srv.Store(s) }

// Admission returns next with Kubernetes' NamespaceLifecycle admission
// ahead of it: content created in a namespace that does not exist is
// refused with 404, in one that is terminating with 403; a system
// namespace cannot be deleted (403), unless Options.AllowDeletingSystem.
func (l *Lifecycle) Admission(next server.Admission) server.Admission {
	check, validate := next.Check, next.Validate
	out := next // Mutate and whatever else next has, unchanged
	// A refusal that changes nothing is a Check: a Mutate hook would cost
	// every write a second encoding of its object.
	out.Check = func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
		if err := l.admitContent(ctx, a, obj); err != nil || check == nil {
			return err
		}
		return check(ctx, a, obj, old)
	}
	out.Validate = func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
		if err := l.admitDelete(a); err != nil || validate == nil {
			return err
		}
		return validate(ctx, a, obj, old)
	}
	return out
}

// admitDelete refuses the deletion of a system namespace with
// kube-apiserver's 403. A deletion it lets pass is remembered for
// admitContent, as Kubernetes' NamespaceLifecycle remembers it.
func (l *Lifecycle) admitDelete(a server.Attributes) error {
	if a.Operation != server.OperationDelete || a.Resource != l.res {
		return nil
	}
	if !l.opts.AllowDeletingSystem {
		for _, n := range immortal {
			if a.Name == n {
				return status.NewForbidden(status.GroupResource{Resource: "namespaces"}, a.Name,
					errors.New("this namespace may not be deleted"))
			}
		}
	}
	l.deleted.add(a.Name)
	return nil
}

// admitContent refuses content in a namespace that does not exist (404)
// or is being deleted (403), as Kubernetes' NamespaceLifecycle. It is a
// mutating admission in Kubernetes that only refuses: a Check here,
// before validation.
func (l *Lifecycle) admitContent(ctx context.Context, a server.Attributes, obj server.Object) error {
	res := a.Resource
	s := l.srv.Load()
	if a.Operation != server.OperationCreate || !res.Namespaced || s == nil || obj.Meta().Namespace == "" {
		// Without a namespace (a create at namespaces//<resource>) there
		// is none to look up: validation refuses the object, as
		// NamespaceLifecycle lets it pass.
		return nil
	}
	nsr := s.StoreOf(l.res)
	if nsr == nil {
		return nil
	}
	m := obj.Meta()
	ns, err := l.lookup(ctx, nsr, m.Namespace)
	if err != nil {
		return err
	}
	if !ns.Terminating() {
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

// lookup reads the namespace name for admitContent as kube-apiserver's
// NamespaceLifecycle reads it: from the replica (its informer's cache),
// with no read of the source of truth, which on etcd is a quorum read per
// create. The source of truth is read only when the replica lacks the
// namespace (it may have been created a moment ago: 404 only if it does
// not exist), or has it Active although it was deleted through this
// Lifecycle lately (the replica may not have the deletion yet).
func (l *Lifecycle) lookup(ctx context.Context, nsr store.Backend[server.Object], name string) (*Namespace, error) {
	o, err := nsr.View(ctx, "", name, rv.Read{Semantics: rv.Any})
	switch {
	case err == nil:
		if ns := o.(*Namespace); ns.Terminating() || !l.deleted.recent(name) {
			return ns, nil
		}
	case !status.IsNotFound(err):
		return nil, err
	}
	o, err = nsr.View(ctx, "", name, rv.Read{Semantics: rv.MostRecent})
	if err != nil {
		return nil, err
	}
	return o.(*Namespace), nil
}

// Kubernetes' NamespaceLifecycle reads a namespace deleted in the last 30
// seconds from storage, and remembers at most the last 100.
const (
	deletionTTL  = 30 * time.Second
	maxDeletions = 100
)

// recentDeletions are the namespaces deleted lately, each with the time
// it was deleted.
type recentDeletions struct {
	now func() time.Time
	n   atomic.Int32 // len(at): a create reads no lock while none is held
	mu  sync.Mutex
	at  map[string]time.Time
}

// add remembers that name was deleted now; at the bound, the oldest
// deletion (or one expired) is forgotten first.
func (d *recentDeletions) add(name string) {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.at == nil {
		d.at = make(map[string]time.Time)
	}
	if _, ok := d.at[name]; !ok && len(d.at) >= maxDeletions {
		oldest, first := "", true
		for n, t := range d.at {
			if first || t.Before(d.at[oldest]) {
				oldest, first = n, false
			}
		}
		delete(d.at, oldest)
	}
	d.at[name] = now
	d.n.Store(int32(len(d.at)))
}

// recent reports whether name was deleted less than deletionTTL ago.
func (d *recentDeletions) recent(name string) bool {
	if d.n.Load() == 0 {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.at[name]
	if ok && d.now().Sub(t) >= deletionTTL {
		delete(d.at, name)
		d.n.Store(int32(len(d.at)))
		return false
	}
	return ok
}

// CreateSystemNamespaces creates the system namespaces (default,
// kube-system, kube-public, kube-node-lease) that do not exist yet, as a
// cluster has them from its start. Call it after Bind.
func (l *Lifecycle) CreateSystemNamespaces(ctx context.Context) error {
	s := l.srv.Load()
	if s == nil {
		return errors.New("namespace: CreateSystemNamespaces before Bind")
	}
	for _, name := range []string{Default, KubeSystem, KubePublic, KubeNodeLease} {
		n := &Namespace{}
		n.Name = name
		if _, err := s.Create(ctx, l.res, n); err != nil && !status.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// delete starts the deletion of a namespace (Resource.Delete). It returns
// the namespace as it now is and whether it is already gone (a namespace
// without finalizers of either kind is deleted at once). The result is
// read-only unless opts.DryRun.
func (l *Lifecycle) delete(ctx context.Context, r store.Backend[server.Object], _, name string, opts store.DeleteOptions) (server.Object, bool, error) {
	if opts.DryRun {
		// The store's dry run shows the deletion (and checks the
		// preconditions); the phase is what the mark below would add.
		o, deleted, err := r.Delete(ctx, "", name, opts)
		if err == nil && !deleted {
			o.(*Namespace).Status.Phase = PhaseTerminating
		}
		return o, deleted, err
	}
	mark := func(cur server.Object) (server.Object, error) {
		ns := cur.(*Namespace)
		ns.Status.Phase = PhaseTerminating
		return ns, nil
	}
	marked, err := r.GuaranteedUpdate(ctx, "", name, store.UpdateOptions{
		Preconditions: opts.Preconditions, ReadOnlyResult: true,
	}, mark)
	if err != nil {
		return nil, false, err
	}
	// The preconditions held for the update; the delete must act on
	// that same object, with the deletion's propagation policy.
	uid := marked.Meta().UID
	obj, deleted, err := r.Delete(ctx, "", name, store.DeleteOptions{Preconditions: store.Preconditions{UID: &uid},
		ReadOnlyResult: true, Propagation: opts.Propagation})
	if err == nil && !deleted {
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
	return obj, deleted, err
}
