package server_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// A create's first encoding is written to a buffer that the next create
// writes again: the JSON each stored version keeps, and every answer
// that carries it, is its own. A stored version that shared the buffer
// would read as a later create's object.
func TestCreatesKeepTheirJSON(t *testing.T) {
	counters := &server.Resource{Group: "demo.io", Version: "v1", Kind: "Counter", ListKind: "CounterList",
		Plural: "counters", Singular: "counter", Namespaced: true, New: func() server.Object { return &Counter{} }}
	_, base := servertest.New(t, server.Options{Resources: []*server.Resource{counters}})
	coll := base + "/apis/demo.io/v1/namespaces/ns/counters"
	created := map[string]string{}
	for i := range 20 {
		name := "c" + strconv.Itoa(i)
		// Names and counts of one length: each encoding fits the last.
		r := servertest.Do(t, "POST", coll, `{"metadata":{"name":"`+name+`"},"count":`+strconv.Itoa(10+i%10)+`}`,
			"Content-Type", "application/json")
		if r.Code != 201 {
			t.Fatalf("POST %s: %d %s", name, r.Code, r.Body)
		}
		created[name] = r.Body
	}
	for name, want := range created {
		if got := servertest.Do(t, "GET", coll+"/"+name, ""); got.Code != 200 || got.Body != want {
			t.Errorf("GET %s = %d %s\nthe create answered %s", name, got.Code, got.Body, want)
		}
	}
	list := servertest.Do(t, "GET", coll, "")
	for name, want := range created {
		if item := strings.TrimSuffix(want, "\n"); !strings.Contains(list.Body, strings.TrimPrefix(item, `{"kind":"Counter","apiVersion":"demo.io/v1",`)) {
			t.Errorf("the list lacks %s as created: %s", name, item)
		}
	}
}

func (c *Counter) DeepCopyObject() server.Object {
	out := *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (c *Counter) Types() *meta.TypeMeta { return &c.TypeMeta }
