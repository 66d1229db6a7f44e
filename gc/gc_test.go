package gc_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/apisem/apisem/gc"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

const group = "test.apisem.dev"

func resource(kind string, namespaced bool) *server.Resource {
	return server.UnstructuredResource(server.Resource{Group: group, Version: "v1", Kind: kind, ListKind: kind + "List",
		Plural: strings.ToLower(kind) + "s", Singular: strings.ToLower(kind), Namespaced: namespaced})
}

// cluster is a server with namespaced Widgets and Gadgets and
// cluster-scoped Clusters, and its collector.
type cluster struct {
	t     *testing.T
	s     *server.Server
	kinds map[string]*server.Resource
}

// newCluster starts a server and its collector in the test's synctest
// bubble; both stop when the test ends, and the bubble checks that no
// goroutine is left.
func newCluster(t *testing.T) *cluster {
	c := &cluster{t: t, kinds: map[string]*server.Resource{}}
	var rs []*server.Resource
	for _, k := range []struct {
		kind       string
		namespaced bool
	}{{"Widget", true}, {"Gadget", true}, {"Cluster", false}} {
		r := resource(k.kind, k.namespaced)
		c.kinds[k.kind] = r
		rs = append(rs, r)
	}
	s, err := server.New(server.Options{Resources: rs, GarbageCollection: true})
	if err != nil {
		t.Fatal(err)
	}
	c.s = s
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gc.New(s, gc.Options{}).Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Run = %v; want context.Canceled", err)
		}
		s.Shutdown(context.Background())
	})
	return c
}

// add makes a served resource of kind while the collector runs.
func (c *cluster) add(kind string, namespaced bool) {
	r := resource(kind, namespaced)
	if err := c.s.AddResource(r); err != nil {
		c.t.Fatal(err)
	}
	c.kinds[kind] = r
}

// split reads "Kind/ns/name" or "Kind/name" (cluster-scoped).
func split(id string) (kind, ns, name string) {
	parts := strings.Split(id, "/")
	if len(parts) == 2 {
		return parts[0], "", parts[1]
	}
	return parts[0], parts[1], parts[2]
}

// create stores the object id with the owners refs, each "Kind/name" plus
// "!" for blockOwnerDeletion, and "=uid" for a uid of the test's choosing
// or "@ns" for the uid of the object of that name in namespace ns (else
// the uid of the owner in id's namespace, which must exist), and
// finalizers.
func (c *cluster) create(id string, refs []string, finalizers ...string) {
	c.t.Helper()
	kind, ns, name := split(id)
	u := &server.Unstructured{}
	u.Name, u.Namespace, u.Finalizers = name, ns, finalizers
	for _, r := range refs {
		block := strings.HasSuffix(r, "!")
		r = strings.TrimSuffix(r, "!")
		r, uid, _ := strings.Cut(r, "=")
		r, ons, found := strings.Cut(r, "@")
		if !found {
			ons = ns
		}
		okind, oname, _ := strings.Cut(r, "/")
		if uid == "" {
			oid := okind + "/" + oname
			if ores := c.kinds[okind]; ores != nil && ores.Namespaced {
				oid = okind + "/" + ons + "/" + oname
			}
			uid = c.get(oid).Meta().UID
		}
		ref := meta.OwnerReference{APIVersion: group + "/v1", Kind: okind, Name: oname, UID: uid}
		if block {
			ref.BlockOwnerDeletion = &block
		}
		u.OwnerReferences = append(u.OwnerReferences, ref)
	}
	if _, err := c.s.StoreOf(c.kinds[kind]).Create(context.Background(), u, store.CreateOptions{}); err != nil {
		c.t.Fatalf("create %s: %v", id, err)
	}
}

// get returns the object id, or nil if it does not exist.
func (c *cluster) get(id string) server.Object {
	c.t.Helper()
	kind, ns, name := split(id)
	o, err := c.s.StoreOf(c.kinds[kind]).Get(context.Background(), ns, name, rv.Read{Semantics: rv.MostRecent})
	if status.IsNotFound(err) {
		return nil
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return o
}

// delete deletes id with policy p, as the server does for a DELETE.
func (c *cluster) delete(id string, p store.Propagation) {
	c.t.Helper()
	kind, ns, name := split(id)
	if _, _, err := c.s.StoreOf(c.kinds[kind]).Delete(context.Background(), ns, name, store.DeleteOptions{Propagation: p}); err != nil {
		c.t.Fatalf("delete %s: %v", id, err)
	}
}

// removeFinalizers empties the metadata.finalizers of id.
func (c *cluster) removeFinalizers(id string) {
	c.t.Helper()
	kind, ns, name := split(id)
	_, err := c.s.StoreOf(c.kinds[kind]).GuaranteedUpdate(context.Background(), ns, name, store.UpdateOptions{},
		func(cur server.Object) (server.Object, error) {
			cur.Meta().Finalizers = nil
			return cur, nil
		})
	if err != nil {
		c.t.Fatal(err)
	}
}

// state describes the object id as the tests compare it: "-" when it
// does not exist, else its owners' names and its finalizers
// ("owners=a,b fin=x" with empty parts left out, "" for none).
func (c *cluster) state(id string) string {
	o := c.get(id)
	if o == nil {
		return "-"
	}
	m := o.Meta()
	var parts []string
	if len(m.OwnerReferences) > 0 {
		var names []string
		for _, r := range m.OwnerReferences {
			names = append(names, r.Name)
		}
		parts = append(parts, "owners="+strings.Join(names, ","))
	}
	if len(m.Finalizers) > 0 {
		parts = append(parts, "fin="+strings.Join(m.Finalizers, ","))
	}
	if m.DeletionTimestamp != nil {
		parts = append(parts, "deleting")
	}
	return strings.Join(parts, " ")
}

type object struct {
	id   string
	refs []string
	fins []string
}

// Each case creates objects, deletes one with a propagation policy,
// waits for the collector to be idle, and compares what is left.
func TestCollector(t *testing.T) {
	for _, tt := range []struct {
		name    string
		objects []object
		delete  string
		policy  store.Propagation
		want    map[string]string
	}{{
		name: "background deletes the dependents of a deleted owner",
		objects: []object{{id: "Widget/ns/a"}, {id: "Gadget/ns/b", refs: []string{"Widget/a"}},
			{id: "Widget/ns/c", refs: []string{"Gadget/b"}}},
		delete: "Widget/ns/a", policy: store.PropagationBackground,
		want: map[string]string{"Widget/ns/a": "-", "Gadget/ns/b": "-", "Widget/ns/c": "-"},
	}, {
		name:    "no policy is background",
		objects: []object{{id: "Widget/ns/a"}, {id: "Gadget/ns/b", refs: []string{"Widget/a"}}},
		delete:  "Widget/ns/a",
		want:    map[string]string{"Widget/ns/a": "-", "Gadget/ns/b": "-"},
	}, {
		name: "a dependent with an owner left stays and loses the reference to the gone one",
		objects: []object{{id: "Widget/ns/a"}, {id: "Widget/ns/x"},
			{id: "Gadget/ns/b", refs: []string{"Widget/a", "Widget/x"}}},
		delete: "Widget/ns/a", policy: store.PropagationBackground,
		want: map[string]string{"Widget/ns/a": "-", "Widget/ns/x": "", "Gadget/ns/b": "owners=x"},
	}, {
		name:    "a reference to an object with another uid counts as gone",
		objects: []object{{id: "Widget/ns/a"}, {id: "Gadget/ns/b", refs: []string{"Widget/a=not-its-uid"}}},
		want:    map[string]string{"Widget/ns/a": "", "Gadget/ns/b": "-"},
	}, {
		name:    "a reference to an object that never existed counts as gone",
		objects: []object{{id: "Gadget/ns/b", refs: []string{"Widget/nobody=u-1"}}},
		want:    map[string]string{"Gadget/ns/b": "-"},
	}, {
		name:    "a namespaced owner is looked up in the dependent's namespace",
		objects: []object{{id: "Widget/ns/a"}, {id: "Gadget/ns/b", refs: []string{"Widget/a"}}, {id: "Widget/other/a"}},
		delete:  "Widget/other/a", policy: store.PropagationBackground,
		want: map[string]string{"Widget/ns/a": "", "Gadget/ns/b": "owners=a"},
	}, {
		name:    "an owner in another namespace counts as gone, even while it exists",
		objects: []object{{id: "Widget/ns/a"}, {id: "Gadget/other/b", refs: []string{"Widget/a@ns"}}},
		want:    map[string]string{"Widget/ns/a": "", "Gadget/other/b": "-"},
	}, {
		name:    "a cluster-scoped owner of namespaced dependents",
		objects: []object{{id: "Cluster/c"}, {id: "Widget/ns/b", refs: []string{"Cluster/c"}}, {id: "Widget/ns2/b", refs: []string{"Cluster/c"}}},
		delete:  "Cluster/c", policy: store.PropagationBackground,
		want: map[string]string{"Cluster/c": "-", "Widget/ns/b": "-", "Widget/ns2/b": "-"},
	}, {
		name: "a cluster-scoped dependent of a namespaced kind is never collected",
		objects: []object{{id: "Cluster/c"}, {id: "Cluster/d", refs: []string{"Widget/a=u-1"}},
			{id: "Cluster/e", refs: []string{"Cluster/c"}}},
		delete: "Cluster/c", policy: store.PropagationBackground,
		want: map[string]string{"Cluster/d": "owners=a", "Cluster/e": "-"},
	}, {
		name: "foreground deletes dependents, then the owner",
		objects: []object{{id: "Widget/ns/a"}, {id: "Gadget/ns/b", refs: []string{"Widget/a!"}},
			{id: "Gadget/ns/c", refs: []string{"Widget/a"}}},
		delete: "Widget/ns/a", policy: store.PropagationForeground,
		want: map[string]string{"Widget/ns/a": "-", "Gadget/ns/b": "-", "Gadget/ns/c": "-"},
	}, {
		name: "foreground goes down a chain",
		objects: []object{{id: "Widget/ns/a"}, {id: "Gadget/ns/b", refs: []string{"Widget/a!"}},
			{id: "Widget/ns/c", refs: []string{"Gadget/b!"}}},
		delete: "Widget/ns/a", policy: store.PropagationForeground,
		want: map[string]string{"Widget/ns/a": "-", "Gadget/ns/b": "-", "Widget/ns/c": "-"},
	}, {
		name: "foreground: a dependent with an owner left loses the reference and stays",
		objects: []object{{id: "Widget/ns/a"}, {id: "Widget/ns/x"},
			{id: "Gadget/ns/b", refs: []string{"Widget/a!", "Widget/x"}}},
		delete: "Widget/ns/a", policy: store.PropagationForeground,
		want: map[string]string{"Widget/ns/a": "-", "Gadget/ns/b": "owners=x"},
	}, {
		name:    "foreground: a dependent that does not block does not hold the owner",
		objects: []object{{id: "Widget/ns/a"}, {id: "Gadget/ns/b", refs: []string{"Widget/a"}, fins: []string{"test/hold"}}},
		delete:  "Widget/ns/a", policy: store.PropagationForeground,
		want: map[string]string{"Widget/ns/a": "-", "Gadget/ns/b": "owners=a fin=test/hold deleting"},
	}, {
		name: "orphan strips the references and keeps the dependents",
		objects: []object{{id: "Widget/ns/a"}, {id: "Widget/ns/x"}, {id: "Gadget/ns/b", refs: []string{"Widget/a!"}},
			{id: "Gadget/ns/c", refs: []string{"Widget/a", "Widget/x"}}},
		delete: "Widget/ns/a", policy: store.PropagationOrphan,
		want: map[string]string{"Widget/ns/a": "-", "Gadget/ns/b": "", "Gadget/ns/c": "owners=x"},
	}, {
		name:    "orphan keeps the owner's other finalizers",
		objects: []object{{id: "Widget/ns/a", fins: []string{"test/hold"}}, {id: "Gadget/ns/b", refs: []string{"Widget/a"}}},
		delete:  "Widget/ns/a", policy: store.PropagationOrphan,
		want: map[string]string{"Widget/ns/a": "fin=test/hold deleting", "Gadget/ns/b": ""},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newCluster(t)
				for _, o := range tt.objects {
					c.create(o.id, o.refs, o.fins...)
				}
				synctest.Wait()
				if tt.delete != "" {
					c.delete(tt.delete, tt.policy)
					synctest.Wait()
				}
				for _, id := range slices.Sorted(maps.Keys(tt.want)) {
					if got := c.state(id); got != tt.want[id] {
						t.Errorf("%s: %q; want %q", id, got, tt.want[id])
					}
				}
			})
		})
	}
}

// A Foreground deletion leaves the owner, marked, with the
// foregroundDeletion finalizer until its blocking dependents are gone.
func TestForegroundWaitsForBlockingDependents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t)
		c.create("Widget/ns/a", nil)
		c.create("Gadget/ns/b", []string{"Widget/a!"}, "test/hold")
		c.delete("Widget/ns/a", store.PropagationForeground)
		synctest.Wait()
		if got := c.state("Widget/ns/a"); got != "fin=foregroundDeletion deleting" {
			t.Errorf("owner while a blocking dependent is held: %q", got)
		}
		if got := c.state("Gadget/ns/b"); got != "owners=a fin=test/hold deleting" {
			t.Errorf("dependent: %q", got)
		}
		c.removeFinalizers("Gadget/ns/b")
		synctest.Wait()
		if a, b := c.state("Widget/ns/a"), c.state("Gadget/ns/b"); a != "-" || b != "-" {
			t.Errorf("after the dependent's finalizer went: owner %q, dependent %q; want both gone", a, b)
		}
	})
}

// The collector works over resources added while it runs: a dependent
// waits for its owner's kind to be served, and owners and dependents of
// the new kind are collected.
func TestResourcesAddedAtRunTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t)
		c.create("Widget/ns/early", []string{"Sprocket/s=u-1"})
		synctest.Wait()
		if got := c.state("Widget/ns/early"); got != "owners=s" {
			t.Fatalf("a dependent of an unserved kind: %q; want it kept", got)
		}
		c.add("Sprocket", true)
		synctest.Wait()
		if got := c.state("Widget/ns/early"); got != "-" {
			t.Errorf("once the kind is served and the owner absent: %q; want it collected", got)
		}
		c.create("Sprocket/ns/s", nil)
		c.create("Widget/ns/w", []string{"Sprocket/s!"})
		c.create("Sprocket/ns/t", []string{"Widget/w"})
		c.delete("Sprocket/ns/s", store.PropagationForeground)
		synctest.Wait()
		for _, id := range []string{"Sprocket/ns/s", "Widget/ns/w", "Sprocket/ns/t"} {
			if got := c.state(id); got != "-" {
				t.Errorf("%s: %q; want it gone", id, got)
			}
		}
	})
}

// A collector started over existing garbage collects it, and one that
// reads history compacted away reads everything again.
func TestStartAndCompaction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := server.New(server.Options{Resources: []*server.Resource{resource("Widget", true)}, GarbageCollection: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Shutdown(context.Background())
		b := s.StoreOf(s.Resources()[0])
		mk := func(name, owner string) {
			u := &server.Unstructured{}
			u.Name, u.Namespace = name, "ns"
			if owner != "" {
				u.OwnerReferences = []meta.OwnerReference{{APIVersion: group + "/v1", Kind: "Widget", Name: owner, UID: "u-" + owner}}
			}
			if _, err := b.Create(context.Background(), u, store.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		mk("orphaned", "gone")
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- gc.New(s, gc.Options{}).Run(ctx) }()
		synctest.Wait()
		if _, err := b.Get(context.Background(), "ns", "orphaned", rv.Read{}); !status.IsNotFound(err) {
			t.Errorf("garbage present at start: %v; want it collected", err)
		}
		// Writes and a compaction while the collector sleeps.
		mk("late", "gone-too")
		s.Compact()
		synctest.Wait()
		if _, err := b.Get(context.Background(), "ns", "late", rv.Read{}); !status.IsNotFound(err) {
			t.Errorf("garbage written before a compaction: %v; want it collected", err)
		}
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Run = %v", err)
		}
	})
}

// Owners and dependents whose resources keep their objects in stores
// other than the server's Store are collected too.
func TestStoresOfTheirOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		widgets := resource("Widget", true)
		s, err := server.New(server.Options{Resources: []*server.Resource{widgets}, GarbageCollection: true,
			Storage: servertest.StoresPerResource})
		if err != nil {
			t.Fatal(err)
		}
		c := &cluster{t: t, s: s, kinds: map[string]*server.Resource{"Widget": widgets}}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- gc.New(s, gc.Options{}).Run(ctx) }()
		defer func() {
			cancel()
			<-done
			s.Shutdown(context.Background())
		}()
		c.add("Sprocket", true)
		if s.StoreOf(c.kinds["Sprocket"]).Store() == s.Store() {
			t.Fatal("the test storage shares its store")
		}
		c.create("Sprocket/ns/s", nil)
		c.create("Widget/ns/w", []string{"Sprocket/s!"})
		c.create("Sprocket/ns/t", []string{"Widget/w!"})
		c.delete("Sprocket/ns/s", store.PropagationForeground)
		synctest.Wait()
		for _, id := range []string{"Sprocket/ns/s", "Widget/ns/w", "Sprocket/ns/t"} {
			if got := c.state(id); got != "-" {
				t.Errorf("%s: %q; want it gone", id, got)
			}
		}
	})
}
