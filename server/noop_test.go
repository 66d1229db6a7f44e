package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// tickingClock is a server clock that moves one second on every reading,
// so that a write a second later would show in managedFields' time.
func tickingClock() func() time.Time {
	var n atomic.Int64
	start := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	return func() time.Time { return start.Add(time.Duration(n.Add(1)) * time.Second) }
}

// A write that changes nothing writes nothing, as on a cluster: the same
// server-side apply again, a PUT of the object as read, and a patch that
// leaves it as it is all answer the stored object, with its
// resourceVersion, and make no watch event. Only managedFields' time would
// differ, and Kubernetes keeps an entry's time while its manager's fields
// stay the same.
func TestNoOpWritesWriteNothing(t *testing.T) {
	crd := server.UnstructuredResource(server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Widget", ListKind: "WidgetList",
		Plural: "widgets", Singular: "widget", Namespaced: true,
	})
	withStatus := server.UnstructuredResource(server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Gadget", ListKind: "GadgetList",
		Plural: "gadgets", Singular: "gadget", Namespaced: true, StatusSubresource: true,
	})
	s, base := servertest.New(t, server.Options{Resources: []*server.Resource{gizmos, crd, withStatus}, Now: tickingClock()})
	for _, tt := range []struct{ name, path, apply string }{
		{"typed", "/apis/demo.io/v1/namespaces/ns/gizmos/g", "apiVersion: demo.io/v1\nkind: Gizmo\nmetadata:\n  name: g\n  labels:\n    a: b\nspec:\n  color: red\n"},
		{"custom resource", "/apis/demo.io/v1/namespaces/ns/widgets/w", "apiVersion: demo.io/v1\nkind: Widget\nmetadata:\n  name: w\n  labels:\n    a: b\nspec:\n  size: 3\n"},
		{"status subresource", "/apis/demo.io/v1/namespaces/ns/gadgets/g", "apiVersion: demo.io/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  size: 3\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := base + tt.path
			apply := func(manager string, code int) string {
				t.Helper()
				r := servertest.Do(t, "PATCH", url+"?fieldManager="+manager, tt.apply, "Content-Type", "application/apply-patch+yaml")
				if r.Code != code {
					t.Fatalf("apply by %s: %d %s; want %d", manager, r.Code, r.Body, code)
				}
				return r.Body
			}
			first := apply("a", 201)
			rv := resourceVersion(t, first)
			rev := s.Revision()
			steps := []struct {
				name string
				do   func() string
			}{
				{"the same apply", func() string { return apply("a", 200) }},
				{"a PUT of the object as read", func() string {
					r := servertest.Do(t, "GET", url, "")
					r = servertest.Do(t, "PUT", url+"?fieldManager=a", r.Body, "Content-Type", "application/json")
					if r.Code != 200 {
						t.Fatalf("PUT: %d %s", r.Code, r.Body)
					}
					return r.Body
				}},
				{"an empty merge patch", func() string {
					r := servertest.Do(t, "PATCH", url+"?fieldManager=a", `{}`, "Content-Type", "application/merge-patch+json")
					if r.Code != 200 {
						t.Fatalf("PATCH: %d %s", r.Code, r.Body)
					}
					return r.Body
				}},
			}
			for _, st := range steps {
				got := st.do()
				if g := resourceVersion(t, got); g != rv || s.Revision() != rev {
					t.Errorf("%s: resourceVersion %s (server at %s); want %s, nothing written", st.name, g, s.Revision(), rv)
				}
				if got != first {
					t.Errorf("%s answered\n%s\nwant the stored object\n%s", st.name, got, first)
				}
			}
			// A real change is the first event after the apply.
			apply("b", 200) // another manager takes a share: managedFields change
			ev := firstEventAfter(t, url, rv)
			if ev == rv {
				t.Errorf("the first event after %s is at %s itself", rv, ev)
			}
			if want := s.Revision().String(); ev != want {
				t.Errorf("the first event after %s is at %s; want %s, the real change", rv, ev, want)
			}
		})
	}
}

func resourceVersion(t *testing.T, body string) string {
	t.Helper()
	var o struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return o.Metadata.ResourceVersion
}

// firstEventAfter watches the object at url from resourceVersion rv and
// returns the resourceVersion of the first event.
func firstEventAfter(t *testing.T, url, rv string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	coll, name := url[:len(url)-2], url[len(url)-1:]
	req, _ := http.NewRequestWithContext(ctx, "GET", coll+"?watch=1&fieldSelector=metadata.name%3D"+name+"&resourceVersion="+rv, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() {
		t.Fatalf("no event: %v", lines.Err())
	}
	var ev struct {
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
		t.Fatal(err)
	}
	return resourceVersion(t, string(ev.Object))
}
