package server_test

import (
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// The metadata.uid of an update's body is its storage precondition, as
// kube-apiserver 1.37.1 makes it (apisemtest's TestRecordedForeignUID
// replays its answers): another uid is a 409 naming the storage key,
// checked before the resourceVersion and validation, the key of a dry
// run without the storage prefix; the object's own uid passes; a patch
// that sets another uid is the 422 of an immutable field.
func TestUpdateUIDPrecondition(t *testing.T) {
	_, base := newServer(t, server.Options{Resources: []*server.Resource{gizmos}})
	url := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	var created Gizmo
	if code := send(t, "POST", url, "application/json", `{"metadata":{"name":"g"}}`, &created); code != 201 {
		t.Fatalf("create: %d", code)
	}
	uid := created.UID
	conflict := func(key string) string {
		return `Operation cannot be fulfilled on gizmos.demo.io "g": StorageError: invalid object, Code: 4, Key: ` + key +
			`, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: ` + uid
	}
	for _, tc := range []struct {
		name, method, query, ctype, body string
		code                             int
		message                          string
	}{
		{"another uid", "PUT", "", "application/json", `{"metadata":{"name":"g","uid":"other"}}`, 409, conflict("/registry/demo.io/gizmos/ns/g")},
		{"another uid and an old resourceVersion", "PUT", "", "application/json", `{"metadata":{"name":"g","uid":"other","resourceVersion":"1"}}`, 409, conflict("/registry/demo.io/gizmos/ns/g")},
		{"another uid and an invalid spec", "PUT", "", "application/json", `{"metadata":{"name":"g","uid":"other"},"spec":{"color":"green"}}`, 409, conflict("/registry/demo.io/gizmos/ns/g")},
		{"dry run", "PUT", "?dryRun=All", "application/json", `{"metadata":{"name":"g","uid":"other"}}`, 409, conflict("/demo.io/gizmos/ns/g")},
		{"patch", "PATCH", "", "application/merge-patch+json", `{"metadata":{"uid":"other"}}`, 422,
			`Gizmo.demo.io "g" is invalid: metadata.uid: Invalid value: "other": field is immutable`},
		{"own uid", "PUT", "", "application/json", `{"metadata":{"name":"g","uid":"` + uid + `"},"spec":{"color":"red"}}`, 200, ""},
	} {
		var st status.Status
		code := send(t, tc.method, url+"/g"+tc.query, tc.ctype, tc.body, &st)
		if code != tc.code || st.Message != tc.message {
			t.Errorf("%s: %d %q\nwant %d %q", tc.name, code, st.Message, tc.code, tc.message)
		}
	}
}
