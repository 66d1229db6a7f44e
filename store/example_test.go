package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/store/selector"
)

// ConfigMap is a user type: it embeds meta.ObjectMeta and can copy itself.
type ConfigMap struct {
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

func (c *ConfigMap) DeepCopy() *ConfigMap {
	out := &ConfigMap{Data: maps.Clone(c.Data)}
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return out
}

func Example() {
	ctx := context.Background()
	s := store.New(store.Options[*ConfigMap]{
		Now: func() time.Time { return time.Date(2026, 7, 24, 10, 0, 0, 0, time.UTC) },
	})
	cms := s.Resource(store.ResourceOptions[*ConfigMap]{
		GroupResource: status.GroupResource{Resource: "configmaps"},
		Kind:          "ConfigMap",
		Namespaced:    true,
	})

	for _, name := range []string{"a", "b", "c"} {
		cm := &ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}}}
		cms.Create(ctx, cm, store.CreateOptions{})
	}
	a, _ := cms.Get(ctx, "default", "a", rv.Read{Semantics: rv.MostRecent})
	fmt.Println("created a at", a.ResourceVersion, "on", a.CreationTimestamp.Format(time.RFC3339))

	// Optimistic concurrency: the second writer's version is stale.
	a.Data = map[string]string{"k": "v1"}
	cms.Update(ctx, a, store.UpdateOptions{})
	a.Data["k"] = "v2"
	_, err := cms.Update(ctx, a, store.UpdateOptions{})
	fmt.Println(status.CodeForError(err), err)

	// A paged list is one snapshot: the page after a delete still has c.
	sel, _ := selector.ParseLabels("app=web")
	page, _ := cms.List(ctx, "default", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent, Limit: 2}, Labels: sel})
	cms.Delete(ctx, "default", "c", store.DeleteOptions{})
	next, _ := cms.List(ctx, "default", store.ListOptions{
		Read:   rv.Read{Semantics: rv.ContinueExact, Continue: page.Continue(), Limit: 2},
		Labels: sel,
	})
	for _, p := range []*store.Page[*ConfigMap]{page, next} {
		for i := 0; i < p.Len(); i++ {
			fmt.Printf("list@%s: %s\n", p.ResourceVersion(), p.Key(i))
		}
	}

	// Every write is one event; the history serves watches. Event objects
	// are the stored ones: copy before changing anything.
	events, _ := s.Events(nil, 3, 10)
	for _, ev := range events {
		obj := ev.Object.DeepCopy()
		obj.UID = "" // random
		b, _ := json.Marshal(obj)
		fmt.Println(ev.Revision, ev.Type, string(b))
	}

	// Compacted history answers 410 Gone.
	s.Compact(s.Revision())
	_, err = cms.List(ctx, "default", store.ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: 3}})
	fmt.Println(status.CodeForError(err), err)

	// Output:
	// created a at 1 on 2026-07-24T10:00:00Z
	// 409 Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again
	// list@4: configmaps/default/a
	// list@4: configmaps/default/b
	// list@4: configmaps/default/c
	// 4 MODIFIED {"metadata":{"name":"a","namespace":"default","resourceVersion":"4","creationTimestamp":"2026-07-24T10:00:00Z","labels":{"app":"web"}},"data":{"k":"v1"}}
	// 5 DELETED {"metadata":{"name":"c","namespace":"default","resourceVersion":"5","creationTimestamp":"2026-07-24T10:00:00Z","labels":{"app":"web"}}}
	// 410 The resourceVersion for the provided list is too old.
}
