package namespace

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// Run is the namespace controller, which finishes the deletion of
// terminating namespaces: after every write to the server's store it
// deletes the contents of each terminating namespace, reports what is
// left in its conditions, and once nothing is left removes the
// kubernetes finalizer, which lets the namespace go. It returns when ctx
// is done, with ctx's error, or at once if Bind was not called.
func (l *Lifecycle) Run(ctx context.Context) error {
	s := l.srv.Load()
	if s == nil {
		return errors.New("namespace: Run before Bind")
	}
	var cases []reflect.SelectCase
	for {
		// Every store the served resources keep objects in: the server's
		// Store, and those of resources added at run time where the
		// storage gives them their own (etcd's custom resources), whose
		// writes (a finalizer removed) the controller must see.
		cases = append(cases[:0],
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(l.kick)},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(s.ResourcesChanged())})
		for _, st := range stores(s) {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(st.Changed(st.Revision()))})
		}
		if nsr := s.StoreOf(l.res); nsr != nil {
			l.reconcile(ctx, s, nsr)
		}
		if i, _, _ := reflect.Select(cases); i == 0 {
			return ctx.Err()
		}
	}
}

// stores returns the distinct stores of the resources s serves.
func stores(s *server.Server) []*store.Store[server.Object] {
	out := []*store.Store[server.Object]{s.Store()}
	for _, r := range s.Resources() {
		if b := s.StoreOf(r); b != nil && !slices.Contains(out, b.Store()) {
			out = append(out, b.Store())
		}
	}
	return out
}

func (l *Lifecycle) reconcile(ctx context.Context, s *server.Server, nsr store.Backend[server.Object]) {
	terminating, err := nsr.ParseFieldSelector("status.phase=" + PhaseTerminating)
	if err != nil {
		s.Logger().Error("namespace controller: the status.phase field selector", "err", err)
		return
	}
	page, err := nsr.List(ctx, "", store.ListOptions{Read: rv.Read{Semantics: rv.Any}, Fields: terminating})
	if err != nil {
		if ctx.Err() == nil {
			s.Logger().Error("namespace controller: listing namespaces", "err", err)
		}
		return
	}
	for _, o := range page.Views() { // read only
		if err := finalize(ctx, s, nsr, o.(*Namespace)); err != nil && ctx.Err() == nil {
			s.Logger().Warn("namespace controller", "namespace", o.Meta().Name, "err", err)
		}
	}
}

// finalize deletes the contents of the terminating namespace ns and, once
// nothing is left, releases the namespace.
func finalize(ctx context.Context, s *server.Server, nsr store.Backend[server.Object], ns *Namespace) error {
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
		// Each object is deleted as an API DELETE deletes it, through the
		// resource's own deletion where it has one, as kube-apiserver's
		// namespace controller deletes through the API: a Service's frees
		// its cluster IPs and node ports at once, a Pod's is graceful.
		del := r.Delete
		if res.Delete != nil {
			del = func(ctx context.Context, namespace, name string, opts store.DeleteOptions) (server.Object, bool, error) {
				return res.Delete(ctx, r, namespace, name, opts)
			}
		}
		page, err := r.List(ctx, ns.Name, store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
		if err != nil {
			return err
		}
		for _, o := range page.Views() { // read only
			m := o.Meta()
			if m.DeletionTimestamp == nil {
				uid := m.UID
				_, deleted, err := del(ctx, ns.Name, m.Name, store.DeleteOptions{Preconditions: store.Preconditions{UID: &uid}})
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
		now := meta.NewTime(s.Now().Truncate(1e9))
		_, err := nsr.GuaranteedUpdate(ctx, "", ns.Name, store.UpdateOptions{}, func(cur server.Object) (server.Object, error) {
			n := cur.(*Namespace)
			n.Status.Conditions = mergeConditions(n.Status.Conditions, conds, now)
			return n, nil
		})
		return err
	}

	// Empty: drop the kubernetes finalizer; the store deletes the
	// namespace when no other finalizer of either kind holds it.
	_, err := nsr.GuaranteedUpdate(ctx, "", ns.Name, store.UpdateOptions{}, func(cur server.Object) (server.Object, error) {
		n := cur.(*Namespace)
		n.Spec.Finalizers = slices.DeleteFunc(n.Spec.Finalizers, func(f string) bool { return f == FinalizerKubernetes })
		n.Status.Conditions = mergeConditions(n.Status.Conditions, contentConditions(nil, nil), meta.NewTime(s.Now().Truncate(1e9)))
		return n, nil
	})
	if status.IsNotFound(err) {
		return nil
	}
	return err
}

// contentConditions are the conditions that report what keeps a namespace.
func contentConditions(remaining, finalizers map[string]int) []Condition {
	content := Condition{Type: ConditionContentRemaining, Status: "False", Reason: "ContentDeleted",
		Message: "All content successfully removed"}
	if len(remaining) > 0 {
		content = Condition{Type: ConditionContentRemaining, Status: "True", Reason: "SomeResourcesRemain",
			Message: "Some resources are remaining: " + counts(remaining, "%s has %d resource instances")}
	}
	fin := Condition{Type: ConditionFinalizersRemaining, Status: "False", Reason: "ContentHasNoFinalizers",
		Message: "All content-preserving finalizers finished"}
	if len(finalizers) > 0 {
		fin = Condition{Type: ConditionFinalizersRemaining, Status: "True", Reason: "SomeFinalizersRemain",
			Message: "Some content in the namespace has finalizers remaining: " + counts(finalizers, "%s in %d resource instances")}
	}
	return []Condition{content, fin}
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
func sameConditions(have, want []Condition) bool {
	for _, w := range want {
		i := slices.IndexFunc(have, func(c Condition) bool { return c.Type == w.Type })
		if i < 0 || have[i].Status != w.Status || have[i].Reason != w.Reason || have[i].Message != w.Message {
			return false
		}
	}
	return true
}

// mergeConditions sets want in have, keeping the transition time of a
// condition whose status did not change.
func mergeConditions(have, want []Condition, now meta.Time) []Condition {
	out := slices.Clone(have)
	for _, w := range want {
		i := slices.IndexFunc(out, func(c Condition) bool { return c.Type == w.Type })
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
