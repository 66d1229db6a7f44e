package gc_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apisem/apisem/gc"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/store"
)

// benchServer serves Widgets, with a collector running if collect.
func benchServer(b *testing.B, collect bool) (*server.Server, store.Backend[server.Object]) {
	widgets := resource("Widget", true)
	s, err := server.New(server.Options{Resources: []*server.Resource{widgets}, GarbageCollection: true})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	if collect {
		go func() { done <- gc.New(s, gc.Options{}).Run(ctx) }()
	} else {
		done <- nil
	}
	b.Cleanup(func() {
		cancel()
		<-done
		s.Shutdown(context.Background())
	})
	return s, s.StoreOf(widgets)
}

func create(b *testing.B, st store.Backend[server.Object], name string, owners ...meta.OwnerReference) server.Object {
	u := &server.Unstructured{}
	u.Name, u.Namespace, u.OwnerReferences = name, "ns", owners
	o, err := st.Create(context.Background(), u, store.CreateOptions{ReadOnlyResult: true})
	if err != nil {
		b.Fatal(err)
	}
	return o
}

// What a running collector adds to writes that have nothing to do with
// it (objects without owners): compare collector=false and true.
func BenchmarkCreateUnowned(b *testing.B) {
	for _, collect := range []bool{false, true} {
		b.Run(fmt.Sprintf("collector=%v", collect), func(b *testing.B) {
			_, st := benchServer(b, collect)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				create(b, st, fmt.Sprint("w", i))
			}
		})
	}
}

// The collection of the dependents of one deleted owner, per dependent:
// from the owner's deletion until the last dependent is gone.
func BenchmarkCollectDependents(b *testing.B) {
	s, st := benchServer(b, true)
	owner := create(b, st, "owner")
	ref := meta.OwnerReference{APIVersion: group + "/v1", Kind: "Widget", Name: "owner", UID: owner.Meta().UID}
	for i := range b.N {
		create(b, st, fmt.Sprint("d", i), ref)
	}
	b.ReportAllocs()
	b.ResetTimer()
	if _, _, err := st.Delete(context.Background(), "ns", "owner", store.DeleteOptions{}); err != nil {
		b.Fatal(err)
	}
	for {
		rev := s.Revision()
		page, err := st.List(context.Background(), "ns", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent, Limit: 1}})
		if err != nil {
			b.Fatal(err)
		}
		if page.Len() == 0 {
			break
		}
		<-s.Store().Changed(rev)
	}
}
