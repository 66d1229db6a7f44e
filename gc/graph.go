package gc

import (
	"slices"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/store"
)

// node is what the collector keeps of an object that has owners, or that
// is being deleted with one of the collector's finalizers.
type node struct {
	key             string // storage key: resource prefix, namespace, name
	namespace, name string
	owners          []meta.OwnerReference // shared with the stored object: read only
	deleting        bool                  // deletionTimestamp set
	foreground      bool                  // has FinalizerForeground
	orphan          bool                  // has FinalizerOrphan
}

// graph is the ownership graph, kept from the store's events: nodes by
// uid, and the dependents of every uid that some object names as its
// owner (whether or not that owner exists).
type graph struct {
	nodes      map[string]*node
	dependents map[string]map[string]struct{} // owner uid -> dependent uids
	dirty      *queue                         // uids to look at
}

func newGraph() *graph {
	return &graph{nodes: map[string]*node{}, dependents: map[string]map[string]struct{}{}, dirty: newQueue()}
}

func nodeOf(key string, m *meta.ObjectMeta) *node {
	n := &node{key: key, namespace: m.Namespace, name: m.Name, owners: m.OwnerReferences,
		deleting: m.DeletionTimestamp != nil}
	n.foreground = n.deleting && slices.Contains(m.Finalizers, store.FinalizerForeground)
	n.orphan = n.deleting && slices.Contains(m.Finalizers, store.FinalizerOrphan)
	return n
}

// interesting reports whether the collector has anything to do with n:
// it names owners, or waits for the collector to finish its deletion.
func (n *node) interesting() bool { return len(n.owners) > 0 || n.foreground || n.orphan }

// sameAs reports whether n and o would get the same treatment.
func (n *node) sameAs(o *node) bool {
	return o != nil && n.deleting == o.deleting && n.foreground == o.foreground && n.orphan == o.orphan &&
		slices.EqualFunc(n.owners, o.owners, func(a, b meta.OwnerReference) bool {
			return a.UID == b.UID && a.Name == b.Name && a.Kind == b.Kind && a.APIVersion == b.APIVersion &&
				isTrue(a.BlockOwnerDeletion) == isTrue(b.BlockOwnerDeletion)
		})
}

func isTrue(b *bool) bool { return b != nil && *b }

// put records obj, written at key, and marks what the write concerns.
func (g *graph) put(key string, obj server.Object) {
	m := obj.Meta()
	uid := m.UID
	old := g.nodes[uid]
	if old == nil && len(m.OwnerReferences) == 0 && (m.DeletionTimestamp == nil || len(m.Finalizers) == 0) {
		return // most writes: nothing to keep, nothing to do
	}
	n := nodeOf(key, m)
	if n.sameAs(old) {
		return
	}
	g.unlink(uid, old)
	if n.interesting() {
		g.nodes[uid] = n
		for _, r := range n.owners {
			deps := g.dependents[r.UID]
			if deps == nil {
				deps = map[string]struct{}{}
				g.dependents[r.UID] = deps
			}
			deps[uid] = struct{}{}
		}
		g.dirty.add(uid)
	}
	if n.foreground && (old == nil || !old.foreground) {
		// A foreground deletion starts: every dependent is to go.
		for d := range g.dependents[uid] {
			g.dirty.add(d)
		}
	}
}

// remove forgets the object uid, deleted: its dependents look at their
// owners again.
func (g *graph) remove(uid string) {
	g.unlink(uid, g.nodes[uid])
	for d := range g.dependents[uid] {
		g.dirty.add(d)
	}
}

// unlink removes old, the node of uid, and its edges to its owners; an
// owner in a deletion that waits for its dependents looks again.
func (g *graph) unlink(uid string, old *node) {
	if old == nil {
		return
	}
	delete(g.nodes, uid)
	for _, r := range old.owners {
		deps := g.dependents[r.UID]
		delete(deps, uid)
		if len(deps) == 0 {
			delete(g.dependents, r.UID)
		}
		if o := g.nodes[r.UID]; o != nil && (o.foreground || o.orphan) {
			g.dirty.add(r.UID)
		}
	}
}

// blocking returns the dependents of uid whose reference to it has
// blockOwnerDeletion set.
func (g *graph) blocking(uid string) []string {
	var out []string
	for d := range g.dependents[uid] {
		n := g.nodes[d]
		if n == nil {
			continue
		}
		for _, r := range n.owners {
			if r.UID == uid && isTrue(r.BlockOwnerDeletion) {
				out = append(out, d)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// dependentsOf returns the dependents of uid, sorted.
func (g *graph) dependentsOf(uid string) []string {
	out := make([]string, 0, len(g.dependents[uid]))
	for d := range g.dependents[uid] {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// queue is a set of uids in the order they were added.
type queue struct {
	order []string
	in    map[string]struct{}
}

func newQueue() *queue { return &queue{in: map[string]struct{}{}} }

func (q *queue) add(uid string) {
	if _, ok := q.in[uid]; !ok {
		q.in[uid] = struct{}{}
		q.order = append(q.order, uid)
	}
}

func (q *queue) len() int { return len(q.order) }

// take empties q and returns what it held.
func (q *queue) take() []string {
	out := q.order
	q.order = nil
	clear(q.in)
	return out
}
