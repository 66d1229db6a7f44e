package server_test

import (
	"sync"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// Watched is a type whose Prepare hook records the subresource of each
// write, which ObserveWrite told it.
type Watched struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            map[string]string `json:"spec,omitempty"`
	Status          map[string]string `json:"status,omitempty"`
	sub             string
	observed        bool
}

func (w *Watched) Types() *meta.TypeMeta { return &w.TypeMeta }

func (w *Watched) ObserveWrite(a server.Attributes) { w.sub, w.observed = a.Subresource, true }

func (w *Watched) DeepCopyObject() server.Object {
	out := &Watched{TypeMeta: w.TypeMeta, ObjectMeta: *w.ObjectMeta.DeepCopy()}
	for k, v := range w.Spec {
		if out.Spec == nil {
			out.Spec = map[string]string{}
		}
		out.Spec[k] = v
	}
	for k, v := range w.Status {
		if out.Status == nil {
			out.Status = map[string]string{}
		}
		out.Status[k] = v
	}
	return out
}

// The hooks of a write see, on a WriteObserver, the subresource the
// write came through, also when it changes nothing.
func TestWriteObserverSeesTheSubresource(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	res := &server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Watched", ListKind: "WatchedList",
		Plural: "watcheds", Namespaced: true, StatusSubresource: true,
		New: func() server.Object { return &Watched{} },
		Prepare: func(obj, old server.Object) {
			w := obj.(*Watched)
			mu.Lock()
			defer mu.Unlock()
			if !w.observed {
				seen = append(seen, "not observed")
				return
			}
			seen = append(seen, "sub="+w.sub)
		},
	}
	_, base := servertest.New(t, server.Options{Resources: []*server.Resource{res}})
	url := base + "/apis/demo.io/v1/namespaces/ns/watcheds"
	const obj = `{"apiVersion":"demo.io/v1","kind":"Watched","metadata":{"name":"w"},"spec":{"a":"1"},"status":{"s":"1"}}`
	for _, step := range []struct{ method, path, body, want string }{
		{"POST", "", obj, "sub="},
		{"PUT", "/w/status", obj, "sub=status"},
		{"PUT", "/w/status", obj, "sub=status"}, // changes nothing
		{"PUT", "/w", obj, "sub="},
	} {
		mu.Lock()
		seen = nil
		mu.Unlock()
		if r := servertest.Do(t, step.method, url+step.path, step.body, "Content-Type", "application/json"); r.Code >= 300 {
			t.Fatalf("%s %s: %d %s", step.method, step.path, r.Code, r.Body)
		}
		mu.Lock()
		if len(seen) != 1 || seen[0] != step.want {
			t.Errorf("%s %s: Prepare saw %q, want %q", step.method, step.path, seen, step.want)
		}
		mu.Unlock()
	}
}
