package store

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// flipKeys returns the keys of the flips in the log of a collection, as
// "+key" for a creation and "-key" for a deletion.
func flipKeys(l *flipLog[*widget]) string {
	var s []string
	for _, v := range l.versions() {
		s = append(s, map[bool]string{false: "+", true: "-"}[v.dead]+strings.TrimPrefix(v.entry.key, "widgets.example.com/"))
	}
	return strings.Join(s, " ")
}

// TestFlipLogs checks the per-collection logs of creations and deletions
// that remainingItemCount at older revisions reads: each namespace's log
// holds its own flips only, the resource's log all of them, updates are in
// none, compaction cuts them, and a collection left without entries has
// its log forgotten (memory stays bounded by the retention settings).
func TestFlipLogs(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{HistoryWindow: -1})
	nodes := f.s.Resource(ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "nodes"}})
	f.create(t, newWidget("a", "1"))
	f.create(t, newWidget("b", "1"))
	f.create(t, newWidget("a", "2"))
	f.r.Update(ctx, newWidget("a", "1"), UpdateOptions{})
	f.r.Delete(ctx, "b", "1", DeleteOptions{})
	if _, err := nodes.Create(ctx, newWidget("", "n1"), CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	logs := func() string { return strings.Join(slices.Sorted(maps.Keys(f.s.flipLogs)), " ") }
	entry := func(key string) *entry[*widget] { return f.s.idx.Load().get(key) }
	ea, eb := entry(f.r.Key("a", "1")), entry(f.r.Key("b", "1"))
	for _, c := range []struct{ what, got, want string }{
		{"logs", logs(), "nodes/ widgets.example.com/ widgets.example.com/a/ widgets.example.com/b/"},
		{"namespace a", flipKeys(ea.flips), "+a/1 +a/2"},
		{"namespace b", flipKeys(eb.flips), "+b/1 -b/1"},
		{"resource", flipKeys(ea.flips.parent), "+a/1 +b/1 +a/2 -b/1"},
		{"cluster-scoped", flipKeys(entry("nodes/n1").flips), "+nodes/n1"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q; want %q", c.what, c.got, c.want)
		}
	}
	if ea.flips.parent != eb.flips.parent || entry("nodes/n1").flips.parent != nil {
		t.Errorf("namespaces do not share their resource's log, or a cluster-scoped key has a parent")
	}
	if flipLogOf(ea, f.r.Prefix("")) != ea.flips.parent || flipLogOf(ea, f.r.Prefix("a")) != ea.flips || flipLogOf(ea, f.r.Prefix("b")) != nil {
		t.Errorf("flipLogOf does not pick the log of the listed collection")
	}

	// Compaction cuts the logs and forgets namespace b, whose only key
	// was deleted.
	f.s.Compact(f.s.Revision())
	if got, want := logs(), "nodes/ widgets.example.com/ widgets.example.com/a/"; got != want {
		t.Errorf("logs after compaction: %q; want %q", got, want)
	}
	if n := len(ea.flips.versions()) + len(ea.flips.parent.versions()) + len(eb.flips.versions()); n != 0 {
		t.Errorf("%d flips left after compaction", n)
	}
	// b comes back with a new log; a list at a revision before that
	// counts it correctly.
	before := f.s.Revision()
	f.create(t, newWidget("b", "0"))
	f.create(t, newWidget("b", "2"))
	if eb2 := entry(f.r.Key("b", "2")); eb2.flips == eb.flips || eb2.flips.parent != ea.flips.parent || flipKeys(eb2.flips) != "+b/0 +b/2" {
		t.Errorf("re-created namespace log: %q", flipKeys(eb2.flips))
	}
	f.create(t, newWidget("a", "3"))
	for _, c := range []struct {
		ns   string
		at   rv.Version
		want string
	}{
		{"", before, "rv=6 [1@4 + (1 more)]"},         // a/1, a/2
		{"", f.s.Revision(), "rv=9 [1@4 + (4 more)]"}, // and a/3, b/0, b/2
		{"b", f.s.Revision(), "rv=9 [0@7 + (1 more)]"},
	} {
		p, err := f.r.List(ctx, c.ns, ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: c.at, Limit: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if got := listed(p); got != c.want {
			t.Errorf("list ns=%q at %d: %s; want %s", c.ns, c.at, listed(p), c.want)
		}
	}
}
