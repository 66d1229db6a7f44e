package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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

// Creates from several writers at once, with a watcher encoding each new
// object while its create is still running: every event and every answer
// is the object its create stored, never another create's bytes from a
// buffer given back too early.
func TestConcurrentCreatesKeepTheirJSON(t *testing.T) {
	counters := &server.Resource{Group: "demo.io", Version: "v1", Kind: "Counter", ListKind: "CounterList",
		Plural: "counters", Singular: "counter", Namespaced: true, New: func() server.Object { return &Counter{} }}
	_, base := servertest.New(t, server.Options{Resources: []*server.Resource{counters}})
	coll := base + "/apis/demo.io/v1/namespaces/ns/counters"
	const writers, each = 4, 50
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", coll+"?watch=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan map[string]Counter, 1)
	go func() {
		seen := map[string]Counter{}
		dec := json.NewDecoder(resp.Body)
		for len(seen) < writers*each {
			var ev struct {
				Type   string
				Object Counter
			}
			if err := dec.Decode(&ev); err != nil {
				break
			}
			seen[ev.Object.Name] = ev.Object
		}
		events <- seen
	}()
	var mu sync.Mutex
	created := map[string]Counter{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("w%d-%03d", w, i)
				r := servertest.Do(t, "POST", coll, fmt.Sprintf(`{"metadata":{"name":%q},"count":%d}`, name, 100*w+i),
					"Content-Type", "application/json")
				var c Counter
				if r.Code != 201 || json.Unmarshal([]byte(r.Body), &c) != nil || c.Name != name || c.Count != int64(100*w+i) {
					t.Errorf("POST %s: %d %s", name, r.Code, r.Body)
					continue
				}
				mu.Lock()
				created[name] = c
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	var seen map[string]Counter
	select {
	case seen = <-events:
	case <-time.After(30 * time.Second):
		t.Fatal("the watch did not deliver every create")
	}
	for name, want := range created {
		got, ok := seen[name]
		if !ok || got.Count != want.Count || got.UID != want.UID || got.ResourceVersion != want.ResourceVersion {
			t.Errorf("watch event of %s = %+v, want %+v", name, got, want)
		}
		g := servertest.Do(t, "GET", coll+"/"+name, "")
		var c Counter
		if g.Code != 200 || json.Unmarshal([]byte(g.Body), &c) != nil || c.Count != want.Count || c.UID != want.UID {
			t.Errorf("GET %s = %d %s, want count %d uid %s", name, g.Code, g.Body, want.Count, want.UID)
		}
	}
}
