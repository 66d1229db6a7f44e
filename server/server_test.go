package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/apisem/apisem/server/servertest"
	"net/http"
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

func newServer(t *testing.T, opts server.Options) (*server.Server, string) {
	t.Helper()
	return servertest.New(t, opts)
}

// send makes one request and decodes the JSON answer into out (if set).
func send(t *testing.T, method, url, ctype, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: decoding the answer: %v", method, url, err)
		}
	}
	return resp.StatusCode
}

// The same resource twice is a programming error New reports.
func TestNewRefusesAResourceTwice(t *testing.T) {
	copy := *gizmos
	if _, err := server.New(server.Options{Resources: []*server.Resource{gizmos, &copy}}); err == nil {
		t.Fatal("New served gizmos twice")
	}
}

// metadata.generation, as Kubernetes keeps it for custom resources: 1 on
// create, +1 for a change outside metadata and status, whatever the client
// sends for it.
func TestGeneration(t *testing.T) {
	_, base := newServer(t, server.Options{Resources: []*server.Resource{gizmos}})
	url := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	const typ = `"apiVersion":"demo.io/v1","kind":"Gizmo",`
	var g Gizmo
	steps := []struct {
		name, method, path, ctype, body string
		want                            int64
	}{
		{"create ignores a client's generation", "POST", "", "application/json",
			`{` + typ + `"metadata":{"name":"g","generation":7},"spec":{"color":"red"}}`, 1},
		{"a label is metadata", "PATCH", "/g", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`, 1},
		{"a spec change counts", "PATCH", "/g", "application/merge-patch+json", `{"spec":{"color":"blue"}}`, 2},
		{"an update to the same spec does not", "PUT", "/g", "application/json",
			`{` + typ + `"metadata":{"name":"g"},"spec":{"color":"blue"}}`, 2},
		{"nor can a client set it", "PATCH", "/g", "application/merge-patch+json", `{"metadata":{"generation":40}}`, 2},
		{"a JSON patch of the spec counts", "PATCH", "/g", "application/json-patch+json",
			`[{"op":"replace","path":"/spec/color","value":"red"}]`, 3},
	}
	for _, st := range steps {
		g = Gizmo{}
		code := send(t, st.method, url+st.path, st.ctype, st.body, &g)
		if code >= 300 || g.Generation != st.want {
			t.Errorf("%s: %s answered %d with generation %d; want %d", st.name, st.method, code, g.Generation, st.want)
		}
	}
}

// Hooks: admission can refuse a create, Resource.Delete replaces the
// store's deletion.
func TestHooks(t *testing.T) {
	res := *gizmos
	var deleted []string
	res.Delete = func(ctx context.Context, st store.Backend[server.Object], ns, name string, opts store.DeleteOptions) (server.Object, bool, error) {
		deleted = append(deleted, ns+"/"+name)
		return st.Delete(ctx, ns, name, opts)
	}
	admit := func(_ context.Context, a server.Attributes, o, _ server.Object) error {
		if a.Operation == server.OperationCreate && a.Namespace == "closed" {
			return status.NewForbidden(status.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Plural}, o.Meta().Name, errors.New("namespace closed"))
		}
		return nil
	}
	s, base := newServer(t, server.Options{Resources: []*server.Resource{&res}, Admission: server.Admission{Mutate: admit}})
	body := `{"metadata":{"name":"g"}}`
	var st status.Status
	if code := send(t, "POST", base+"/apis/demo.io/v1/namespaces/closed/gizmos", "application/json", body, &st); code != 403 ||
		st.Message != `gizmos.demo.io "g" is forbidden: namespace closed` {
		t.Errorf("create refused by admission: %d %q", code, st.Message)
	}
	if code := send(t, "POST", base+"/apis/demo.io/v1/namespaces/open/gizmos", "application/json", body, nil); code != 201 {
		t.Fatalf("create: %d", code)
	}
	if _, err := s.Create(context.Background(), &res, &Gizmo{ObjectMeta: meta.ObjectMeta{Name: "h", Namespace: "closed"}}); !status.IsForbidden(err) {
		t.Errorf("Create in a closed namespace: %v; want Forbidden", err)
	}
	if code := send(t, "DELETE", base+"/apis/demo.io/v1/namespaces/open/gizmos/g", "", "", nil); code != 200 {
		t.Errorf("delete: %d", code)
	}
	if len(deleted) != 1 || deleted[0] != "open/g" {
		t.Errorf("Resource.Delete saw %q; want [open/g]", deleted)
	}
	if _, err := s.Create(context.Background(), gizmos, &Gizmo{}); err == nil {
		t.Error("Create of a resource the server does not serve succeeded")
	}
}
