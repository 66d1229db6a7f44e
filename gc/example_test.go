package gc_test

import (
	"context"
	"fmt"
	"time"

	"github.com/apisem/apisem/gc"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// A Foreground deletion of an owner: the owner stays, marked, until the
// collector has deleted its dependent; then both are gone.
func Example() {
	apps := server.UnstructuredResource(server.Resource{Group: "example.com", Version: "v1", Kind: "App", ListKind: "AppList",
		Plural: "apps", Singular: "app", Namespaced: true})
	s, err := server.New(server.Options{Resources: []*server.Resource{apps}, GarbageCollection: true})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- gc.New(s, gc.Options{}).Run(ctx) }()
	defer func() { cancel(); <-done }()

	b := s.StoreOf(apps)
	owner := &server.Unstructured{}
	owner.Name, owner.Namespace = "shop", "default"
	o, _ := b.Create(ctx, owner, store.CreateOptions{})
	block := true
	dep := &server.Unstructured{}
	dep.Name, dep.Namespace = "shop-db", "default"
	dep.OwnerReferences = []meta.OwnerReference{{APIVersion: "example.com/v1", Kind: "App", Name: "shop",
		UID: o.Meta().UID, BlockOwnerDeletion: &block}}
	b.Create(ctx, dep, store.CreateOptions{})

	marked, _, _ := b.Delete(ctx, "default", "shop", store.DeleteOptions{Propagation: store.PropagationForeground})
	fmt.Println("owner marked with", marked.Meta().Finalizers)

	// Wait, write by write, for the owner to go.
	deadline := time.After(10 * time.Second)
	for {
		rev := s.Revision()
		if _, err := b.View(ctx, "default", "shop", rv.Read{}); status.IsNotFound(err) {
			break
		}
		select {
		case <-s.Store().Changed(rev):
		case <-deadline:
			panic("the owner stayed")
		}
	}
	_, err = b.View(ctx, "default", "shop-db", rv.Read{})
	fmt.Println("dependent:", status.ReasonForError(err))
	// Output:
	// owner marked with [foregroundDeletion]
	// dependent: NotFound
}
