package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// A PUT of a missing object of a resource with CreateOnUpdate is a
// create, as kube-apiserver's is for the kinds whose strategy allows it
// (builtin's TestRecordedCreateOnUpdate replays kube-apiserver 1.37.1's
// answers): 201, admission with operation CREATE, the create's validation
// and generation, a new uid, a resourceVersion ignored, a uid the 409 of
// the storage's precondition on the empty object; a dry run stores
// nothing; subresources and resources without it answer 404.
func TestCreateOnUpdate(t *testing.T) {
	creating := *gizmos
	creating.Plural, creating.Singular, creating.Kind, creating.ListKind = "creatings", "creating", "Creating", "CreatingList"
	creating.CreateOnUpdate = true
	creating.StatusSubresource = true
	var mu sync.Mutex
	var ops []server.Operation
	_, base := newServer(t, server.Options{
		Resources: []*server.Resource{gizmos, &creating},
		Admission: server.Admission{Validate: func(_ context.Context, a server.Attributes, _, _ server.Object) error {
			mu.Lock()
			defer mu.Unlock()
			ops = append(ops, a.Operation)
			return nil
		}},
	})
	url := base + "/apis/demo.io/v1/namespaces/ns/creatings"
	conflict := func(key string) string {
		return `Operation cannot be fulfilled on creatings.demo.io "u": StorageError: invalid object, Code: 4, Key: ` + key +
			`, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: `
	}
	for _, tc := range []struct {
		name, path, body string
		code             int
		message          string
		op               server.Operation // admitted, if any
	}{
		{"missing gizmo", base + "/apis/demo.io/v1/namespaces/ns/gizmos/g", `{"metadata":{"name":"g"}}`, 404, `gizmos.demo.io "g" not found`, ""},
		{"dry run", url + "/d?dryRun=All", `{"metadata":{"name":"d"},"spec":{"color":"red"}}`, 201, "", server.OperationCreate},
		{"after the dry run", url + "/d/status", `{"metadata":{"name":"d"}}`, 404, `creatings.demo.io "d" not found`, ""},
		{"create", url + "/c", `{"metadata":{"name":"c","resourceVersion":"12345"},"spec":{"color":"red"}}`, 201, "", server.OperationCreate},
		{"update", url + "/c", `{"metadata":{"name":"c"},"spec":{"color":"blue"}}`, 200, "", server.OperationUpdate},
		{"invalid", url + "/i", `{"metadata":{"name":"i"},"spec":{"color":"green"}}`, 422,
			`Creating.demo.io "i" is invalid: spec.color: Unsupported value: "green": supported values: "blue", "red"`, ""},
		{"uid", url + "/u", `{"metadata":{"name":"u","uid":"other"}}`, 409, conflict("/registry/demo.io/creatings/ns/u"), ""},
		{"dry-run uid", url + "/u?dryRun=All", `{"metadata":{"name":"u","uid":"other"}}`, 409, conflict("/demo.io/creatings/ns/u"), ""},
	} {
		mu.Lock()
		ops = nil
		mu.Unlock()
		var raw json.RawMessage
		code := send(t, "PUT", tc.path, "application/json", tc.body, &raw)
		var g Gizmo
		var st status.Status
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatal(err)
		}
		if code/100 != 2 {
			if err := json.Unmarshal(raw, &st); err != nil {
				t.Fatal(err)
			}
		}
		if code != tc.code || st.Message != tc.message {
			t.Errorf("%s: %d %q\nwant %d %q", tc.name, code, st.Message, tc.code, tc.message)
		}
		mu.Lock()
		if tc.op != "" && (len(ops) != 1 || ops[0] != tc.op) {
			t.Errorf("%s: admitted %v, want %s", tc.name, ops, tc.op)
		}
		mu.Unlock()
		if code/100 != 2 {
			continue
		}
		if m := g.ObjectMeta; m.UID == "" || m.CreationTimestamp.IsZero() || m.Generation < 1 ||
			len(m.ManagedFields) != 1 || m.ManagedFields[0].Operation != "Update" {
			t.Errorf("%s: metadata %+v", tc.name, m)
		}
	}
}

// Concurrent PUTs of the same missing object: one creates it, the others
// (whose create lost the race) update it, as kube-apiserver's storage
// retries such a write as an update.
func TestCreateOnUpdateRace(t *testing.T) {
	creating := *gizmos
	creating.Plural, creating.Singular, creating.Kind, creating.ListKind = "creatings", "creating", "Creating", "CreatingList"
	creating.CreateOnUpdate = true
	_, base := newServer(t, server.Options{Resources: []*server.Resource{&creating}})
	url := base + "/apis/demo.io/v1/namespaces/ns/creatings/r"
	const n = 8
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			color := []string{"red", "blue"}[i%2]
			req, err := http.NewRequest("PUT", url, strings.NewReader(`{"metadata":{"name":"r"},"spec":{"color":"`+color+`"}}`))
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	wg.Wait()
	close(codes)
	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	if count[201] != 1 || count[200] != n-1 {
		t.Errorf("answers %v, want one 201 and %d 200", count, n-1)
	}
}
