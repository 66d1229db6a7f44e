package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch"
)

// SnapshotRange yields what Snapshot yields within [start, end), clipped
// to the source's prefix, at any revision.
func TestSnapshotRange(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	gadgets := f.s.Resource(ResourceOptions[*widget]{GroupResource: status.GroupResource{Resource: "gadgets"}})
	for _, w := range []*widget{newWidget("a", "x"), newWidget("a", "xy"), newWidget("b", "x"), newWidget("b", "y")} {
		f.create(t, w)
	}
	if _, err := gadgets.Create(ctx, newWidget("", "g"), CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := f.s.Revision()
	f.r.Delete(ctx, "a", "x", DeleteOptions{})
	src := f.r.Source()
	keys := func(at rv.Version, start, end string) string {
		var got []string
		if err := src.SnapshotRange(at, start, end, func(key string, _ *widget) bool {
			got = append(got, strings.TrimPrefix(key, "widgets.example.com/"))
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	one := f.r.Key("a", "x")
	for _, tc := range []struct {
		at         rv.Version
		start, end string
		want       string
	}{
		{before, one, one + "\x00", "a/x"}, // not a/xy
		{f.s.Revision(), one, one + "\x00", ""},
		{before, f.r.Prefix("b"), PrefixEnd(f.r.Prefix("b")), "b/x b/y"},
		{before, "", "", "a/x a/xy b/x b/y"},                      // the prefix bounds it: no gadget
		{before, "a", "zzz", "a/x a/xy b/x b/y"},                  // clipped to the prefix
		{before, f.r.Key("b", "x"), "", "b/x b/y"},                // to the prefix's end
		{before, f.r.Key("b", "y"), f.r.Key("a", "x"), ""},        // empty
		{before, f.r.Prefix("c"), PrefixEnd(f.r.Prefix("c")), ""}, // no such namespace
	} {
		if got := keys(tc.at, tc.start, tc.end); got != tc.want {
			t.Errorf("SnapshotRange(%d, %q, %q) = %q; want %q", tc.at, tc.start, tc.end, got, tc.want)
		}
	}
}

// A watch of one object from the latest revision with initial events, on
// a store of n objects: WatchKeys with the object's key reads that key
// for its initial event, where Watch (the filter alone) walks all n.
func BenchmarkWatchOneObject(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		bf := getFixture(b, n)
		bc := watch.NewBroadcaster(bf.r.Source(), watch.ObjectFuncs[*widget]{
			Bookmark: func(rev rv.Version, _ bool) *widget {
				w := &widget{}
				w.ResourceVersion = rev.String()
				return w
			},
			WithVersion: func(w *widget, rev rv.Version) *widget {
				c := w.DeepCopy()
				c.ResourceVersion = rev.String()
				return c
			},
		}, watch.Options{})
		name := bf.names[n/2]
		key := bf.r.Key("ns", name)
		filter := func(w *widget) bool { return w.Namespace == "ns" && w.Name == name }
		d := rv.Watch{Start: rv.StartMostRecent, InitialEvents: true}
		for _, tc := range []struct {
			name string
			keys watch.KeyRange
		}{
			{"filter", watch.KeyRange{}},
			{"key", watch.KeyRange{Start: key, End: key + "\x00"}},
		} {
			b.Run(fmt.Sprintf("n=%d/%s", n, tc.name), func(b *testing.B) {
				b.ReportAllocs()
				cpu := cputime.Process()
				for b.Loop() {
					w := bc.WatchKeys(ctx, d, filter, tc.keys)
					if m, ok := w.Next(); !ok || m.Type() != watch.Added {
						b.Fatalf("first message: %v %v", m, ok)
					}
					w.Stop()
				}
				if used := cputime.Process() - cpu; used > 0 {
					b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
				}
			})
		}
		bc.Close()
	}
}
