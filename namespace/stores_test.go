package namespace_test

import (
	"context"
	"testing"

	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/store"
)

// splitStorage keeps the resources added after the server starts in
// stores of their own, as etcd's storage keeps a replica per custom
// resource: the server's Store does not see their writes.
type splitStorage struct {
	opts    store.Options[server.Object]
	main    *store.Store[server.Object]
	started bool
	own     []*store.Store[server.Object]
}

func (s *splitStorage) Store() *store.Store[server.Object] { return s.main }
func (s *splitStorage) Start()                             { s.started = true }
func (s *splitStorage) Backend(_ *server.Resource, ro store.ResourceOptions[server.Object]) (store.Backend[server.Object], error) {
	if !s.started {
		return s.main.Resource(ro), nil
	}
	st := store.New(s.opts)
	s.own = append(s.own, st)
	return st.Resource(ro), nil
}
func (s *splitStorage) Compact(context.Context) (rv.Version, error) {
	return s.main.Compact(s.main.Revision()), nil
}
func (s *splitStorage) Close() error {
	for _, st := range s.own {
		st.Close()
	}
	return nil
}

// A terminating namespace goes once the last object held in it lets go,
// also when that object's resource keeps it in a store of its own.
func TestNamespaceDeletionOverStoresOfTheirOwn(t *testing.T) {
	l := namespace.New(namespace.Options{})
	s, err := server.New(server.Options{Resources: []*server.Resource{l.Resource()}, Admission: l.Admission(server.Admission{}),
		Storage: func(opts store.Options[server.Object]) (server.Storage, error) {
			return &splitStorage{opts: opts, main: store.New(opts)}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	l.Bind(s)
	base := servertest.Start(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	widgets := server.UnstructuredResource(server.Resource{Group: "example.com", Version: "v1", Kind: "Widget",
		ListKind: "WidgetList", Plural: "widgets", Singular: "widget", Namespaced: true})
	if err := s.AddResource(widgets); err != nil {
		t.Fatal(err)
	}
	if s.StoreOf(widgets).Store() == s.Store() {
		t.Fatal("the test storage shares its store")
	}
	const w = "/apis/example.com/v1/namespaces/ns1/widgets/held"
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	must(t, 201, base, "POST", "/apis/example.com/v1/namespaces/ns1/widgets", `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`)
	must(t, 200, base, "DELETE", "/api/v1/namespaces/ns1", "")
	waitStore(t, s, "the namespace to report the held widget", func() bool {
		return field(t, must(t, 200, base, "GET", w, "").body, "metadata.deletionTimestamp") != nil
	})
	must(t, 200, base, "PATCH", w, `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	waitStore(t, s, "the namespace to go", func() bool { return call(t, base, "GET", "/api/v1/namespaces/ns1", "").code == 404 })
}
