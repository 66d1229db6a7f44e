package server_test

import (
	"encoding/json"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// A create's Prepare may give the object its uid, which is stored (as
// Kubernetes gives it before its strategy runs); the uid a client sends
// is never kept, and without a hook's the store gives one.
func TestPrepareGivesTheUID(t *testing.T) {
	const hookUID = "0f0f0f0f-1111-4222-8333-444444444444"
	var seen []string // the uid each Prepare saw
	res := func(plural, kind string, give bool) *server.Resource {
		return &server.Resource{
			Group: "demo.io", Version: "v1", Kind: kind, ListKind: kind + "List",
			Plural: plural, Namespaced: true,
			New: func() server.Object { return &Watched{} },
			Prepare: func(obj, old server.Object) {
				m := obj.Meta()
				seen = append(seen, m.UID)
				if give && old == nil {
					m.UID = hookUID
				}
			},
		}
	}
	_, base := servertest.New(t, server.Options{Resources: []*server.Resource{
		res("givens", "Given", true), res("plains", "Plain", false)}})
	const clientUID = "99999999-8888-4777-8666-555555555555"
	for _, tc := range []struct {
		plural, kind string
		want         func(string) bool
	}{
		{"givens", "Given", func(uid string) bool { return uid == hookUID }},
		{"plains", "Plain", func(uid string) bool { return uid != "" && uid != clientUID }},
	} {
		seen = nil
		body := `{"apiVersion":"demo.io/v1","kind":"` + tc.kind + `","metadata":{"name":"x","uid":"` + clientUID + `"}}`
		r := servertest.Do(t, "POST", base+"/apis/demo.io/v1/namespaces/ns/"+tc.plural, body, "Content-Type", "application/json")
		if r.Code != 201 {
			t.Fatalf("%s: %d %s", tc.plural, r.Code, r.Body)
		}
		var created Watched
		if err := json.Unmarshal([]byte(r.Body), &created); err != nil {
			t.Fatal(err)
		}
		if !tc.want(created.UID) || len(seen) != 1 || seen[0] != "" {
			t.Errorf("%s: created uid %q, Prepare saw %q", tc.plural, created.UID, seen)
		}
		g := servertest.Do(t, "GET", base+"/apis/demo.io/v1/namespaces/ns/"+tc.plural+"/x", "")
		var got Watched
		if err := json.Unmarshal([]byte(g.Body), &got); err != nil || got.UID != created.UID {
			t.Errorf("%s: stored uid %q, created %q (%v)", tc.plural, got.UID, created.UID, err)
		}
	}
}
