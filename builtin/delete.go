package builtin

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// gracefulDelete is the Resource.Delete of a kind whose strategy deletes
// gracefully (Pods), as k8s.io/apiserver's rest.BeforeDelete: the
// strategy's CheckGracefulDelete gives the period of an object not yet
// being deleted (a Pod's spec.terminationGracePeriodSeconds, 0 for one
// on no node or finished), and a period above 0 leaves the object
// marked, deletionTimestamp that many seconds ahead, for its kubelet to
// finish (store.DeleteOptions.Graceful). The period is decided on the
// version the deletion is of: a write in between (a binding) decides
// again.
func gracefulDelete(s rest.RESTGracefulDeleteStrategy, k *kind) func(context.Context, store.Backend[server.Object], string, string, store.DeleteOptions) (server.Object, bool, error) {
	return func(ctx context.Context, st store.Backend[server.Object], namespace, name string, opts store.DeleteOptions) (server.Object, bool, error) {
		for {
			cur, err := st.Get(ctx, namespace, name, rv.Read{Semantics: rv.MostRecent})
			if err != nil {
				return nil, false, err
			}
			o := opts
			o.Graceful, o.ReadOnlyResult = true, true
			pinned := false
			if cur.Meta().DeletionTimestamp == nil {
				in, err := k.internal(cur.(*Object))
				if err != nil {
					return nil, false, status.NewInternalError(err)
				}
				dopts := &metav1.DeleteOptions{GracePeriodSeconds: opts.GracePeriodSeconds}
				if s.CheckGracefulDelete(ctx, in, dopts) {
					o.GracePeriodSeconds = dopts.GracePeriodSeconds
				} else {
					o.Graceful = false
				}
				if o.Preconditions.ResourceVersion == nil {
					v := cur.Meta().ResourceVersion
					o.Preconditions.ResourceVersion, pinned = &v, true
				}
			}
			out, deleted, err := st.Delete(ctx, namespace, name, o)
			if pinned && status.IsConflict(err) {
				continue // changed since: decide again
			}
			return out, deleted, err
		}
	}
}
