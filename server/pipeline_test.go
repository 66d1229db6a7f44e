package server_test

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// marshals counts the JSON encodings of Counted objects.
var marshals atomic.Int64

// Counted is a type that counts its JSON encodings.
type Counted struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            map[string]string `json:"spec,omitempty"`
}

func (c *Counted) MarshalJSON() ([]byte, error) {
	marshals.Add(1)
	type plain Counted // without this method
	return json.Marshal((*plain)(c))
}

func (c *Counted) Types() *meta.TypeMeta { return &c.TypeMeta }

func (c *Counted) DeepCopyObject() server.Object {
	out := *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if c.Spec != nil {
		out.Spec = make(map[string]string, len(c.Spec))
		for k, v := range c.Spec {
			out.Spec[k] = v
		}
	}
	return &out
}

// A create or an update encodes the new object once: the size check, generation,
// the no-op check, managedFields, the response and the watchers share
// that encoding, and the current object's JSON is read from the cache,
// never encoded again (DESIGN's invariant 5). A write that changes
// nothing costs the same one encoding, to compare.
func TestWriteEncodesTheObjectOnce(t *testing.T) {
	res := &server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Counted", ListKind: "CountedList",
		Plural: "counteds", Namespaced: true, Generation: true,
		New: func() server.Object { return &Counted{} },
	}
	s, base := servertest.New(t, server.Options{Resources: []*server.Resource{res}, Now: tickingClock()})
	url := base + "/apis/demo.io/v1/namespaces/ns/counteds"
	// The first write makes the resource's field manager, which encodes
	// an empty object once.
	if r := servertest.Do(t, "POST", url, `{"metadata":{"name":"first"}}`, "Content-Type", "application/json"); r.Code != 201 {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	marshals.Store(0)
	if r := servertest.Do(t, "POST", url+"?fieldManager=m", `{"metadata":{"name":"c"},"spec":{"a":"1"}}`, "Content-Type", "application/json"); r.Code != 201 {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	if n := marshals.Load(); n != 1 {
		t.Errorf("create encoded the object %d times; want 1", n)
	}
	for _, tt := range []struct {
		name, method, ct, body string
		write                  bool // a new resourceVersion
	}{
		{"PUT", "PUT", "application/json", `{"metadata":{"name":"c"},"spec":{"a":"2"}}`, true},
		{"PUT of the same", "PUT", "application/json", `{"metadata":{"name":"c"},"spec":{"a":"2"}}`, false},
		{"merge patch", "PATCH", "application/merge-patch+json", `{"spec":{"b":"3"}}`, true},
		{"JSON patch", "PATCH", "application/json-patch+json", `[{"op":"remove","path":"/spec/b"}]`, true},
		{"apply", "PATCH", "application/apply-patch+yaml", "apiVersion: demo.io/v1\nkind: Counted\nmetadata:\n  name: c\nspec:\n  a: \"4\"\n", true},
		{"apply of the same", "PATCH", "application/apply-patch+yaml", "apiVersion: demo.io/v1\nkind: Counted\nmetadata:\n  name: c\nspec:\n  a: \"4\"\n", false},
		{"label", "PATCH", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`, true},
	} {
		rev := s.Revision()
		marshals.Store(0)
		q := "?fieldManager=m"
		if tt.ct == "application/apply-patch+yaml" {
			q = "?fieldManager=a&force=true"
		}
		r := servertest.Do(t, tt.method, url+"/c"+q, tt.body, "Content-Type", tt.ct)
		if r.Code != 200 {
			t.Fatalf("%s: %d %s", tt.name, r.Code, r.Body)
		}
		if n := marshals.Load(); n != 1 {
			t.Errorf("%s encoded the object %d times; want 1", tt.name, n)
		}
		if wrote := s.Revision() != rev; wrote != tt.write {
			t.Errorf("%s wrote %v; want %v", tt.name, wrote, tt.write)
		}
		marshals.Store(0)
		got := servertest.Do(t, "GET", url+"/c", "")
		if got.Body != r.Body {
			t.Errorf("%s answered\n%s\nand GET\n%s", tt.name, r.Body, got.Body)
		}
		if n := marshals.Load(); n != 0 {
			t.Errorf("GET after %s encoded the object %d times; want 0, cached", tt.name, n)
		}
	}
}
