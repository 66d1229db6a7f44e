package server_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/store"
)

// An update without a resourceVersion is unconditional: when another
// write lands between its read and its own write, it is tried again on
// the new state, as Kubernetes' registry retries it, not answered with a
// 409. Each attempt starts from the request's object as sent.
func TestUnconditionalUpdateRetries(t *testing.T) {
	var s *server.Server
	var res *server.Resource
	raced := false
	res = &server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Raced", ListKind: "RacedList",
		Plural: "raceds", Namespaced: true, Generation: true,
		New: func() server.Object { return &Watched{} },
		Prepare: func(obj, old server.Object) {
			if old == nil || raced {
				return
			}
			raced = true // another writer, once, between the read and the write
			_, err := s.StoreOf(res).GuaranteedUpdate(context.Background(), "ns", "x", store.UpdateOptions{},
				func(cur server.Object) (server.Object, error) {
					c := cur.DeepCopyObject()
					c.Meta().Labels = map[string]string{"other": "writer"}
					return c, nil
				})
			if err != nil {
				t.Error(err)
			}
		},
	}
	s, base := servertest.New(t, server.Options{Resources: []*server.Resource{res}})
	const path = "/apis/demo.io/v1/namespaces/ns/raceds"
	if r := servertest.Do(t, "POST", base+path, `{"metadata":{"name":"x"},"spec":{"a":"1"}}`, "Content-Type", "application/json"); r.Code != 201 {
		t.Fatalf("POST: %d %s", r.Code, r.Body)
	}
	r := servertest.Do(t, "PUT", base+path+"/x", `{"metadata":{"name":"x"},"spec":{"a":"2"}}`, "Content-Type", "application/json")
	if r.Code != 200 {
		t.Fatalf("PUT without resourceVersion, raced: %d %s; want 200", r.Code, r.Body)
	}
	var got Watched
	if err := json.Unmarshal([]byte(r.Body), &got); err != nil {
		t.Fatal(err)
	}
	if !raced || got.Spec["a"] != "2" || got.Generation != 2 || len(got.ManagedFields) != 1 {
		t.Errorf("raced %v; stored spec %v, generation %d, managedFields %d; want a=2, 2, 1", raced, got.Spec, got.Generation, len(got.ManagedFields))
	}
}
