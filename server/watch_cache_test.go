package server

import (
	"context"
	"testing"
	"unsafe"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/watch"
)

// A custom resource's watch events are its cached list items: the store's
// event cache shares a version's JSON with the list item cache, whatever
// the event type, rather than holding copies of it.
func TestWatchEventSharesListItem(t *testing.T) {
	res := gizmoResource(t)
	s, _ := startTestServer(t, res)
	r := s.reg.Load().byDef[res]
	ctx := context.Background()
	u := &Unstructured{Content: map[string]any{"spec": map[string]any{"color": "red"}}}
	u.Name, u.Namespace = "g", "ns"
	if _, err := r.store.Create(ctx, u, store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	page, err := r.store.List(ctx, "ns", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
	if err != nil || page.Len() != 1 {
		t.Fatalf("list: %v %v", page, err)
	}
	stored := page.Views()[0]
	c := r.codec
	item, err := c.st.Encoded(stored, c.itemJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []watch.EventType{watch.Added, watch.Modified} {
		ev, err := c.st.EncodedEvent(c.eventJSON, typ, r.store.Key("ns", "g"), stored)
		if err != nil {
			t.Fatal(err)
		}
		if string(ev) != string(item) {
			t.Fatalf("%s event %s; want the list item %s", typ, ev, item)
		}
		if unsafe.SliceData(ev) != unsafe.SliceData(item) {
			t.Errorf("%s event holds a copy of the list item", typ)
		}
		if cap(ev) != len(ev) {
			t.Errorf("%s event has room to append into the shared item: cap %d, len %d", typ, cap(ev), len(ev))
		}
	}
}
