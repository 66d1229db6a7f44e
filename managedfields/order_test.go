package managedfields

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/apisem/apisem/meta"
)

// A view visits a map in key order, and a zip the union of both maps'
// keys in key order, with views on both sides.
func TestSortedView(t *testing.T) {
	c := new(keyCache)
	m := map[string]any{}
	var want []string
	for i := range 300 {
		k := string(rune('a'+i%26)) + string(rune('a'+i/26))
		m[k] = map[string]any{"x": "y"}
		want = append(want, k)
	}
	slices.Sort(want)
	var got []string
	c.view(m).AsMap().Iterate(func(k string, v value.Value) bool {
		if _, ok := v.(*sortedValue); !ok {
			t.Fatalf("Iterate gave %T for %q; want a view", v, k)
		}
		got = append(got, k)
		return true
	})
	if !slices.Equal(got, want) {
		t.Errorf("Iterate order %v; want %v", got, want)
	}

	other := map[string]any{"zz": "1", "ab": "2", "0": "3"}
	for _, o := range []value.Map{value.NewValueInterface(other).AsMap(), c.view(other).AsMap()} {
		got = nil
		c.view(m).AsMap().Zip(o, value.Unordered, func(k string, l, r value.Value) bool {
			for _, v := range []value.Value{l, r} {
				if _, ok := v.(*sortedValue); v != nil && !ok {
					t.Fatalf("Zip gave %T for %q; want a view", v, k)
				}
			}
			if (l != nil) != (m[k] != nil) || (r != nil) != (other[k] != nil) {
				t.Fatalf("Zip(%q) = %v, %v", k, l, r)
			}
			got = append(got, k)
			return true
		})
		if want := slices.Sorted(slices.Values(append(slices.Clone(want), "zz", "0"))); !slices.Equal(got, want) {
			t.Errorf("Zip order %v; want %v", got, want)
		}
	}
}

// Views change nothing but the order of the work: the same writes give
// the same objects and managedFields through views (every map viewed) as
// through structured-merge-diff's plain values.
func TestViewsChangeNothing(t *testing.T) {
	type step struct {
		apply bool
		obj   string // an Update's new object, an Apply's configuration
		op    Operation
		force bool
		reset bool // the Update sends [] as its managedFields
	}
	steps := []step{
		{obj: `{"metadata":{"name":"a","labels":{"x":"1","y":"2"}},"data":{"k":"v","l":"w"},"spec":{"list":[1,2],"m":{"a":{"b":"c"}}}}`, op: Operation{Manager: "create"}},
		{apply: true, obj: `{"metadata":{"name":"a","labels":{"x":"9"}},"data":{"k":"v2","n":"new"}}`, op: Operation{Manager: "ops"}},
		{apply: true, obj: `{"metadata":{"name":"a","labels":{"x":"9"}},"data":{"k":"v2","n":"new"}}`, op: Operation{Manager: "ops"}, force: true},
		{apply: true, obj: `{"metadata":{"name":"a"},"data":{"n":"new","o":null},"spec":{"m":{"a":{"d":"e"}}}}`, op: Operation{Manager: "ops"}},
		{obj: `{"metadata":{"name":"a","uid":"u","labels":{"x":"9"}},"data":{"n":"changed","p":"q"},"spec":{"list":[3]}}`, op: Operation{Manager: "editor"}},
		{apply: true, obj: `{"metadata":{"name":"a"},"data":{"n":"again"}}`, op: Operation{Manager: "rival"}, force: true},
		{apply: true, obj: `{"metadata":{"name":"a","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"p\":\"q\"}}"}},"data":{"p":"q"}}`, op: Operation{Manager: "kubectl"}},
		{apply: true, obj: `{"metadata":{"name":"a"},"status":{"phase":"x"}}`, op: Operation{Manager: "ops", Subresource: "status"}},
		{obj: `{"metadata":{"name":"a","uid":"u"},"data":{}}`, op: Operation{Manager: "editor"}, reset: true},
	}
	for n, opts := range []Options{
		{APIVersion: "v1", Kind: "ConfigMap"},
		{APIVersion: "v1", Kind: "ConfigMap", StatusSubresource: true},
		{APIVersion: "v1", Kind: "ConfigMap", Type: atomicMapType(t)},
	} {
		type state struct {
			live    map[string]any
			entries []meta.ManagedFieldsEntry
			err     string
		}
		run := func(f *FieldManager) []state {
			var out []state
			var live map[string]any
			var entries []meta.ManagedFieldsEntry
			for _, s := range steps {
				o := obj(s.obj)
				s.op.Time = t0
				var err error
				if s.apply {
					o["apiVersion"], o["kind"] = "v1", "ConfigMap"
					var merged map[string]any
					var es []meta.ManagedFieldsEntry
					if merged, es, err = f.Apply(live, entries, o, s.op, s.force); err == nil {
						live, entries = merged, es
					}
				} else {
					var sent []meta.ManagedFieldsEntry
					if s.reset {
						sent = []meta.ManagedFieldsEntry{}
					}
					var es []meta.ManagedFieldsEntry
					if es, err = f.Update(live, o, entries, sent, s.op); err == nil {
						live, entries = o, es
					}
				}
				st := state{live: live, entries: entries}
				if err != nil {
					st.err = err.Error()
				}
				out = append(out, st)
			}
			return out
		}
		plain := run(newFieldManager(opts, math.MaxInt))
		viewed := run(newFieldManager(opts, 1))
		for i := range steps {
			if diff := cmp.Diff(plain[i], viewed[i], cmp.AllowUnexported(state{})); diff != "" {
				t.Errorf("options %d, step %d: views differ from plain values (-plain +views):\n%s", n, i, diff)
			}
			if testing.Verbose() {
				t.Logf("options %d, step %d: %s: %v", n, i, plain[i].err, fields(plain[i].entries))
			}
		}
	}
}

// FuzzViewsChangeNothing: an apply of any configuration to any object
// gives the same result through views as through plain values.
func FuzzViewsChangeNothing(f *testing.F) {
	f.Add(`{"data":{"a":"1","b":{"c":[1,2]}}}`, `{"data":{"b":{"d":"x"},"e":null}}`, false)
	f.Add(`{"metadata":{"labels":{"a":"b"}}}`, `{"metadata":{"labels":{"a":"c","d":"e"}}}`, true)
	f.Fuzz(func(t *testing.T, liveRaw, configRaw string, force bool) {
		var live, config map[string]any
		if json.Unmarshal([]byte(liveRaw), &live) != nil || json.Unmarshal([]byte(configRaw), &config) != nil || config == nil {
			return
		}
		config["apiVersion"], config["kind"] = "v1", "ConfigMap"
		if md, ok := config["metadata"].(map[string]any); ok {
			delete(md, "managedFields")
		}
		type result struct {
			Obj     map[string]any
			Entries []meta.ManagedFieldsEntry
			Err     string
		}
		run := func(views viewFrom) result {
			fm := newFieldManager(Options{APIVersion: "v1", Kind: "ConfigMap"}, views)
			var r result
			entries, err := fm.Update(nil, live, nil, nil, Operation{Manager: "create", Time: t0})
			if err == nil {
				r.Obj, r.Entries, err = fm.Apply(live, entries, config, Operation{Manager: "ops", Time: t0}, force)
			}
			if err != nil {
				r.Err = err.Error()
			}
			return r
		}
		if diff := cmp.Diff(run(math.MaxInt), run(1)); diff != "" {
			t.Errorf("views differ from plain values (-plain +views):\n%s", diff)
		}
	})
}
