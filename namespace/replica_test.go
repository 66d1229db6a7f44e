package namespace_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// laggingStorage keeps every resource in one memory store, as the
// default storage does, but serves the namespaces as a replica that may
// lag: a read at any revision of a name in stale answers what stale holds
// (nil: not found), as a replica that has yet to see the latest write of
// it; a consistent (MostRecent) read answers the truth and is counted,
// as on etcd it is a quorum read.
type laggingStorage struct {
	st *store.Store[server.Object]
	ns *laggingBackend
}

type laggingBackend struct {
	store.Backend[server.Object]
	consistent atomic.Int64
	mu         sync.Mutex
	stale      map[string]server.Object
}

func newLaggingStorage(opts store.Options[server.Object]) (*laggingStorage, error) {
	st := store.New(opts)
	if err := st.Reset(1, nil); err != nil {
		return nil, err
	}
	return &laggingStorage{st: st}, nil
}

func (s *laggingStorage) Store() *store.Store[server.Object] { return s.st }
func (s *laggingStorage) Start()                             {}
func (s *laggingStorage) Close() error                       { return nil }
func (s *laggingStorage) Compact(context.Context) (rv.Version, error) {
	return s.st.Compact(s.st.Revision()), nil
}

func (s *laggingStorage) Backend(res *server.Resource, ro store.ResourceOptions[server.Object]) (store.Backend[server.Object], error) {
	b := s.st.Resource(ro)
	if res.Plural != "namespaces" {
		return b, nil
	}
	s.ns = &laggingBackend{Backend: b, stale: map[string]server.Object{}}
	return s.ns, nil
}

func (b *laggingBackend) View(ctx context.Context, namespace, name string, read rv.Read) (server.Object, error) {
	if read.Semantics == rv.MostRecent {
		b.consistent.Add(1)
		return b.Backend.View(ctx, namespace, name, read)
	}
	b.mu.Lock()
	o, ok := b.stale[name]
	b.mu.Unlock()
	switch {
	case !ok:
		return b.Backend.View(ctx, namespace, name, read)
	case o == nil:
		return nil, status.NewNotFound(status.GroupResource{Resource: "namespaces"}, name)
	}
	return o, nil
}

func (b *laggingBackend) Get(ctx context.Context, namespace, name string, read rv.Read) (server.Object, error) {
	o, err := b.View(ctx, namespace, name, read)
	if err != nil {
		return nil, err
	}
	return o.DeepCopyObject(), nil
}

// lagOn makes the replica answer o (nil: not found) for name.
func (b *laggingBackend) lagOn(name string, o server.Object) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stale[name] = o
}

// Content admission reads the namespace as kube-apiserver's
// NamespaceLifecycle reads its informer's cache: from the replica, with no
// consistent read, unless the replica lacks the namespace (created a
// moment ago) or has it Active though it was deleted through this server
// lately; the answers are the cluster's either way.
func TestContentAdmissionReadsTheReplica(t *testing.T) {
	const (
		notFound    = `namespaces "ns1" not found`
		terminating = `configmaps "cm" is forbidden: unable to create new content in namespace ns1 because it is being terminated`
	)
	for _, tt := range []struct {
		name string
		// prepare readies ns1 (or not) and makes the replica lag.
		prepare    func(t *testing.T, base string, b *laggingBackend)
		code       int
		msg        string
		consistent int64 // consistent reads of the namespace by the create
	}{
		{"in the replica", func(t *testing.T, base string, b *laggingBackend) {
			must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
		}, 201, "", 0},
		{"created a moment ago, not yet in the replica", func(t *testing.T, base string, b *laggingBackend) {
			must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
			b.lagOn("ns1", nil)
		}, 201, "", 1},
		{"missing", func(t *testing.T, base string, b *laggingBackend) {}, 404, notFound, 1},
		{"deleted, in the replica", func(t *testing.T, base string, b *laggingBackend) {
			must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
			must(t, 200, base, "DELETE", "/api/v1/namespaces/ns1", "")
		}, 403, terminating, 0},
		{"deleted here, replica has it Active", func(t *testing.T, base string, b *laggingBackend) {
			must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
			active, err := b.Get(context.Background(), "", "ns1", rv.Read{Semantics: rv.Any})
			if err != nil {
				t.Fatal(err)
			}
			must(t, 200, base, "DELETE", "/api/v1/namespaces/ns1", "")
			b.lagOn("ns1", active)
		}, 403, terminating, 1},
		{"terminating, gone from the replica", func(t *testing.T, base string, b *laggingBackend) {
			must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
			must(t, 200, base, "DELETE", "/api/v1/namespaces/ns1", "")
			b.lagOn("ns1", nil)
		}, 403, terminating, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// No controller: a deleted namespace stays Terminating.
			l := namespace.New(namespace.Options{})
			var ls *laggingStorage
			s, err := server.New(server.Options{
				Resources: []*server.Resource{l.Resource(), server.UnstructuredResource(server.Resource{Version: "v1",
					Kind: "ConfigMap", ListKind: "ConfigMapList", Plural: "configmaps", Singular: "configmap", Namespaced: true})},
				Admission: l.Admission(server.Admission{}),
				Storage: func(opts store.Options[server.Object]) (server.Storage, error) {
					var err error
					ls, err = newLaggingStorage(opts)
					return ls, err
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			l.Bind(s)
			base := servertest.Start(t, s)
			tt.prepare(t, base, ls.ns)
			before := ls.ns.consistent.Load()
			r := call(t, base, "POST", "/api/v1/namespaces/ns1/configmaps", `{"metadata":{"name":"cm"}}`)
			if r.code != tt.code || tt.msg != "" && field(t, r.body, "message") != tt.msg {
				t.Errorf("create = %d %s; want %d %q", r.code, r.body, tt.code, tt.msg)
			}
			if tt.code == 403 && (field(t, r.body, "reason") != "Forbidden" ||
				!strings.Contains(r.body, `"reason":"NamespaceTerminating"`)) {
				t.Errorf("create = %s; want reason Forbidden, cause NamespaceTerminating", r.body)
			}
			if n := ls.ns.consistent.Load() - before; n != tt.consistent {
				t.Errorf("the create read the namespace consistently %d times; want %d", n, tt.consistent)
			}
		})
	}
}
