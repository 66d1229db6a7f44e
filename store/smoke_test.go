package store

import (
	"context"
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	s := New(Options[*widget]{})
	r := s.Resource(ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "widgets"}, Kind: "Widget", Namespaced: true})
	w, err := r.Create(ctx, newWidget("ns", "a"), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(mustJSON(w))
	for i := 0; i < 200; i++ {
		if _, err := r.Create(ctx, &widget{ObjectMeta: ObjectMeta{Namespace: "ns", GenerateName: "g-"}}, CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := r.List(ctx, "", ListOptions{Read: rv.Read{Semantics: rv.MostRecent, Limit: 50}})
	if err != nil {
		t.Fatal(err)
	}
	n, ok := p.RemainingItemCount()
	t.Log(p.Len(), p.ResourceVersion(), p.Continue(), n, ok)
	total := p.Len()
	for p.Continue() != "" {
		p, err = r.List(ctx, "", ListOptions{Read: rv.Read{Semantics: rv.ContinueExact, Continue: p.Continue(), Limit: 50}})
		if err != nil {
			t.Fatal(err)
		}
		total += p.Len()
		n, ok := p.RemainingItemCount()
		t.Log(p.Len(), p.ResourceVersion(), n, ok)
	}
	if total != 201 {
		t.Fatal(total)
	}
	if _, _, err := r.Delete(ctx, "ns", "a", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events(nil, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(len(evs), evs[len(evs)-1].Type, evs[len(evs)-1].Object.ResourceVersion)
}
