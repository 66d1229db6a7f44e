package builtin

import (
	"testing"

	"github.com/apisem/apisem/server/servertest"
)

// TestRecordedCreateOnUpdate replays testdata/reference/createonupdate.json,
// recorded from kube-apiserver 1.37.1 (record-createonupdate.go): a PUT of
// a missing Lease or RoleBinding creates it (201, managedFields of an
// Update, a dry run stores nothing, a resourceVersion is ignored, a uid is
// the storage's precondition 409, validation and the namespace's existence
// are the create's), of a missing ConfigMap is a 404.
func TestRecordedCreateOnUpdate(t *testing.T) {
	_, url := allocServer(t, NewServiceAllocator(), nil)
	r := servertest.Do(t, "POST", url+"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}}`,
		"Content-Type", "application/json")
	if r.Code != 201 && r.Code != 409 {
		t.Fatalf("namespace: %d %s", r.Code, r.Body)
	}
	replay(t, url, "testdata/reference/createonupdate.json")
}
