package server

import (
	"reflect"
	"testing"

	"github.com/apisem/apisem/meta"
)

// sameSubject is an object type of plain members, as most are.
type sameSubject struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            sameSpec   `json:"spec"`
	Items           []string   `json:"items,omitempty"`
	Status          sameStatus `json:"status"`
	cache           int        // not encoded
}

type sameSpec struct {
	Size int               `json:"size"`
	Tags []string          `json:"tags"`
	Data map[string]any    `json:"data,omitempty"`
	Ptr  *int              `json:"ptr,omitempty"`
	Any  any               `json:"any"`
	Map  map[string]string `json:"map"`
}

type sameStatus struct {
	Ready bool `json:"ready"`
}

func (o *sameSubject) DeepCopyObject() Object { c := *o; return &c }
func (o *sameSubject) Meta() *meta.ObjectMeta { return &o.ObjectMeta }
func (o *sameSubject) Types() *meta.TypeMeta  { return &o.TypeMeta }

// sameJSON answers as comparing whole encodings does, for plain types
// and for the others (toy promotes the members of an embedded struct).
func TestSameJSON(t *testing.T) {
	one := 1
	base := func() *sameSubject {
		return &sameSubject{ObjectMeta: meta.ObjectMeta{Name: "a", Labels: map[string]string{"x": "y"}},
			Spec: sameSpec{Size: 3, Tags: []string{"a"}, Any: float64(1), Map: map[string]string{}}}
	}
	tests := []struct {
		name   string
		change func(*sameSubject)
		same   bool
	}{
		{"identical", func(*sameSubject) {}, true},
		{"kind and apiVersion differ only", func(o *sameSubject) { o.Kind, o.APIVersion = "K", "v1" }, true},
		{"unencoded field differs only", func(o *sameSubject) { o.cache = 7 }, true},
		{"status differs", func(o *sameSubject) { o.Status.Ready = true }, false},
		{"metadata differs", func(o *sameSubject) { o.Labels = map[string]string{"x": "z"} }, false},
		{"nil and empty omitempty slice", func(o *sameSubject) { o.Items = []string{} }, true},
		{"omitempty slice set", func(o *sameSubject) { o.Items = []string{"i"} }, false},
		{"equal slices in distinct arrays", func(o *sameSubject) { o.Spec.Tags = append(o.Spec.Tags[:0:0], "a") }, true},
		{"null and [] tags", func(o *sameSubject) { o.Spec.Tags = nil }, false},
		{"nil and empty map in spec", func(o *sameSubject) { o.Spec.Map = nil }, false},
		{"nil and empty omitempty map in spec", func(o *sameSubject) { o.Spec.Data = map[string]any{} }, true},
		{"pointer to equal value", func(o *sameSubject) { o.Spec.Ptr = &one }, false},
		{"int64 and float64 of one number", func(o *sameSubject) { o.Spec.Any = int64(1) }, true},
	}
	for _, tc := range tests {
		a, b := base(), base()
		tc.change(b)
		if got, ref := sameJSON(a, b), marshalEqual(a, b); got != tc.same || ref != tc.same {
			t.Errorf("%s: sameJSON = %v, whole encodings equal = %v; want %v", tc.name, got, ref, tc.same)
		}
		if got := sameJSON(b, a); got != tc.same {
			t.Errorf("%s, reversed: sameJSON = %v; want %v", tc.name, got, tc.same)
		}
	}
	if _, ok := jsonMembersOf(reflect.TypeFor[toy]()); ok {
		t.Error("toy's promoted members: compared member by member")
	}
	x, y := &toy{}, &toy{}
	y.toyBase.Shared = "s"
	if sameJSON(x, y) {
		t.Error("toys that differ in a promoted member: same")
	}
	if !sameJSON(x, &toy{}) {
		t.Error("equal toys: not same")
	}
}
