// Package serverstore runs a server.Server on etcd: Storage returns the
// server.Options.Storage that keeps the served resources in etcd, with
// package etcdstore (writes are etcd transactions, reads and watches are
// served from an in-memory replica). Every resource of Options.Resources
// shares one replica fed by one etcd watch on the prefix, so that the
// server has one revision space (Server.Store, Revision and Compact work
// as in memory); a resource added while the server runs (AddResource) has
// a replica of its own.
//
// It lives in etcdstore's module, with the etcd client, so that the
// server's module does not depend on etcd.
package serverstore

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apisem/apisem/etcdstore"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// Options configure the storage. The zero value of every field but Client
// means the default written next to it.
type Options struct {
	// Client is the etcd client. Required; the caller closes it, after
	// the server's Shutdown.
	Client *clientv3.Client
	// Prefix is the etcd key prefix; "" means "/registry", as Kubernetes.
	// Servers that share a prefix share their objects.
	Prefix string
	// RequestTimeout bounds every etcd call; 0 means 10 seconds.
	RequestTimeout time.Duration
}

// Storage returns a server.Options.Storage that keeps objects in etcd.
// Values are JSON (each decoded into a new object of its Resource.New).
func Storage(opts Options) func(store.Options[server.Object]) (server.Storage, error) {
	return func(so store.Options[server.Object]) (server.Storage, error) {
		eo := etcdstore.Options[server.Object]{
			Client: opts.Client, Prefix: opts.Prefix, Replica: so, RequestTimeout: opts.RequestTimeout,
		}
		p, err := etcdstore.NewReplica(eo)
		if err != nil {
			return nil, err
		}
		return &storage{eo: eo, p: p, own: map[status.GroupResource]*etcdstore.Resource[server.Object]{}}, nil
	}
}

// storage implements server.Storage.
type storage struct {
	eo  etcdstore.Options[server.Object]
	p   *etcdstore.Replica[server.Object]
	mu  sync.Mutex
	own map[status.GroupResource]*etcdstore.Resource[server.Object] // resources added after Start
}

func (s *storage) Store() *store.Store[server.Object] { return s.p.Store() }

func (s *storage) Start() { s.p.Start() }

// Backend adds res to the shared replica before Start; afterwards it gives
// res a replica of its own, replacing the one of a resource of the same
// group and name served before.
func (s *storage) Backend(res *server.Resource, ro store.ResourceOptions[server.Object]) (store.Backend[server.Object], error) {
	c := codec{res.New}
	r, err := s.p.Resource(ro, c)
	if !errors.Is(err, etcdstore.ErrStarted) {
		return r, err
	}
	eo := s.eo
	eo.Codec = c
	if r, err = etcdstore.New(eo, ro); err != nil {
		return nil, err
	}
	s.mu.Lock()
	old := s.own[ro.GroupResource]
	s.own[ro.GroupResource] = r
	s.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return r, nil
}

func (s *storage) Compact(ctx context.Context) (rv.Version, error) { return s.p.Compact(ctx) }

func (s *storage) Close() error {
	s.p.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.own {
		r.Close()
	}
	return nil
}

// codec stores a resource's objects as JSON.
type codec struct{ new func() server.Object }

func (codec) Encode(o server.Object) ([]byte, error) { return json.Marshal(o) }

func (c codec) Decode(data []byte) (server.Object, error) {
	o := c.new()
	return o, json.Unmarshal(data, o)
}
