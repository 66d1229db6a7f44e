package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
)

// TestStoredStateIsImmutable mutates maps and slices of everything the
// store accepted or returned and checks that stored state and history are
// unchanged (DESIGN invariant 5).
func TestStoredStateIsImmutable(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	mutate := func(w *widget) {
		w.Labels["l"] = "mutated"
		w.Annotations["x"] = "mutated"
		w.Finalizers[0] = "mutated"
		w.OwnerReferences[0].Name = "mutated"
		*w.OwnerReferences[0].Controller = false
		w.Spec["s"] = "mutated"
		w.Items[0] = "mutated"
		w.Name = "mutated"
	}
	newFull := func(name string) *widget {
		yes := true
		w := newWidget("ns", name)
		w.Labels = map[string]string{"l": "v"}
		w.Annotations = map[string]string{"x": "y"}
		w.Finalizers = []string{"f"}
		w.OwnerReferences = []meta.OwnerReference{{Name: "owner", Controller: &yes}}
		w.Spec = map[string]string{"s": "v"}
		w.Items = []string{"i"}
		return w
	}
	in := newFull("a")
	out, err := f.r.Create(ctx, in, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mutate(in)
	mutate(out)
	upd := newFull("a")
	upd.Spec["s"] = "v2"
	out2, err := f.r.Update(ctx, upd, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mutate(upd)
	mutate(out2)
	var kept *widget
	out3, err := f.r.GuaranteedUpdate(ctx, "ns", "a", UpdateOptions{}, func(cur *widget) (*widget, error) {
		cur.Spec["s"] = "v3"
		kept = cur
		return cur, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mutate(kept)
	mutate(out3)
	f.r.GuaranteedUpdate(ctx, "ns", "a", UpdateOptions{}, func(cur *widget) (*widget, error) {
		mutate(cur) // then fail: nothing may be stored
		return nil, fmt.Errorf("no")
	})

	wantNow := `{"metadata":{"name":"a","namespace":"ns","uid":"` + out.UID + `","resourceVersion":"3","creationTimestamp":"2026-07-24T10:00:00Z","labels":{"l":"v"},"annotations":{"x":"y"},"ownerReferences":[{"apiVersion":"","kind":"","name":"owner","uid":"","controller":true}],"finalizers":["f"]},"spec":{"s":"v3"},"items":["i"]}`
	check := func(what string) {
		t.Helper()
		got := f.get(t, "ns", "a")
		if mustJSON(got) != wantNow {
			t.Fatalf("%s: stored state changed:\n%s\nwant\n%s", what, mustJSON(got), wantNow)
		}
		mutate(got)
		evs := f.events(t, 0)
		for i, want := range []string{"v", "v2", "v3"} {
			if evs[i].Object.Spec["s"] != want || evs[i].Object.Labels["l"] != "v" || evs[i].Object.Items[0] != "i" {
				t.Fatalf("%s: history changed at revision %d: %s", what, i+1, mustJSON(evs[i].Object))
			}
		}
	}
	check("writes")

	p, err := f.r.List(ctx, "ns", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mutate(p.At(0))
	for _, w := range p.Items() {
		mutate(w)
	}
	old, _ := f.r.Get(ctx, "ns", "a", rv.Read{Semantics: rv.Exact, Version: 1})
	mutate(old)
	check("reads")

	items, err := f.r.DeleteCollection(ctx, "ns", ListOptions{}, DeleteOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	mutate(items[0])
	dry, _, _ := f.r.Delete(ctx, "ns", "a", DeleteOptions{DryRun: true})
	mutate(dry)
	check("deletes")
}
