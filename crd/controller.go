package crd

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// Controller makes a server serve its CustomResourceDefinitions, as
// kube-apiserver's apiextensions controllers do: it checks each
// definition's names against the others of its group (NamesAccepted),
// serves its versions (server.AddResource) and marks it Established
// (once its peers, if any, serve it too; see Peers);
// when a definition is deleted it deletes the definition's objects,
// stops serving them and releases the definition (CleanupFinalizer).
//
// It runs one goroutine, started by Start and stopped by Stop; it looks
// again after each write to a definition, and after any write while it
// waits on something else (see Controller.concerns).
type Controller struct {
	s    *server.Server
	defs *server.Resource
	opts Options

	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutine has returned
	synced chan struct{} // closed after the first pass (Synced)

	// The fields below are the goroutine's own.

	// served are the resources each definition (by name) serves now.
	served map[string]*installed
	// seen is the resourceVersion of each definition last reconciled.
	seen map[string]string
	// waiting are the definitions served here that wait for the peers to
	// serve them before they are Established (see Peers).
	waiting map[string]bool
	// joined says a report made this server a peer; reported is the
	// revision of its last report; reportFailed that the last report
	// failed, to be tried again.
	joined       bool
	reported     rv.Version
	reportFailed bool
	// listed says the last pass listed the definitions; finalizing that
	// one of them is being deleted, whose objects the controller deletes
	// and waits for.
	listed, finalizing bool
}

// installed is what one definition serves.
type installed struct {
	uid        string
	generation int64
	resources  []*server.Resource
}

// Start starts the controller of the definitions of s, whose resource
// defs (from Resource) must be one of s's Options.Resources. Stop it
// before shutting s down.
//
// Start evaluates no validation rules; use Options.Start for that.
func Start(s *server.Server, defs *server.Resource) *Controller {
	return start(s, defs, Options{})
}

func start(s *server.Server, defs *server.Resource, opts Options) *Controller {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Controller{s: s, defs: defs, opts: opts, cancel: cancel, done: make(chan struct{}), synced: make(chan struct{}),
		served: map[string]*installed{}, seen: map[string]string{}, waiting: map[string]bool{}}
	go c.run(ctx)
	return c
}

// Stop stops the controller and waits for its goroutine to return. The
// resources it serves stay served. It is safe to call more than once.
func (c *Controller) Stop() {
	c.cancel()
	<-c.done
}

// Synced returns a channel closed once the controller has had its first
// pass: it has listed the definitions stored when it started and serves
// each of them it accepts, as kube-apiserver's readiness waits for its
// definitions (its check poststarthook/crd-informer-synced). A server
// on shared storage is ready to serve custom resources from then on.
func (c *Controller) Synced() <-chan struct{} { return c.synced }

func (c *Controller) store() store.Backend[server.Object] { return c.s.StoreOf(c.defs) }

func (c *Controller) run(ctx context.Context) {
	defer close(c.done)
	st := c.s.Store()
	synced := false
	for {
		rev := st.Revision()
		if c.sync(ctx) && !synced {
			synced = true
			close(c.synced)
		}
		// Wait for a write that concerns the definitions: the writes
		// of a server's other resources cost no pass.
		for {
			select {
			case <-ctx.Done():
				return
			case <-st.Changed(rev):
			}
			var wake bool
			if wake, rev = c.concerns(rev); wake {
				break
			}
		}
	}
}

// concerns reports whether the writes to the server's store after rev
// call for a pass, and returns the revision up to which it looked. They
// do when one is a write to a definition, and any write does while the
// controller waits on something else: a pass or report that failed,
// peers that do not serve a definition yet, or the objects of a deleted
// definition (which live under other keys) to go away.
func (c *Controller) concerns(rev rv.Version) (bool, rv.Version) {
	if !c.listed || c.reportFailed || c.finalizing || len(c.waiting) > 0 {
		return true, rev
	}
	src := c.store().Source()
	cur := src.Revision() // read before Events: all of them up to cur
	evs, err := src.Events(nil, rev, 1)
	if err != nil || len(evs) > 0 {
		return true, rev // a compacted history too: look
	}
	return false, cur
}

// sync looks at every definition: the new and changed ones, and those
// being deleted (whose objects may have changed). It reports whether it
// could list them.
func (c *Controller) sync(ctx context.Context) bool {
	page, err := c.store().List(ctx, "", store.ListOptions{Read: rv.Read{Semantics: rv.Any}})
	c.listed = err == nil
	if err != nil {
		c.logErr(ctx, "", "listing definitions", err)
		return false
	}
	c.finalizing = false
	defs := make([]*CustomResourceDefinition, 0, page.Len())
	present := map[string]bool{}
	for _, o := range page.Views() { // read only
		d := o.(*CustomResourceDefinition)
		defs = append(defs, d)
		present[d.Name] = true
	}
	// A definition deleted without its finalizer (through the store)
	// stops being served here, and frees its names for the others.
	for name := range c.seen {
		if !present[name] {
			c.uninstall(name)
			delete(c.seen, name)
			delete(c.waiting, name)
			c.forgetGroup(name)
		}
	}
	for _, d := range defs {
		var err error
		switch {
		case d.DeletionTimestamp != nil:
			c.finalizing = c.finalizing || slices.Contains(d.Finalizers, CleanupFinalizer)
			err = c.finalize(ctx, d)
		case c.seen[d.Name] != d.ResourceVersion || c.waiting[d.Name]:
			var v string
			if v, err = c.reconcile(ctx, d, defs); err == nil {
				c.seen[d.Name] = v
			}
		}
		if err != nil && !status.IsNotFound(err) && !status.IsConflict(err) {
			c.logErr(ctx, d.Name, "reconciling", err)
		}
	}
	c.report(ctx, page.ResourceVersion(), defs)
	return true
}

// forgetGroup makes the definitions of the group of the named one be
// looked at again: a name it held may now be free.
func (c *Controller) forgetGroup(name string) {
	_, group, _ := strings.Cut(name, ".")
	for n := range c.seen {
		if _, g, _ := strings.Cut(n, "."); g == group {
			delete(c.seen, n)
		}
	}
}

func (c *Controller) logErr(ctx context.Context, name, what string, err error) {
	if ctx.Err() == nil {
		c.s.Logger().Warn("customresourcedefinition controller: "+what, "name", name, "err", err)
	}
}

// reconcile accepts d's names if no other definition of its group holds
// them, serves its versions and marks it Established, in one status
// write; with peers that do not serve it yet, Established is False with
// reason Installing until they do, as in Kubernetes between its naming
// and establishing controllers. It returns the resourceVersion of d after
// its write: the controller's own write needs no second look (which
// would copy and compare the whole definition to find nothing to do).
func (c *Controller) reconcile(ctx context.Context, d *CustomResourceDefinition, all []*CustomResourceDefinition) (string, error) {
	names, accepted := acceptNames(d, all)
	var serveErr error
	if accepted.Status == "True" {
		serveErr = c.install(d, names)
	}
	// Established waits until every peer serves d too.
	ready := accepted.Status != "True" || serveErr != nil || d.IsEstablished() || c.peersServe(ctx, d)
	if ready {
		delete(c.waiting, d.Name)
	} else {
		c.waiting[d.Name] = true
	}
	now := meta.NewTime(c.now().Truncate(1e9))
	out, err := c.store().GuaranteedUpdate(ctx, "", d.Name, store.UpdateOptions{
		// The result is only read, nor the new state changed after: no
		// copy of either. Status and metadata alone change: the new
		// version shares its spec with the one history keeps.
		Preconditions: store.Preconditions{UID: &d.UID}, ReadOnlyResult: true, Handoff: true, Copy: statusCopyOf,
	}, func(cur server.Object) (server.Object, error) {
		n := cur.(*CustomResourceDefinition)
		if n.Generation != d.Generation {
			return nil, status.NewConflict(status.GroupResource{Group: Group, Resource: Plural}, d.Name, "changed meanwhile")
		}
		n.Status.AcceptedNames = names
		accepted.LastTransitionTime = now
		n.Status.setCondition(accepted)
		est := CustomResourceDefinitionCondition{Type: Established, Status: "False", Reason: "NotAccepted",
			Message: "not all names are accepted", LastTransitionTime: now}
		switch {
		case n.IsEstablished():
			est = *n.Status.condition(Established)
		case accepted.Status == "True" && serveErr != nil:
			est = CustomResourceDefinitionCondition{Type: Established, Status: "False", Reason: "Installing",
				Message: serveErr.Error(), LastTransitionTime: now}
		case accepted.Status == "True" && !ready:
			est = CustomResourceDefinitionCondition{Type: Established, Status: "False", Reason: "Installing",
				Message: "the initial names have been accepted", LastTransitionTime: now}
		case accepted.Status == "True":
			est = CustomResourceDefinitionCondition{Type: Established, Status: "True", Reason: "InitialNamesAccepted",
				Message: "the initial names have been accepted", LastTransitionTime: now}
		}
		n.Status.setCondition(est)
		return n, nil
	})
	v := d.ResourceVersion
	if err == nil {
		v = out.Meta().ResourceVersion
	}
	return v, errors.Join(err, serveErr)
}

// now is the server's clock, so that the conditions' times agree with
// the times the server's own writes record.
func (c *Controller) now() time.Time { return c.s.Now() }

// acceptNames returns the names of d that no other definition of its
// group has accepted, and the NamesAccepted condition, as Kubernetes'
// naming controller computes them: each name keeps its accepted value
// when the requested one is taken, and the condition names the last
// conflict found.
func acceptNames(d *CustomResourceDefinition, all []*CustomResourceDefinition) (CustomResourceDefinitionNames, CustomResourceDefinitionCondition) {
	resources, kinds := map[string]bool{}, map[string]bool{}
	for _, o := range all {
		if o.Spec.Group != d.Spec.Group || o.Name == d.Name {
			continue
		}
		a := o.Status.AcceptedNames
		for _, n := range append([]string{a.Plural, a.Singular}, a.ShortNames...) {
			resources[n] = true
		}
		kinds[a.Kind], kinds[a.ListKind] = true, true
	}
	req, acc := d.Spec.Names, d.Status.AcceptedNames
	out := acc
	cond := CustomResourceDefinitionCondition{Type: NamesAccepted, Status: "True", Reason: "NoConflicts", Message: "no conflicts found"}
	conflict := func(reason, msg string) {
		cond.Status, cond.Reason, cond.Message = "False", reason, msg
	}
	fresh := func(requested, accepted string, used map[string]bool) error {
		if requested == accepted || requested == "" || !used[requested] {
			return nil
		}
		return fmt.Errorf("%q is already in use", requested)
	}
	if err := fresh(req.Plural, acc.Plural, resources); err != nil {
		conflict("PluralConflict", err.Error())
	} else {
		out.Plural = req.Plural
	}
	if err := fresh(req.Singular, acc.Singular, resources); err != nil {
		conflict("SingularConflict", err.Error())
	} else {
		out.Singular = req.Singular
	}
	if !reflect.DeepEqual(req.ShortNames, acc.ShortNames) {
		var msgs []string
		for _, s := range req.ShortNames {
			if slices.Contains(acc.ShortNames, s) || s == acc.Plural || s == acc.Singular {
				continue
			}
			if err := fresh(s, "", resources); err != nil {
				msgs = append(msgs, err.Error())
			}
		}
		if len(msgs) > 0 {
			// Kubernetes' aggregate error: one message as is, several
			// in brackets.
			msg := msgs[0]
			if len(msgs) > 1 {
				msg = "[" + strings.Join(msgs, ", ") + "]"
			}
			conflict("ShortNamesConflict", msg)
		} else {
			out.ShortNames = slices.Clone(req.ShortNames)
		}
	}
	if err := fresh(req.Kind, acc.Kind, kinds); err != nil {
		conflict("KindConflict", err.Error())
	} else {
		out.Kind = req.Kind
	}
	if err := fresh(req.ListKind, acc.ListKind, kinds); err != nil {
		conflict("ListKindConflict", err.Error())
	} else {
		out.ListKind = req.ListKind
	}
	out.Categories = slices.Clone(req.Categories)
	return out, cond
}

// install serves d's versions under names, replacing what d served
// before if its spec changed.
func (c *Controller) install(d *CustomResourceDefinition, names CustomResourceDefinitionNames) error {
	if old := c.served[d.Name]; old != nil && old.uid == string(d.UID) && old.generation == d.Generation {
		return nil
	}
	c.uninstall(d.Name)
	withNames := *d
	withNames.Status.AcceptedNames = names
	rs, err := customResources(&withNames, c.admitCreate(d.Name, d.Spec.Group, names.Plural), c.opts.Rules, c.opts.ResolveService)
	if err != nil {
		return err
	}
	in := &installed{uid: string(d.UID), generation: d.Generation}
	for _, r := range rs {
		if err := c.s.AddResource(r); err != nil {
			c.served[d.Name] = in
			c.uninstall(d.Name)
			return err
		}
		in.resources = append(in.resources, r)
	}
	c.served[d.Name] = in
	return nil
}

// admitCreate refuses creates of the named definition's objects once its
// deletion has begun, as Kubernetes does (k8s.io/apiextensions-apiserver
// pkg/apiserver/customresource_handler.go): a 403 whose message is like
// `widgets.example.com "w1" is forbidden: create not allowed while custom
// resource definition is terminating`. It reads the stored definition,
// whose deletion marks it at once.
func (c *Controller) admitCreate(name, group, plural string) server.AdmitFunc {
	gr := status.GroupResource{Group: group, Resource: plural}
	return func(ctx context.Context, a server.Attributes, o, _ server.Object) error {
		if a.Operation != server.OperationCreate {
			return nil // the objects there may still change and go
		}
		def, err := c.store().View(ctx, "", name, rv.Read{Semantics: rv.MostRecent})
		if err == nil {
			d := def.(*CustomResourceDefinition)
			if cond := d.Status.condition(Terminating); d.DeletionTimestamp == nil && (cond == nil || cond.Status != "True") {
				return nil
			}
		} else if !status.IsNotFound(err) {
			return err
		}
		return status.NewForbidden(gr, o.Meta().Name, errors.New("create not allowed while custom resource definition is terminating"))
	}
}

// uninstall stops serving what the named definition serves.
func (c *Controller) uninstall(name string) {
	in := c.served[name]
	if in == nil {
		return
	}
	for _, r := range in.resources {
		if err := c.s.RemoveResource(r); err != nil {
			c.s.Logger().Warn("customresourcedefinition controller: removing a resource", "name", name, "err", err)
		}
	}
	delete(c.served, name)
}

// finalize carries out the deletion of d: it deletes d's objects, waits
// until finalizers of theirs let them go (a later store write calls it
// again), stops serving them and removes CleanupFinalizer, which lets
// the store delete d.
func (c *Controller) finalize(ctx context.Context, d *CustomResourceDefinition) error {
	if !slices.Contains(d.Finalizers, CleanupFinalizer) {
		return nil
	}
	if cond := d.Status.condition(Terminating); cond == nil || cond.Reason != "InstanceDeletionInProgress" {
		return c.updateStatus(ctx, d, func(n *CustomResourceDefinition) {
			n.Status.setCondition(CustomResourceDefinitionCondition{Type: Terminating, Status: "True",
				Reason: "InstanceDeletionInProgress", Message: "CustomResource deletion is in progress",
				LastTransitionTime: meta.NewTime(c.now().Truncate(1e9))})
		})
	}
	if in := c.served[d.Name]; in != nil && len(in.resources) > 0 {
		st := c.s.StoreOf(in.resources[0])
		all := store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent}}
		if _, err := st.DeleteCollection(ctx, "", all, store.DeleteOptions{}); err != nil {
			return err
		}
		page, err := st.List(ctx, "", all)
		if err != nil {
			return err
		}
		if page.Len() > 0 {
			return nil // held by finalizers; their removal wakes us
		}
	}
	c.uninstall(d.Name)
	return c.updateStatus(ctx, d, func(n *CustomResourceDefinition) {
		n.Status.setCondition(CustomResourceDefinitionCondition{Type: Terminating, Status: "False",
			Reason: "InstanceDeletionCompleted", Message: "removed all instances",
			LastTransitionTime: meta.NewTime(c.now().Truncate(1e9))})
		n.Finalizers = slices.DeleteFunc(n.Finalizers, func(f string) bool { return f == CleanupFinalizer })
	})
}

// updateStatus changes the stored d (the same uid) with change.
func (c *Controller) updateStatus(ctx context.Context, d *CustomResourceDefinition, change func(*CustomResourceDefinition)) error {
	_, err := c.store().GuaranteedUpdate(ctx, "", d.Name, store.UpdateOptions{
		// The result is not read, nor the new state changed after: no
		// copy of either. Status and metadata alone change: the new
		// version shares its spec with the one history keeps.
		Preconditions: store.Preconditions{UID: &d.UID}, ReadOnlyResult: true, Handoff: true, Copy: statusCopyOf,
	}, func(cur server.Object) (server.Object, error) {
		n := cur.(*CustomResourceDefinition)
		change(n)
		return n, nil
	})
	return err
}

// deleteDefinition begins the deletion of a definition as Kubernetes
// does: it adds CleanupFinalizer and a Terminating condition, then
// deletes, which only marks the definition (the finalizer holds it); the
// controller does the rest.
func deleteDefinition(ctx context.Context, st store.Backend[server.Object], _, name string, opts store.DeleteOptions) (server.Object, bool, error) {
	if opts.DryRun {
		return st.Delete(ctx, "", name, opts)
	}
	marked, err := st.GuaranteedUpdate(ctx, "", name, store.UpdateOptions{Preconditions: opts.Preconditions, ReadOnlyResult: true},
		func(cur server.Object) (server.Object, error) {
			d := cur.(*CustomResourceDefinition)
			if d.DeletionTimestamp != nil {
				return d, nil
			}
			d.Status.setCondition(CustomResourceDefinitionCondition{Type: Terminating, Status: "True",
				Reason:             "InstanceDeletionPending",
				Message:            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
				LastTransitionTime: meta.NewTime(time.Now().Truncate(time.Second))})
			if !slices.Contains(d.Finalizers, CleanupFinalizer) {
				d.Finalizers = append(d.Finalizers, CleanupFinalizer)
			}
			return d, nil
		})
	if err != nil {
		return nil, false, err
	}
	uid := marked.Meta().UID
	return st.Delete(ctx, "", name, store.DeleteOptions{Preconditions: store.Preconditions{UID: &uid}, ReadOnlyResult: true})
}
