package demo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/store/selector"
)

// Namespace deletion is two-phase, as in Kubernetes: DELETE marks the
// namespace Terminating (deletionTimestamp set, phase Terminating); the
// namespace controller then deletes everything in it, waits for objects
// held by finalizers, and finally removes the "kubernetes" finalizer from
// spec.finalizers, which lets the namespace go. The store knows that
// spec.finalizers hold a namespace (api.Resource.Finalizers), so the
// namespace stays, as in Kubernetes, with metadata.finalizers untouched.

// deleteNamespace starts the deletion of a namespace. It returns the
// namespace as it now is and whether it is already gone (a namespace
// without finalizers of either kind is deleted at once).
// The result is read-only unless opts.DryRun.
func (s *Server) deleteNamespace(ctx context.Context, r store.Backend[server.Object], _, name string, opts store.DeleteOptions) (server.Object, bool, error) {
	if opts.DryRun {
		// The store's dry run shows the deletion (and checks the
		// preconditions); the phase is what the mark below would add.
		o, deleted, err := r.Delete(ctx, "", name, opts)
		if err == nil && !deleted {
			o.(*api.Namespace).Status.Phase = api.NamespaceTerminating
		}
		return o, deleted, err
	}
	mark := func(cur server.Object) (server.Object, error) {
		ns := cur.(*api.Namespace)
		ns.Status.Phase = api.NamespaceTerminating
		return ns, nil
	}
	marked, err := r.GuaranteedUpdate(ctx, "", name, store.UpdateOptions{
		Preconditions: opts.Preconditions, ReadOnlyResult: true,
	}, mark)
	if err != nil {
		return nil, false, err
	}
	// The preconditions held for the update; the delete must act on
	// that same object.
	uid := marked.Meta().UID
	obj, deleted, err := r.Delete(ctx, "", name, store.DeleteOptions{Preconditions: store.Preconditions{UID: &uid}, ReadOnlyResult: true})
	if err == nil && !deleted {
		s.kickController()
	}
	return obj, deleted, err
}

// kickController makes the namespace controller look at the namespaces
// now rather than at the next write.
func (s *Server) kickController() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// runNamespaceController finishes the deletion of terminating namespaces:
// after every write to the store it looks at the namespaces that are
// terminating. It returns when ctx is done.
func (s *Server) runNamespaceController(ctx context.Context) {
	defer close(s.controllerDone)
	terminating, err := s.nsStore().ParseFieldSelector("status.phase=" + api.NamespaceTerminating)
	if err != nil {
		s.log().Error("namespace controller cannot start", "err", err)
		return
	}
	for {
		rev := s.Store().Revision()
		s.reconcileNamespaces(ctx, terminating)
		select {
		case <-ctx.Done():
			return
		case <-s.Store().Changed(rev):
		case <-s.kick:
		}
	}
}

func (s *Server) reconcileNamespaces(ctx context.Context, terminating selector.Fields) {
	nsr := s.nsStore()
	page, err := nsr.List(ctx, "", store.ListOptions{Read: rv.Read{Semantics: rv.Any}, Fields: terminating})
	if err != nil {
		if ctx.Err() == nil {
			s.log().Error("namespace controller: listing namespaces", "err", err)
		}
		return
	}
	for _, o := range page.Views() { // read only
		if err := s.finalizeNamespace(ctx, nsr, o.(*api.Namespace)); err != nil && ctx.Err() == nil {
			s.log().Warn("namespace controller", "namespace", o.Meta().Name, "err", err)
		}
	}
}

// finalizeNamespace deletes the contents of the terminating namespace ns
// and, once nothing is left, releases the namespace.
func (s *Server) finalizeNamespace(ctx context.Context, nsr store.Backend[server.Object], ns *api.Namespace) error {
	remaining := map[string]int{}  // resource -> objects left
	finalizers := map[string]int{} // finalizer -> objects held by it
	// Every namespaced resource served now, custom resources included;
	// the versions of one resource share its objects, so one will do.
	seen := map[status.GroupResource]bool{}
	for _, res := range s.Resources() {
		gr := status.GroupResource{Group: res.Group, Resource: res.Plural}
		if !res.Namespaced || seen[gr] {
			continue
		}
		seen[gr] = true
		r := s.StoreOf(res)
		if r == nil {
			continue // removed meanwhile
		}
		page, err := r.List(ctx, ns.Name, store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
		if err != nil {
			return err
		}
		for _, o := range page.Views() { // read only
			m := o.Meta()
			if m.DeletionTimestamp == nil {
				uid := m.UID
				_, deleted, err := r.Delete(ctx, ns.Name, m.Name, store.DeleteOptions{Preconditions: store.Preconditions{UID: &uid}})
				switch {
				case status.IsNotFound(err) || status.IsConflict(err):
					continue // gone or replaced meanwhile; the next pass sees it
				case err != nil:
					return err
				case deleted:
					continue
				}
			}
			remaining[gr.String()]++
			for _, f := range m.Finalizers {
				finalizers[f]++
			}
		}
	}

	if len(remaining) > 0 {
		conds := contentConditions(remaining, finalizers)
		if sameConditions(ns.Status.Conditions, conds) {
			return nil
		}
		now := meta.NewTime(s.now().Truncate(1e9))
		_, err := nsr.GuaranteedUpdate(ctx, "", ns.Name, store.UpdateOptions{}, func(cur server.Object) (server.Object, error) {
			n := cur.(*api.Namespace)
			n.Status.Conditions = mergeConditions(n.Status.Conditions, conds, now)
			return n, nil
		})
		return err
	}

	// Empty: drop the kubernetes finalizer; the store deletes the
	// namespace when no other finalizer of either kind holds it.
	_, err := nsr.GuaranteedUpdate(ctx, "", ns.Name, store.UpdateOptions{}, func(cur server.Object) (server.Object, error) {
		n := cur.(*api.Namespace)
		n.Spec.Finalizers = slices.DeleteFunc(n.Spec.Finalizers, func(f string) bool { return f == api.FinalizerKubernetes })
		n.Status.Conditions = mergeConditions(n.Status.Conditions, contentConditions(nil, nil), meta.NewTime(s.now().Truncate(1e9)))
		return n, nil
	})
	if status.IsNotFound(err) {
		return nil
	}
	return err
}

// contentConditions are the conditions that report what keeps a namespace.
func contentConditions(remaining, finalizers map[string]int) []api.NamespaceCondition {
	content := api.NamespaceCondition{Type: api.NamespaceContentRemaining, Status: "False", Reason: "ContentDeleted",
		Message: "All content successfully removed"}
	if len(remaining) > 0 {
		content = api.NamespaceCondition{Type: api.NamespaceContentRemaining, Status: "True", Reason: "SomeResourcesRemain",
			Message: "Some resources are remaining: " + counts(remaining, "%s has %d resource instances")}
	}
	fin := api.NamespaceCondition{Type: api.NamespaceFinalizersRemaining, Status: "False", Reason: "ContentHasNoFinalizers",
		Message: "All content-preserving finalizers finished"}
	if len(finalizers) > 0 {
		fin = api.NamespaceCondition{Type: api.NamespaceFinalizersRemaining, Status: "True", Reason: "SomeFinalizersRemain",
			Message: "Some content in the namespace has finalizers remaining: " + counts(finalizers, "%s in %d resource instances")}
	}
	return []api.NamespaceCondition{content, fin}
}

// counts lists the counts of m in key order, each formatted with format
// (a %s for the key, a %d for the count), separated by commas.
func counts(m map[string]int, format string) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf(format, k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// sameConditions reports whether have already says what want says
// (transition times aside).
func sameConditions(have, want []api.NamespaceCondition) bool {
	for _, w := range want {
		i := slices.IndexFunc(have, func(c api.NamespaceCondition) bool { return c.Type == w.Type })
		if i < 0 || have[i].Status != w.Status || have[i].Reason != w.Reason || have[i].Message != w.Message {
			return false
		}
	}
	return true
}

// mergeConditions sets want in have, keeping the transition time of a
// condition whose status did not change.
func mergeConditions(have, want []api.NamespaceCondition, now meta.Time) []api.NamespaceCondition {
	out := slices.Clone(have)
	for _, w := range want {
		i := slices.IndexFunc(out, func(c api.NamespaceCondition) bool { return c.Type == w.Type })
		switch {
		case i < 0:
			w.LastTransitionTime = now
			out = append(out, w)
		case out[i].Status != w.Status:
			w.LastTransitionTime = now
			out[i] = w
		default:
			w.LastTransitionTime = out[i].LastTransitionTime
			out[i] = w
		}
	}
	return out
}
