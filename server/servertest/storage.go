package servertest

import (
	"context"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/store"
)

// StoresPerResource is a server.Options.Storage that keeps each resource
// added after the server starts (a CustomResourceDefinition's, say) in a
// store of its own, as etcd's storage keeps a replica per custom
// resource: the server's Store neither holds their objects nor sees
// their writes. Controllers that must follow every resource (namespaces,
// garbage collection) are tested on it.
func StoresPerResource(opts store.Options[server.Object]) (server.Storage, error) {
	return &perResource{opts: opts, main: store.New(opts)}, nil
}

type perResource struct {
	opts    store.Options[server.Object]
	main    *store.Store[server.Object]
	started bool
	own     []*store.Store[server.Object]
}

func (s *perResource) Store() *store.Store[server.Object] { return s.main }
func (s *perResource) Start()                             { s.started = true }

func (s *perResource) Backend(_ *server.Resource, ro store.ResourceOptions[server.Object]) (store.Backend[server.Object], error) {
	if !s.started {
		return s.main.Resource(ro), nil
	}
	st := store.New(s.opts)
	s.own = append(s.own, st)
	return st.Resource(ro), nil
}

func (s *perResource) Compact(context.Context) (rv.Version, error) {
	return s.main.Compact(s.main.Revision()), nil
}

func (s *perResource) Close() error {
	for _, st := range s.own {
		st.Close()
	}
	return nil
}
