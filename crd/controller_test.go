package crd

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/store"
)

// The controller's passes follow the definitions, not every write to the
// server: a custom resource's writes do not make it list the definitions
// again, a definition's write does, and while a deleted definition's
// objects are going away any write does.
func TestControllerWakesOnDefinitionWrites(t *testing.T) {
	ctx := context.Background()
	defs := Resource()
	s, err := server.New(server.Options{Resources: []*server.Resource{defs}, Rand: rand.NewChaCha8([32]byte{1})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(ctx) })
	// A controller whose passes the test runs, without its goroutine.
	c := &Controller{s: s, defs: defs, served: map[string]*installed{}, seen: map[string]string{}, waiting: map[string]bool{}}
	var d CustomResourceDefinition
	if err := json.Unmarshal([]byte(widgetCRD(t)), &d); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, defs, &d); err != nil {
		t.Fatal(err)
	}
	pass := func() rv.Version {
		t.Helper()
		r := s.Revision()
		if !c.sync(ctx) {
			t.Fatal("the pass could not list the definitions")
		}
		return r
	}
	concerns := func(after rv.Version) bool {
		wake, _ := c.concerns(after)
		return wake
	}
	// Serve it and let its own status write settle.
	rev := pass()
	for concerns(rev) {
		rev = pass()
	}
	widgets := c.s.StoreOf(c.served["widgets.example.com"].resources[0])
	for i, name := range []string{"w1", "w2", "w3"} {
		if _, err := widgets.Create(ctx, unstructured(t, `{"metadata":{"name":"`+name+`","namespace":"default"},"spec":{"color":"red"}}`), store.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if concerns(rev) {
			t.Fatalf("after %d writes of widgets the controller wakes", i+1)
		}
	}
	// Its answer holds up to the revision it looked at: no write is
	// looked at twice.
	if _, upTo := c.concerns(rev); upTo != s.Revision() {
		t.Errorf("looked up to %v; want %v", upTo, s.Revision())
	}
	if _, err := c.store().GuaranteedUpdate(ctx, "", "widgets.example.com", store.UpdateOptions{}, func(cur server.Object) (server.Object, error) {
		cur.Meta().Labels = map[string]string{"touched": "yes"}
		return cur, nil
	}); err != nil {
		t.Fatal(err)
	}
	if !concerns(rev) {
		t.Error("after a write of the definition the controller sleeps")
	}

	// Deleted, with a widget a finalizer holds: any write wakes it.
	if _, err := widgets.GuaranteedUpdate(ctx, "default", "w1", store.UpdateOptions{}, func(cur server.Object) (server.Object, error) {
		cur.Meta().Finalizers = []string{"example.com/hold"}
		return cur, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := deleteDefinition(ctx, c.store(), "", "widgets.example.com", store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		rev = pass()
	}
	if _, err := widgets.Create(ctx, unstructured(t, `{"metadata":{"name":"w9","namespace":"default"}}`), store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !c.finalizing || !concerns(rev) {
		t.Errorf("while a deleted definition's objects go away the controller sleeps (finalizing %v)", c.finalizing)
	}
}

// The controller stamps conditions with the server's clock.
func TestControllerUsesServerClock(t *testing.T) {
	at := time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC)
	defs := Resource()
	s, err := server.New(server.Options{Resources: []*server.Resource{defs}, Rand: rand.NewChaCha8([32]byte{1}),
		Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	var d CustomResourceDefinition
	if err := json.Unmarshal([]byte(widgetCRD(t)), &d); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(context.Background(), defs, &d); err != nil {
		t.Fatal(err)
	}
	c := Start(s, defs)
	t.Cleanup(c.Stop)
	got, err := c.WaitEstablished(context.Background(), "widgets.example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, cond := range got.Status.Conditions {
		if !cond.LastTransitionTime.Time.Equal(at) {
			t.Errorf("%s at %v; want the server's %v", cond.Type, cond.LastTransitionTime, at)
		}
	}
}
