package schema

import (
	"fmt"
	"strings"
	"testing"
)

// The text of a path is the one the walks built as strings: members
// joined by dots (none at the root), additionalProperties' members of
// validation with a dot even at the root, list-type's in brackets, and
// indexes in brackets.
func TestPathText(t *testing.T) {
	child := func(path, k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	tests := []struct {
		segs []seg // parent links filled in: each under the one before
		want string
	}{
		{nil, ""},
		{[]seg{{kind: member, key: "spec"}}, "spec"},
		{[]seg{{kind: member, key: "spec"}, {kind: member, key: "ports"}, {kind: indexed, i: 12}, {kind: member, key: "name"}}, "spec.ports[12].name"},
		{[]seg{{kind: indexed, i: 0}}, fmt.Sprintf("%s[%d]", "", 0)},
		{[]seg{{kind: dotted, key: "a"}}, "" + "." + "a"},
		{[]seg{{kind: member, key: "spec"}, {kind: dotted, key: "a.b"}}, "spec.a.b"},
		{[]seg{{kind: keyed, key: "x"}, {kind: member, key: "y"}}, "[x].y"},
		{[]seg{{kind: member, key: "labels"}, {kind: keyed, key: "a"}, {kind: member, key: "set"}, {kind: indexed, i: 1}}, "labels[a].set[1]"},
		// An empty key at the root leaves the path empty for the next.
		{[]seg{{kind: member, key: ""}, {kind: member, key: "x"}}, child(child("", ""), "x")},
	}
	for _, tc := range tests {
		var sc scratch
		p := path{}
		for _, s := range tc.segs {
			p = sc.push(p, s.kind, s.key, s.i)
		}
		if got := p.String(); got != tc.want {
			t.Errorf("%+v: %q; want %q", tc.segs, got, tc.want)
		}
	}
	// Past the scratch's own segments.
	var sc scratch
	p, want := path{}, ""
	for i := range 100 {
		p = sc.push(p, member, fmt.Sprint(i), 0)
		want = child(want, fmt.Sprint(i))
	}
	if got := p.String(); got != want {
		t.Errorf("100 deep: %q; want %q", got, want)
	}
}

// A write's defaulting, pruning, validation and list-type checks of a
// valid object allocate for the maps they visit, not for each property:
// each once copied the property's schema to the heap and built its path.
func TestWalksAllocatePerObject(t *testing.T) {
	allocs := func(n int) float64 {
		var props, obj []string
		for i := range n {
			props = append(props, fmt.Sprintf("p%d: {type: string, maxLength: 10}", i))
			obj = append(obj, fmt.Sprintf(`"p%d":"v"`, i))
		}
		s := mustSchema(t, `{type: object, properties: {spec: {type: object, properties: {`+strings.Join(props, ", ")+`,
			set: {type: array, x-kubernetes-list-type: set, items: {type: string}}}}}}`)
		v, err := Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		o := mustValue(t, `{"spec":{`+strings.Join(obj, ",")+`,"set":["a","b"]}}`)
		tree := NewTree(s)
		return testing.AllocsPerRun(20, func() {
			tree.Default(o)
			if pruned := tree.Prune(o); len(pruned) > 0 {
				t.Fatalf("pruned %q", pruned)
			}
			errs, embedded := v.Validate(o, nil)
			if errs = append(append(errs, embedded...), v.ListErrors(o, nil)...); len(errs) > 0 {
				t.Fatal(errs)
			}
		})
	}
	if few, many := allocs(4), allocs(64); many > few {
		t.Errorf("%.0f allocations for an object of 4 properties, %.0f for 64", few, many)
	}
}
