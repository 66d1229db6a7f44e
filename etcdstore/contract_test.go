package etcdstore

import (
	"context"
	"fmt"
	"path"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/store/storetest"
	"github.com/apisem/apisem/watch/watchtest"
)

// contractResource returns a resource of storetest.Resource on c, under a
// prefix of its own (one etcd serves every check: each check's resource
// starts empty), with a replica that keeps its whole history, as the
// in-memory store the checks also run on.
func contractResource(t *testing.T, c *clientv3.Client, n *atomic.Int64) *Resource[*storetest.Widget] {
	t.Helper()
	r, err := New(Options[*storetest.Widget]{
		Client:  c,
		Prefix:  fmt.Sprintf("/contract%d", n.Add(1)),
		Replica: store.Options[*storetest.Widget]{HistoryWindow: -1},
	}, storetest.Resource())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// compactAt compacts etcd at rev and waits for r's replica to follow.
func compactAt(t *testing.T, r *Resource[*storetest.Widget], rev rv.Version) {
	t.Helper()
	if _, err := r.p.compactAt(context.Background(), rev); err != nil {
		t.Fatalf("compacting at %d: %v", rev, err)
	}
}

// The etcd backend keeps the store.Backend contract the in-memory store
// keeps (package storetest): the list table, paged snapshots, 410 after
// compaction, isolation; with a quarter of the writes (Short), each a
// round trip to etcd.
func TestBackendContract(t *testing.T) {
	_, c := newEtcd(t)
	var n atomic.Int64
	storetest.CheckBackend(t, func(t *testing.T) storetest.Harness {
		r := contractResource(t, c, &n)
		return storetest.Harness{Backend: r, Compact: func(rev rv.Version) { compactAt(t, r, rev) }, Short: true}
	})
}

// The replica's watch source keeps the watch.Source contract
// (watchtest.CheckSource) with the writes made through etcd: each write
// returns once the replica has it, as a consistent read would wait.
func TestSourceContract(t *testing.T) {
	_, c := newEtcd(t)
	var n atomic.Int64
	watchtest.CheckSource(t, func(t *testing.T) watchtest.SourceHarness[*storetest.Widget] {
		r := contractResource(t, c, &n)
		ctx := context.Background()
		version := func(w *storetest.Widget) rv.Version {
			v, err := rv.Parse(w.ResourceVersion)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		synced := func(w *storetest.Widget) rv.Version {
			if err := r.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			return version(w)
		}
		// The replica must hold the revisions the checks start from.
		if err := r.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		return watchtest.SourceHarness[*storetest.Widget]{
			Source: r.Source(),
			Put: func(key string) rv.Version {
				cur, err := r.Get(ctx, "ns", key, rv.Read{Semantics: rv.MostRecent})
				if status.IsNotFound(err) {
					out, err := r.Create(ctx, storetest.NewWidget("ns", key), store.CreateOptions{})
					if err != nil {
						t.Fatal(err)
					}
					return synced(out)
				}
				if err != nil {
					t.Fatal(err)
				}
				cur.Items = append(cur.Items, "x") // a real change
				out, err := r.Update(ctx, cur, store.UpdateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return synced(out)
			},
			Delete: func(key string) rv.Version {
				out, deleted, err := r.Delete(ctx, "ns", key, store.DeleteOptions{})
				if err != nil || !deleted {
					t.Fatalf("Delete(%s) = %v, %v", key, deleted, err)
				}
				return synced(out)
			},
			Compact: func(rev rv.Version) { compactAt(t, r, rev) },
			Version: version,
			Name:    path.Base,
		}
	})
}
