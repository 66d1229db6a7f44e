package gc

import (
	"context"
	"errors"
	"slices"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// errUnresolved says that an owner reference names a kind the server
// does not serve (yet): the dependent waits, as kube-controller-manager's
// collector retries an owner it cannot map.
var errUnresolved = errors.New("gc: owner's kind is not served")

// handle does what the object uid (node n) needs, as
// kube-controller-manager's garbage collector: finish an Orphan or
// Foreground deletion of it, or delete it when its owners are gone.
func (c *Collector) handle(ctx context.Context, uid string, n *node) error {
	res := c.resourceOfKey(n.key)
	if res == nil {
		return nil // its resource is not served: nothing to write through
	}
	b := c.srv.StoreOf(res)
	if b == nil {
		return nil
	}
	cur, err := b.View(ctx, n.namespace, n.name, rv.Read{Semantics: rv.MostRecent})
	if err != nil {
		return err
	}
	m := cur.Meta()
	if m.UID != uid {
		return nil // replaced; the new object has its own node
	}
	switch {
	case m.DeletionTimestamp != nil && slices.Contains(m.Finalizers, store.FinalizerOrphan):
		return c.orphan(ctx, b, uid, n)
	case m.DeletionTimestamp != nil && slices.Contains(m.Finalizers, store.FinalizerForeground):
		return c.foreground(ctx, b, uid, n)
	case m.DeletionTimestamp != nil || len(m.OwnerReferences) == 0:
		// Being deleted otherwise: its own finalizers decide.
		return nil
	}
	return c.collect(ctx, res, b, uid, m)
}

// orphan finishes an Orphan deletion: the owner uid's references are
// taken out of its dependents, then the orphan finalizer goes.
func (c *Collector) orphan(ctx context.Context, b store.Backend[server.Object], uid string, n *node) error {
	for _, d := range c.g.dependentsOf(uid) {
		if err := c.dropOwners(ctx, d, func(r meta.OwnerReference) bool { return r.UID == uid }); err != nil {
			return err
		}
	}
	return removeFinalizer(ctx, b, n, uid, store.FinalizerOrphan)
}

// foreground finishes a Foreground deletion: its dependents are deleted
// (each of them marked dirty when the deletion started, or when it
// appears); once none with blockOwnerDeletion is left, the
// foregroundDeletion finalizer goes.
func (c *Collector) foreground(ctx context.Context, b store.Backend[server.Object], uid string, n *node) error {
	if len(c.g.blocking(uid)) > 0 {
		return nil
	}
	return removeFinalizer(ctx, b, n, uid, store.FinalizerForeground)
}

// ownerState is what an owner reference points at.
type ownerState int

const (
	solid   ownerState = iota // exists, and is not waiting for its dependents
	absent                    // gone, or another object (uid) under that name
	waiting                   // in a Foreground deletion
)

// collect looks at the owners of the object uid (metadata m, read only)
// and acts as kube-controller-manager's attemptToDeleteItem: with a
// solid owner the object stays, losing its references to owners that
// are absent or waiting; with none it is deleted, in the foreground when
// an owner waits for it and it has dependents of its own.
func (c *Collector) collect(ctx context.Context, res *server.Resource, b store.Backend[server.Object], uid string, m *meta.ObjectMeta) error {
	var solids, gone, waits []string
	for _, r := range m.OwnerReferences {
		st, err := c.ownerState(ctx, res, m.Namespace, r)
		if err != nil {
			return err
		}
		switch st {
		case solid:
			solids = append(solids, r.UID)
		case absent:
			gone = append(gone, r.UID)
		case waiting:
			waits = append(waits, r.UID)
		}
	}
	switch {
	case len(solids) > 0:
		if len(gone) == 0 && len(waits) == 0 {
			return nil
		}
		drop := append(gone, waits...)
		return c.dropOwners(ctx, uid, func(r meta.OwnerReference) bool { return slices.Contains(drop, r.UID) })
	case len(waits) > 0 && len(c.g.dependents[uid]) > 0:
		// An owner waits for this object, which has dependents of its
		// own: delete it in the foreground too. If a dependent waits
		// for its own dependents, the references to the waiting owners
		// stop blocking them first, so that a cycle cannot hold them all.
		for _, d := range c.g.dependentsOf(uid) {
			if dn := c.g.nodes[d]; dn != nil && dn.foreground {
				if err := c.unblock(ctx, uid, waits); err != nil {
					return err
				}
				break
			}
		}
		return c.delete(ctx, res, b, uid, m, store.PropagationForeground)
	}
	policy := store.PropagationBackground
	switch {
	case slices.Contains(m.Finalizers, store.FinalizerOrphan):
		policy = store.PropagationOrphan
	case slices.Contains(m.Finalizers, store.FinalizerForeground):
		policy = store.PropagationForeground
	}
	return c.delete(ctx, res, b, uid, m, policy)
}

// ownerState reads the owner r of a dependent of resource res in
// namespace ns. A namespaced dependent's owner is in its namespace or
// cluster-scoped; a cluster-scoped dependent cannot name a namespaced
// owner, and such a reference is never resolved (Kubernetes does not
// collect such dependents either).
func (c *Collector) ownerState(ctx context.Context, res *server.Resource, ns string, r meta.OwnerReference) (ownerState, error) {
	ores := c.resourceOfRef(r)
	if ores == nil {
		return solid, errUnresolved
	}
	if !ores.Namespaced {
		ns = ""
	} else if !res.Namespaced {
		return solid, errCannotOwn
	}
	b := c.srv.StoreOf(ores)
	if b == nil {
		return solid, errUnresolved
	}
	o, err := b.View(ctx, ns, r.Name, rv.Read{Semantics: rv.MostRecent})
	switch {
	case status.IsNotFound(err):
		return absent, nil
	case err != nil:
		return solid, err
	}
	om := o.Meta()
	switch {
	case om.UID != r.UID:
		return absent, nil
	case om.DeletionTimestamp != nil && slices.Contains(om.Finalizers, store.FinalizerForeground):
		return waiting, nil
	}
	return solid, nil
}

// errCannotOwn: a namespaced object cannot own a cluster-scoped one.
var errCannotOwn = errors.New("gc: a cluster-scoped object names a namespaced owner")

// delete deletes the object uid with the propagation policy p, through
// the resource's own deletion where it has one (a Namespace's).
func (c *Collector) delete(ctx context.Context, res *server.Resource, b store.Backend[server.Object], uid string, m *meta.ObjectMeta, p store.Propagation) error {
	opts := store.DeleteOptions{Preconditions: store.Preconditions{UID: &uid}, Propagation: p}
	var err error
	if res.Delete != nil {
		_, _, err = res.Delete(ctx, b, m.Namespace, m.Name, opts)
	} else {
		_, _, err = b.Delete(ctx, m.Namespace, m.Name, opts)
	}
	return err
}

// dropOwners takes the owner references that match drop out of the object
// uid.
func (c *Collector) dropOwners(ctx context.Context, uid string, drop func(meta.OwnerReference) bool) error {
	return c.update(ctx, uid, func(m *meta.ObjectMeta) bool {
		n := len(m.OwnerReferences)
		m.OwnerReferences = slices.DeleteFunc(slices.Clone(m.OwnerReferences), drop)
		if len(m.OwnerReferences) == 0 {
			m.OwnerReferences = nil
		}
		return len(m.OwnerReferences) != n
	})
}

// unblock turns blockOwnerDeletion off in the object uid's references to
// the owners owners.
func (c *Collector) unblock(ctx context.Context, uid string, owners []string) error {
	return c.update(ctx, uid, func(m *meta.ObjectMeta) bool {
		changed := false
		refs := slices.Clone(m.OwnerReferences)
		for i, r := range refs {
			if slices.Contains(owners, r.UID) && isTrue(r.BlockOwnerDeletion) {
				f := false
				refs[i].BlockOwnerDeletion = &f
				changed = true
			}
		}
		m.OwnerReferences = refs
		return changed
	})
}

// update changes the metadata of the object uid with change, which
// reports whether it changed anything.
func (c *Collector) update(ctx context.Context, uid string, change func(m *meta.ObjectMeta) bool) error {
	n := c.g.nodes[uid]
	if n == nil {
		return nil
	}
	res := c.resourceOfKey(n.key)
	if res == nil {
		return nil
	}
	b := c.srv.StoreOf(res)
	if b == nil {
		return nil
	}
	_, err := b.GuaranteedUpdate(ctx, n.namespace, n.name, store.UpdateOptions{
		Preconditions: store.Preconditions{UID: &uid}, ReadOnlyResult: true,
	}, func(cur server.Object) (server.Object, error) {
		if !change(cur.Meta()) {
			return nil, errUnchanged
		}
		return cur, nil
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	return err
}

var errUnchanged = errors.New("gc: nothing to change")

// removeFinalizer removes finalizer f from the object uid (node n), which
// its store deletes when no finalizer is left.
func removeFinalizer(ctx context.Context, b store.Backend[server.Object], n *node, uid, f string) error {
	_, err := b.GuaranteedUpdate(ctx, n.namespace, n.name, store.UpdateOptions{
		Preconditions: store.Preconditions{UID: &uid}, ReadOnlyResult: true,
	}, func(cur server.Object) (server.Object, error) {
		m := cur.Meta()
		if !slices.Contains(m.Finalizers, f) {
			return nil, errUnchanged
		}
		m.Finalizers = slices.DeleteFunc(slices.Clone(m.Finalizers), func(x string) bool { return x == f })
		if len(m.Finalizers) == 0 {
			m.Finalizers = nil
		}
		return cur, nil
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	return err
}
