package server_test

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/scale"
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
	Status          map[string]string `json:"status,omitempty"`
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
	out.Spec, out.Status = maps.Clone(c.Spec), maps.Clone(c.Status)
	return &out
}

// countedScale serves a Counted's spec.replicas as its scale subresource.
var countedScale = &server.ScaleSubresource{
	SpecReplicasPath: ".spec.replicas",
	Get: func(o server.Object) (scale.Spec, scale.Status, bool, error) {
		s, ok := o.(*Counted).Spec["replicas"]
		n, err := strconv.Atoi(s)
		if ok && err != nil {
			return scale.Spec{}, scale.Status{}, false, err
		}
		return scale.Spec{Replicas: int32(n)}, scale.Status{}, ok, nil
	},
	Set: func(o server.Object, n int32) error {
		c := o.(*Counted)
		if c.Spec == nil {
			c.Spec = map[string]string{}
		}
		c.Spec["replicas"] = strconv.Itoa(int(n))
		return nil
	},
}

// Every write encodes the new object once: the size check, generation,
// the no-op check, managedFields, the status subresource's split, the
// response and the watchers share that encoding, and the current object's
// JSON is read from the cache, never encoded again (DESIGN's invariant
// 5). A write that changes nothing costs the same one encoding, to
// compare; so does a dry run, whose answer is that encoding too. Writes
// to the status and scale subresources are writes like the others.
func TestWriteEncodesTheObjectOnce(t *testing.T) {
	res := &server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Counted", ListKind: "CountedList",
		Plural: "counteds", Namespaced: true, Generation: true, StatusSubresource: true,
		Scale: countedScale,
		New:   func() server.Object { return &Counted{} },
	}
	s, base := servertest.New(t, server.Options{Resources: []*server.Resource{res}, Now: tickingClock()})
	url := base + "/apis/demo.io/v1/namespaces/ns/counteds"
	// The first write makes the resource's field manager, which encodes
	// an empty object once.
	if r := servertest.Do(t, "POST", url, `{"metadata":{"name":"first"}}`, "Content-Type", "application/json"); r.Code != 201 {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	marshals.Store(0)
	for _, tt := range []struct{ name, query, body string }{
		{"create", "", `{"metadata":{"name":"c"},"spec":{"a":"1","replicas":"1"},"status":{"s":"dropped"}}`},
		{"dry-run create", "&dryRun=All", `{"metadata":{"name":"d"},"spec":{"a":"1"},"status":{"s":"dropped"}}`},
	} {
		rev := s.Revision()
		marshals.Store(0)
		r := servertest.Do(t, "POST", url+"?fieldManager=m"+tt.query, tt.body, "Content-Type", "application/json")
		if r.Code != 201 {
			t.Fatalf("%s: %d %s", tt.name, r.Code, r.Body)
		}
		if n := marshals.Load(); n != 1 {
			t.Errorf("%s encoded the object %d times; want 1", tt.name, n)
		}
		if strings.Contains(r.Body, "dropped") {
			t.Errorf("%s kept the status: %s", tt.name, r.Body)
		}
		if wrote := s.Revision() != rev; wrote == (tt.query != "") {
			t.Errorf("%s wrote %v", tt.name, wrote)
		}
	}
	for _, tt := range []struct {
		name, sub, method, ct, body string
		write                       bool // a new resourceVersion
		dryRun                      bool
	}{
		{"PUT", "", "PUT", "application/json", `{"metadata":{"name":"c"},"spec":{"a":"2","replicas":"1"}}`, true, false},
		{"PUT of the same", "", "PUT", "application/json", `{"metadata":{"name":"c"},"spec":{"a":"2","replicas":"1"}}`, false, false},
		{"merge patch", "", "PATCH", "application/merge-patch+json", `{"spec":{"b":"3"}}`, true, false},
		{"JSON patch", "", "PATCH", "application/json-patch+json", `[{"op":"remove","path":"/spec/b"}]`, true, false},
		{"apply", "", "PATCH", "application/apply-patch+yaml", "apiVersion: demo.io/v1\nkind: Counted\nmetadata:\n  name: c\nspec:\n  a: \"4\"\n", true, false},
		{"apply of the same", "", "PATCH", "application/apply-patch+yaml", "apiVersion: demo.io/v1\nkind: Counted\nmetadata:\n  name: c\nspec:\n  a: \"4\"\n", false, false},
		{"label", "", "PATCH", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`, true, false},
		{"status PUT", "/status", "PUT", "application/json", `{"metadata":{"name":"c"},"spec":{"a":"ignored"},"status":{"s":"1"}}`, true, false},
		{"status PUT of the same", "/status", "PUT", "application/json", `{"metadata":{"name":"c"},"status":{"s":"1"}}`, false, false},
		{"status merge patch", "/status", "PATCH", "application/merge-patch+json", `{"status":{"t":"2"}}`, true, false},
		{"status apply", "/status", "PATCH", "application/apply-patch+yaml", "apiVersion: demo.io/v1\nkind: Counted\nmetadata:\n  name: c\nstatus:\n  s: \"3\"\n", true, false},
		{"scale PUT", "/scale", "PUT", "application/json", `{"metadata":{"name":"c"},"spec":{"replicas":2}}`, true, false},
		{"scale merge patch", "/scale", "PATCH", "application/merge-patch+json", `{"spec":{"replicas":3}}`, true, false},
		{"scale apply", "/scale", "PATCH", "application/apply-patch+yaml", "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: c\nspec:\n  replicas: 4\n", true, false},
		{"dry-run PUT", "", "PUT", "application/json", `{"metadata":{"name":"c"},"spec":{"a":"5"}}`, false, true},
		{"dry-run merge patch", "", "PATCH", "application/merge-patch+json", `{"spec":{"b":"5"}}`, false, true},
		{"dry-run apply", "", "PATCH", "application/apply-patch+yaml", "apiVersion: demo.io/v1\nkind: Counted\nmetadata:\n  name: c\nspec:\n  a: \"5\"\n", false, true},
		{"dry-run status merge patch", "/status", "PATCH", "application/merge-patch+json", `{"status":{"t":"5"}}`, false, true},
		{"dry-run scale merge patch", "/scale", "PATCH", "application/merge-patch+json", `{"spec":{"replicas":5}}`, false, true},
	} {
		rev := s.Revision()
		marshals.Store(0)
		q := "?fieldManager=m"
		if tt.ct == "application/apply-patch+yaml" {
			q = "?fieldManager=a&force=true"
		}
		if tt.dryRun {
			q += "&dryRun=All"
		}
		r := servertest.Do(t, tt.method, url+"/c"+tt.sub+q, tt.body, "Content-Type", tt.ct)
		if r.Code != 200 {
			t.Fatalf("%s: %d %s", tt.name, r.Code, r.Body)
		}
		if n := marshals.Load(); n != 1 {
			t.Errorf("%s encoded the object %d times; want 1", tt.name, n)
		}
		if wrote := s.Revision() != rev; wrote != tt.write {
			t.Errorf("%s wrote %v; want %v", tt.name, wrote, tt.write)
		}
		if tt.dryRun {
			continue
		}
		marshals.Store(0)
		got := servertest.Do(t, "GET", url+"/c"+tt.sub, "")
		if got.Body != r.Body {
			t.Errorf("%s answered\n%s\nand GET\n%s", tt.name, r.Body, got.Body)
		}
		if n := marshals.Load(); n != 0 {
			t.Errorf("GET after %s encoded the object %d times; want 0, cached", tt.name, n)
		}
	}
	// What the writes wrote: the status writes status alone, the dry
	// runs nothing.
	got := strings.TrimSpace(servertest.Do(t, "GET", url+"/c", "").Body)
	if want := `"spec":{"a":"4","replicas":"4"},"status":{"s":"3","t":"2"}}`; !strings.HasSuffix(got, want) {
		t.Errorf("the object is %s; want it to end %s", got, want)
	}
}
