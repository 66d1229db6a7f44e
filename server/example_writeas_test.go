package server_test

import (
	"context"
	"fmt"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// A server's own writes, as kube-apiserver's at start: CreateAs and
// UpdateAs go through the write pipeline as a client's POST and PUT do,
// and record the writer in managedFields by the field manager given
// (the painter takes over the one field kube-apiserver had set).
// UpdateAs with a resourceVersion that is no longer current is the
// 409 Conflict of an optimistic update.
func ExampleServer_CreateAs() {
	res := *gizmos
	s, err := server.New(server.Options{Resources: []*server.Resource{&res}})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())
	ctx := context.Background()

	g := &Gizmo{Spec: GizmoSpec{Color: "red"}}
	g.Name, g.Namespace = "g", "default"
	created, err := s.CreateAs(ctx, &res, g, "kube-apiserver")
	if err != nil {
		panic(err)
	}
	m := created.Meta()
	fmt.Println(m.ManagedFields[0].Manager, m.ManagedFields[0].Operation)

	blue := created.DeepCopyObject().(*Gizmo)
	blue.Spec.Color = "blue"
	updated, err := s.UpdateAs(ctx, &res, blue, "painter")
	if err != nil {
		panic(err)
	}
	for _, e := range updated.Meta().ManagedFields {
		fmt.Println(e.Manager, e.Operation)
	}

	_, err = s.UpdateAs(ctx, &res, blue, "painter") // blue's resourceVersion is the created one's
	fmt.Println(status.IsConflict(err))
	// Output:
	// kube-apiserver Update
	// painter Update
	// true
}
