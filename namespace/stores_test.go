package namespace_test

import (
	"context"
	"testing"

	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// A terminating namespace goes once the last object held in it lets go,
// also when that object's resource keeps it in a store of its own.
func TestNamespaceDeletionOverStoresOfTheirOwn(t *testing.T) {
	l := namespace.New(namespace.Options{})
	s, err := server.New(server.Options{Resources: []*server.Resource{l.Resource()}, Admission: l.Admission(server.Admission{}),
		Storage: servertest.StoresPerResource})
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
