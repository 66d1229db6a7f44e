package gc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// Random ownership graphs (seeded, so a failure repeats), random
// deletions with random policies: once the collector is idle, every
// deletion has finished (no collector finalizer is left), every
// reference left names an owner that exists, what was deleted is gone,
// and what had no owner and was not deleted is still there.
func TestRandomGraphs(t *testing.T) {
	policies := []store.Propagation{"", store.PropagationBackground, store.PropagationForeground, store.PropagationOrphan}
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 1))
				c := newCluster(t)
				type obj struct {
					id     string
					uid    string
					ns     string // "" for a Cluster
					owners bool
				}
				var objs []obj
				for i := range 14 {
					kind, ns := []string{"Widget", "Gadget", "Cluster"}[r.IntN(3)], []string{"a", "b"}[r.IntN(2)]
					id := fmt.Sprintf("%s/%s/o%d", kind, ns, i)
					if kind == "Cluster" {
						ns, id = "", fmt.Sprintf("Cluster/o%d", i)
					}
					var refs []meta.OwnerReference
					for range r.IntN(3) {
						if len(objs) == 0 {
							break
						}
						o := objs[r.IntN(len(objs))]
						if o.ns != "" && o.ns != ns {
							continue // a Cluster cannot name a namespaced owner; another namespace is tested elsewhere
						}
						okind, _, oname := split(o.id)
						block := r.IntN(2) == 0
						refs = append(refs, meta.OwnerReference{APIVersion: group + "/v1", Kind: okind, Name: oname, UID: o.uid, BlockOwnerDeletion: &block})
					}
					if r.IntN(8) == 0 { // a reference to an owner that never existed, of a kind the object may name
						refs = append(refs, meta.OwnerReference{APIVersion: group + "/v1", Kind: kind, Name: "nobody", UID: "u-nobody"})
					}
					u := &server.Unstructured{}
					u.Name, u.Namespace, u.OwnerReferences = split3(id), ns, refs
					created, err := c.s.StoreOf(c.kinds[kind]).Create(context.Background(), u, store.CreateOptions{})
					if err != nil {
						t.Fatal(err)
					}
					objs = append(objs, obj{id: id, uid: created.Meta().UID, ns: ns, owners: len(refs) > 0})
				}
				deleted := map[string]bool{}
				for range 4 {
					o := objs[r.IntN(len(objs))]
					// The collector may take it between a read and the
					// deletion (its owner's deletion ran a moment ago).
					kind, ns, name := split(o.id)
					_, _, err := c.s.StoreOf(c.kinds[kind]).Delete(context.Background(), ns, name, store.DeleteOptions{Propagation: policies[r.IntN(len(policies))]})
					if status.IsNotFound(err) {
						continue
					}
					if err != nil {
						t.Fatalf("delete %s: %v", o.id, err)
					}
					deleted[o.id] = true
					if r.IntN(2) == 0 {
						synctest.Wait() // sometimes one at a time, sometimes together
					}
				}
				synctest.Wait()
				for _, o := range objs {
					cur := c.get(o.id)
					switch {
					case cur == nil && !deleted[o.id] && !o.owners:
						t.Errorf("%s: gone, though it had no owner and was not deleted", o.id)
					case cur == nil:
						continue
					case deleted[o.id]:
						t.Errorf("%s: deleted, still there: %s", o.id, c.state(o.id))
					}
					m := cur.Meta()
					if slices.Contains(m.Finalizers, store.FinalizerForeground) || slices.Contains(m.Finalizers, store.FinalizerOrphan) {
						t.Errorf("%s: a collector finalizer is left: %s", o.id, c.state(o.id))
					}
					for _, ref := range m.OwnerReferences {
						oid := ref.Kind + "/" + ref.Name
						if ref.Kind != "Cluster" {
							oid = ref.Kind + "/" + m.Namespace + "/" + ref.Name
						}
						kind, ns, name := split(oid)
						owner, err := c.s.StoreOf(c.kinds[kind]).Get(context.Background(), ns, name, rv.Read{})
						if status.IsNotFound(err) || err == nil && owner.Meta().UID != ref.UID {
							t.Errorf("%s: names %s, which is gone", o.id, oid)
						}
					}
				}
			})
		})
	}
}

// split3 returns the name of an object id.
func split3(id string) string {
	_, _, name := split(id)
	return name
}
