package builtin

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/store"
)

// The objects of a fresh server's Bootstrap are the same on every
// server, but for their uid and times: they are made once per process,
// through the write pipeline of a scratch server, and each fresh
// server's stores are given copies. Writing them through each server's
// pipeline would cost a test server's start (apisemtest) hundreds of
// milliseconds, most of it the first use of the managedFields machinery
// of each kind.

// templated are the resources, by group and plural, whose bootstrap
// objects are made once per process, in the order Bootstrap writes them.
var templated = []struct{ group, plural string }{
	{"flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"},
	{"flowcontrol.apiserver.k8s.io", "flowschemas"},
	{"scheduling.k8s.io", "priorityclasses"},
	{"rbac.authorization.k8s.io", "clusterroles"},
	{"rbac.authorization.k8s.io", "clusterrolebindings"},
	{"rbac.authorization.k8s.io", "roles"},
	{"rbac.authorization.k8s.io", "rolebindings"},
}

// bootstrapTemplate returns the objects Bootstrap stores in a fresh
// server, by plural (the plurals of templated are distinct), each in
// the order of its writes.
var bootstrapTemplate = sync.OnceValues(func() (map[string][]server.Object, error) {
	res, err := Resources(Options{Groups: []string{"flowcontrol.apiserver.k8s.io", "scheduling.k8s.io", "rbac.authorization.k8s.io"}})
	if err != nil {
		return nil, err
	}
	s, err := server.New(server.Options{Resources: res})
	if err != nil {
		return nil, err
	}
	defer s.Shutdown(context.Background())
	ctx := context.Background()
	b := &bootstrapper{s: s}
	if err := b.flowcontrol(ctx); err != nil {
		return nil, err
	}
	if err := b.priorityClasses(ctx); err != nil {
		return nil, err
	}
	if err := b.rbac(ctx); err != nil {
		return nil, err
	}
	out := map[string][]server.Object{}
	for _, t := range templated {
		r := b.served(t.group, t.plural)
		page, err := s.StoreOf(r).List(ctx, "", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
		if err != nil {
			return nil, err
		}
		objs := slices.Clone(page.Views())
		slices.SortFunc(objs, func(a, b server.Object) int { return resourceVersionOf(a) - resourceVersionOf(b) })
		for i, o := range objs {
			c := o.DeepCopyObject()
			m := c.Meta()
			m.UID, m.ResourceVersion, m.CreationTimestamp = "", "", meta.Time{}
			objs[i] = c
		}
		out[t.plural] = objs
	}
	return out, nil
})

func resourceVersionOf(o server.Object) int {
	n, _ := strconv.Atoi(o.Meta().ResourceVersion)
	return n
}

// fresh stores the template's objects in those resources of b's server
// that Bootstrap fills and that hold no objects yet, and returns them:
// Bootstrap leaves them out of its reconciliation.
func (b *bootstrapper) fresh(ctx context.Context) (map[*server.Resource]bool, error) {
	var empty []*server.Resource
	for _, t := range templated {
		r := b.served(t.group, t.plural)
		if r == nil {
			continue
		}
		if _, ok := r.New().(*Object); !ok {
			continue // a kind of the user's: the reconciliation writes it
		}
		page, err := b.s.StoreOf(r).List(ctx, "", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent, Limit: 1}})
		if err != nil {
			return nil, err
		}
		if len(page.Views()) == 0 {
			empty = append(empty, r)
		}
	}
	// The APF ensurer works on both kinds at once (a FlowSchema names a
	// priority level): both are fresh, or both reconciled.
	if n := len(slices.DeleteFunc(slices.Clone(empty), func(r *server.Resource) bool {
		return r.Group != "flowcontrol.apiserver.k8s.io"
	})); n == 1 {
		empty = slices.DeleteFunc(empty, func(r *server.Resource) bool { return r.Group == "flowcontrol.apiserver.k8s.io" })
	}
	if len(empty) == 0 {
		return nil, nil
	}
	tmpl, err := bootstrapTemplate()
	if err != nil {
		return nil, err
	}
	done := map[*server.Resource]bool{}
	now := &meta.Time{Time: b.s.Now().UTC().Truncate(time.Second)}
	namespaces := map[string]bool{}
	for _, r := range empty {
		st := b.s.StoreOf(r)
		for _, o := range tmpl[r.Plural] {
			c := o.DeepCopyObject()
			m := c.Meta()
			if ns := m.Namespace; ns != "" && !namespaces[ns] {
				if err := b.ensureNamespace(ctx, ns); err != nil {
					return nil, err
				}
				namespaces[ns] = true
			}
			for i := range m.ManagedFields {
				m.ManagedFields[i].Time = now
			}
			if fs, ok := c.(*Object).Value.(*flowcontrolv1.FlowSchema); ok {
				for i := range fs.Status.Conditions {
					fs.Status.Conditions[i].LastTransitionTime = metav1.NewTime(now.Time)
				}
			}
			if _, err := st.Create(ctx, c, store.CreateOptions{}); err != nil {
				return nil, err
			}
		}
		done[r] = true
	}
	return done, nil
}
