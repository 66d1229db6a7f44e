package store

import (
	"context"
	"path"
	"strconv"
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch/watchtest"
)

// TestSourceContract runs the watch.Source contract (watchtest.CheckSource)
// against the store: the whole keyspace, and a resource's prefix Source
// while another resource writes alongside it, whose events the prefix
// Source must leave out.
func TestSourceContract(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prefix bool
	}{{"store", false}, {"resource prefix", true}} {
		t.Run(tc.name, func(t *testing.T) {
			watchtest.CheckSource(t, func(t *testing.T) watchtest.SourceHarness[*widget] {
				f := newFixture(t, Options[*widget]{})
				ctx := context.Background()
				other := f.s.Resource(ResourceOptions[*widget]{
					GroupResource: status.GroupResource{Resource: "gadgets"},
					Kind:          "Gadget",
					Namespaced:    true,
				})
				noise := 0
				// With a prefix Source every write of a widget follows one
				// of the other resource, which the prefix Source must skip.
				// (Before, not after: a prefix Source's revision is the
				// store's, so the widget's write must be the latest.)
				version := func(w *widget) rv.Version {
					v, err := rv.Parse(w.ResourceVersion)
					if err != nil {
						t.Fatal(err)
					}
					return v
				}
				beforeWrite := func() {
					if !tc.prefix {
						return
					}
					noise++
					if _, err := other.Create(ctx, newWidget("ns", "n"+strconv.Itoa(noise)), CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				h := watchtest.SourceHarness[*widget]{
					Put: func(key string) rv.Version {
						beforeWrite()
						cur, err := f.r.Get(ctx, "ns", key, rv.Read{Semantics: rv.MostRecent})
						if status.IsNotFound(err) {
							out, err := f.r.Create(ctx, newWidget("ns", key), CreateOptions{})
							if err != nil {
								t.Fatal(err)
							}
							return version(out)
						}
						if err != nil {
							t.Fatal(err)
						}
						cur.Items = append(cur.Items, "x") // a real change
						out, err := f.r.Update(ctx, cur, UpdateOptions{})
						if err != nil {
							t.Fatal(err)
						}
						return version(out)
					},
					Delete: func(key string) rv.Version {
						beforeWrite()
						out, deleted, err := f.r.Delete(ctx, "ns", key, DeleteOptions{})
						if err != nil || !deleted {
							t.Fatalf("Delete(%s) = %v, %v", key, deleted, err)
						}
						return version(out)
					},
					Compact: func(rev rv.Version) { f.s.Compact(rev) },
					Version: version,
					Name:    path.Base,
				}
				if tc.prefix {
					h.Source = f.r.Source()
				} else {
					h.Source = f.s
				}
				return h
			})
		})
	}
}
