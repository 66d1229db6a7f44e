// Package serverstore runs a server.Server on etcd: Storage returns the
// server.Options.Storage that keeps the served resources in etcd, with
// package etcdstore (writes are etcd transactions, reads and watches are
// served from an in-memory replica). Every resource of Options.Resources
// shares one replica fed by one etcd watch on the prefix, so that the
// server has one revision space (Server.Store, Revision and Compact work
// as in memory); a resource added while the server runs (AddResource) has
// a replica of its own.
//
// Servers on one etcd and prefix serve as one: resourceVersions are
// etcd's revisions, a read or watch with resourceVersion unset first
// catches up with etcd, and a continue token (the list's revision and a
// key relative to the collection, unsigned as the server issues them) is
// valid on every server, which reads etcd at the token's revision if its
// replica started after it. Each server runs its own controllers; with
// NewPeers as their crd.Options.Peers, a CustomResourceDefinition is
// Established only once every server serves it.
//
// # Health
//
// New(opts) is the storage of one server with its health checks:
//
//	b := serverstore.New(opts)
//	s, err := server.New(server.Options{Storage: b.Storage, HealthChecks: b.HealthChecks(), ...})
//
// /readyz then fails while etcd does not answer or the replicas cannot
// catch up with it, so that a load balancer sends no traffic to a server
// that cannot serve consistent reads and writes; /livez fails only once
// etcd has been down for Options.LivenessGrace (see Backend.HealthChecks).
//
// It lives in etcdstore's module, with the etcd client, so that the
// server's module does not depend on etcd.
package serverstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/etcdstore"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/tracing"
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
	// PeerTTL is how long a server that died without leaving its Peers
	// still counts as one (its lease); 0 means 10 seconds.
	PeerTTL time.Duration
	// JSON stores every value as JSON. By default a value is in the
	// protobuf envelope when its type has a protobuf form, as Kubernetes
	// stores it (smaller and faster to decode), JSON otherwise. Values of
	// either form are read whatever it says.
	JSON bool

	// HealthcheckTimeout bounds the "etcd" health check, ReadycheckTimeout
	// the "etcd-readiness" and "replica-sync" readiness checks, as
	// kube-apiserver's --etcd-healthcheck-timeout and
	// --etcd-readycheck-timeout do (see Backend.HealthChecks). 0 means 2
	// seconds each.
	HealthcheckTimeout, ReadycheckTimeout time.Duration
	// LivenessGrace is how long etcd may fail the "etcd" check of /livez
	// and /healthz before they fail. 0 means 30 seconds; negative, no
	// grace (they fail at once, as kube-apiserver's do).
	LivenessGrace time.Duration
	// Metrics, if set, receives each etcd request's duration
	// (etcd_request_duration_seconds; metrics.Recorder is one).
	Metrics etcdstore.Metrics
	// Tracer, if set, traces the writes and each etcd call as children
	// of the request's span (etcdstore.Options.Tracer); give it the
	// server's Options.Hooks.Tracer. nil traces nothing.
	Tracer tracing.Tracer
}

// Storage returns a server.Options.Storage that keeps objects in etcd.
// Values are in the protobuf envelope for types that have a protobuf form,
// JSON otherwise (see Options.JSON), and name the version their object is
// in (server.Resource.StoredAs: a custom resource's storage version), as
// kube-apiserver's do, so that kube-apiserver and other readers of the
// same etcd read them as what they hold. New(opts).Storage is the same,
// with the health checks of the storage it makes.
func Storage(opts Options) func(store.Options[server.Object]) (server.Storage, error) {
	return New(opts).Storage
}

func newStorage(opts Options, so store.Options[server.Object]) (*storage, error) {
	eo := etcdstore.Options[server.Object]{
		Client: opts.Client, Prefix: opts.Prefix, Replica: so, RequestTimeout: opts.RequestTimeout,
		Metrics: opts.Metrics, Tracer: opts.Tracer,
	}
	p, err := etcdstore.NewReplica(eo)
	if err != nil {
		return nil, err
	}
	return &storage{eo: eo, p: p, json: opts.JSON, own: map[ownKey]*etcdstore.Resource[server.Object]{},
		versions: map[string][]*server.Resource{}}, nil
}

// storage implements server.Storage.
type storage struct {
	eo   etcdstore.Options[server.Object]
	json bool
	p    *etcdstore.Replica[server.Object]
	mu   sync.Mutex
	own  map[ownKey]*etcdstore.Resource[server.Object] // resources added after Start, by version
	// versions are the resources by the key prefix of their objects: more
	// than one where they are versions of the same objects (autoscaling/v1
	// and v2 HorizontalPodAutoscalers), whose codecs then read each
	// other's values.
	versions map[string][]*server.Resource
}

// ownKey names a replica of resources added after Start: a resource's
// group and name, and the version served.
type ownKey struct {
	gr      status.GroupResource
	version string
}

// peer returns the resource of apiVersion and kind among those whose
// objects are under key, or nil.
func (s *storage) peer(key, apiVersion, kind string) *server.Resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.versions[key] {
		if r.GroupVersion() == apiVersion && r.Kind == kind {
			return r
		}
	}
	return nil
}

func (s *storage) Store() *store.Store[server.Object] { return s.p.Store() }

func (s *storage) Start() { s.p.Start() }

// Backend adds res to the shared replica before Start; afterwards it gives
// res a replica of its own, replacing the one of a resource of the same
// group, name and version served before.
func (s *storage) Backend(res *server.Resource, ro store.ResourceOptions[server.Object]) (store.Backend[server.Object], error) {
	key := ro.Prefix
	if key == "" {
		key = ro.GroupResource.String()
	}
	s.mu.Lock()
	s.versions[key] = append(s.versions[key], res)
	s.mu.Unlock()
	c := codec{res: res, json: s.json, s: s, key: key}
	r, err := s.p.Resource(ro, c)
	if !errors.Is(err, etcdstore.ErrStarted) {
		return r, err
	}
	eo := s.eo
	eo.Codec = c
	if r, err = etcdstore.New(eo, ro); err != nil {
		return nil, err
	}
	// Keyed by version too: the versions of a custom resource each have
	// a replica of the same objects, and one must not close another's.
	k := ownKey{ro.GroupResource, res.Version}
	s.mu.Lock()
	old := s.own[k]
	s.own[k] = r
	s.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return r, nil
}

func (s *storage) Compact(ctx context.Context) (rv.Version, error) { return s.p.Compact(ctx) }

// sync waits until the shared replica and those of the resources added
// since have caught up with etcd (see etcdstore.Replica.Sync).
func (s *storage) sync(ctx context.Context) error {
	if err := s.p.Sync(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	own := slices.Collect(maps.Values(s.own))
	s.mu.Unlock()
	for _, r := range own {
		if err := r.Sync(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (s *storage) Close() error {
	s.p.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.own {
		r.Close()
	}
	return nil
}

// codec stores a resource's objects as Kubernetes stores them: in the
// protobuf envelope ("k8s\x00", then a runtime.Unknown holding apiVersion,
// kind and the object's protobuf encoding) if the type has a protobuf form
// (it implements server.ProtoObject and the Resource sets DecodeProto),
// JSON otherwise. It reads both, whatever it writes, so values written
// before as JSON stay readable and a switch of Options.JSON needs no
// migration.
//
// A value is labelled with the version its object is in
// (server.Resource.StoredAs; the resource's own without it), in the
// envelope or JSON's apiVersion and kind, as kube-apiserver labels every
// value with its storage version (and cannot read a JSON value without),
// so that another reader of the etcd (kube-apiserver, a migration) reads
// a custom resource written through a version that is not stored as the
// storage version it was converted to. A value is read as the version
// its label names when that is another served version of the same
// objects (values written before the resource said StoredAs are labelled
// by the version that wrote them); each resource's Read converts it (see
// server.Resource.StorageResource).
type codec struct {
	res  *server.Resource
	json bool // write JSON even for a type with a protobuf form
	s    *storage
	key  string // the key prefix of the objects, which versions share
}

// label returns the apiVersion and kind of the version o is in.
func (c codec) label(o server.Object) meta.TypeMeta {
	if c.res.StoredAs != nil {
		if tm := c.res.StoredAs(o); tm.Kind != "" {
			return tm
		}
	}
	return meta.TypeMeta{APIVersion: c.res.GroupVersion(), Kind: c.res.Kind}
}

func (c codec) Encode(o server.Object) ([]byte, error) {
	label := c.label(o)
	if po, ok := o.(server.ProtoObject); ok && !c.json && c.res.DecodeProto != nil {
		return envelope.AppendEnvelopeFunc(nil, label.APIVersion, label.Kind, po.SizeProto(), po.AppendProto), nil
	}
	// The object is the write's own, not yet shared (etcdstore clears its
	// resourceVersion the same way).
	tm := o.Types()
	keep := *tm
	*tm = label
	defer func() { *tm = keep }()
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	// A newline after, as kube-apiserver's JSON serializer writes one.
	return append(b, '\n'), nil
}

func (c codec) Decode(data []byte) (server.Object, error) {
	if bytes.HasPrefix(data, []byte(envelope.Magic)) {
		if c.res.DecodeProto == nil {
			return nil, fmt.Errorf("a protobuf value for %s, which has no protobuf form", c.res.Kind)
		}
		e, err := envelope.ConsumeEnvelope(data)
		if err != nil {
			return nil, err
		}
		res := c.res
		if e.APIVersion != res.GroupVersion() || e.Kind != res.Kind {
			if p := c.s.peer(c.key, e.APIVersion, e.Kind); p != nil && p.DecodeProto != nil {
				res = p // another version of these objects wrote it
			}
		}
		if e.Kind != res.Kind {
			return nil, fmt.Errorf("a %s stored where a %s belongs", e.Kind, c.res.Kind)
		}
		o, err := res.DecodeProto(e.Raw)
		if err != nil {
			return nil, err
		}
		*o.Types() = meta.TypeMeta{}
		return o, nil
	}
	o := c.res.New()
	if err := json.Unmarshal(data, o); err != nil {
		return o, err
	}
	if tm := *o.Types(); tm != (meta.TypeMeta{}) {
		if tm.APIVersion != c.res.GroupVersion() || tm.Kind != c.res.Kind {
			if p := c.s.peer(c.key, tm.APIVersion, tm.Kind); p != nil {
				o = p.New() // another version of these objects wrote it
				if err := json.Unmarshal(data, o); err != nil {
					return o, err
				}
			}
		}
		*o.Types() = meta.TypeMeta{} // stored objects have none
	}
	return o, nil
}
