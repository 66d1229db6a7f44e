package server

import (
	"context"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/store"
)

// Storage keeps the objects of a server's resources: in memory by default
// (one store.Store), or elsewhere, as the etcd storage of package
// etcdstore's module does (writes to etcd, reads from an in-memory
// replica). Options.Storage makes it.
type Storage interface {
	// Store is the store reads are served from, one revision space for
	// every resource; Server.Store returns it. Controllers read its
	// Revision and wait on its Changed.
	Store() *store.Store[Object]
	// Backend returns the storage of res, described by ro. The server
	// calls it for each resource it starts serving (New, AddResource),
	// again for a resource it served before and serves anew.
	Backend(res *Resource, ro store.ResourceOptions[Object]) (store.Backend[Object], error)
	// Start is called once, by New, when it has the backends of
	// Options.Resources: a storage that replicates into memory loads them
	// from here on (the later calls of Backend come from AddResource).
	Start()
	// Compact discards the history up to the latest revision and returns
	// the compaction revision: once it returns, reads and watches at older
	// resourceVersions answer 410 Gone.
	Compact(ctx context.Context) (rv.Version, error)
	// Close releases what the storage holds; Shutdown calls it last.
	Close() error
}

// memStorage is the default Storage: every resource in one store.Store.
type memStorage struct{ s *store.Store[Object] }

// newMemStorage starts the store at revision 1, empty, as a new etcd
// keyspace starts: a list or watch of an empty store then carries a
// resourceVersion (kube-apiserver never answers one without), older than
// the first write's, so a watch from it misses nothing.
func newMemStorage(so store.Options[Object]) memStorage {
	st := store.New(so)
	if err := st.Reset(1, nil); err != nil {
		panic(err) // a new store is empty: Reset cannot fail
	}
	return memStorage{st}
}

func (m memStorage) Store() *store.Store[Object] { return m.s }

func (m memStorage) Backend(_ *Resource, ro store.ResourceOptions[Object]) (store.Backend[Object], error) {
	return m.s.Resource(ro), nil
}

func (memStorage) Start() {}

func (m memStorage) Compact(context.Context) (rv.Version, error) {
	return m.s.Compact(m.s.Revision()), nil
}

func (memStorage) Close() error { return nil }
