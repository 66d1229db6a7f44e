package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
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

// A create drops the status of an object of a plain Go type (zeroed
// rather than cut from its JSON), whether it comes from Server.Create,
// which leaves the caller's object alone, or from a POST.
func TestCreateDropsTypedStatus(t *testing.T) {
	res := &Resource{Group: "test.apisem.dev", Version: "v1", Kind: "Subject", ListKind: "SubjectList",
		Plural: "subjects", Singular: "subject", StatusSubresource: true, New: func() Object { return &sameSubject{} }}
	s, err := New(Options{Resources: []*Resource{res}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	in := &sameSubject{ObjectMeta: meta.ObjectMeta{Name: "a"}, Spec: sameSpec{Size: 1}, Status: sameStatus{Ready: true}}
	in.Kind = "Subject"
	out, err := s.Create(context.Background(), res, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*sameSubject); got.Status.Ready || got.Spec.Size != 1 || got.Kind != "" {
		t.Errorf("Create stored %+v; want no status, the spec, no kind", got)
	}
	if !in.Status.Ready || in.Kind != "Subject" {
		t.Errorf("Create changed the caller's object: %+v", in)
	}
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/apis/test.apisem.dev/v1/subjects",
		strings.NewReader(`{"apiVersion":"test.apisem.dev/v1","kind":"Subject","metadata":{"name":"b"},"spec":{"size":2,"tags":null,"any":null,"map":null},"status":{"ready":true}}`))
	r.Header.Set("Content-Type", "application/json")
	s.ServeHTTP(w, r)
	if w.Code != http.StatusCreated || !strings.Contains(w.Body.String(), `"status":{"ready":false}`) {
		t.Errorf("POST: %d %s; want 201 and status ready false", w.Code, w.Body)
	}
}
