package server_test

import (
	"strings"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// Every write runs Kubernetes' metadata validation, with its messages
// (k8s.io/apimachinery/pkg/api/validation, ValidateObjectMetaAccessor and
// ValidateObjectMetaAccessorUpdate), whatever the resource's own rules.
func TestMetadataValidation(t *testing.T) {
	strict := *gizmos
	strict.RequireResourceVersion = true
	strict.Plural, strict.Singular, strict.Kind, strict.ListKind = "strictgizmos", "strictgizmo", "StrictGizmo", "StrictGizmoList"
	_, base := newServer(t, server.Options{Resources: []*server.Resource{gizmos, &strict}})
	url := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	const typ = `"apiVersion":"demo.io/v1","kind":"Gizmo",`
	create := func(meta string) string { return `{` + typ + `"metadata":` + meta + `}` }
	var g Gizmo
	if code := send(t, "POST", url, "application/json", create(`{"name":"g","labels":{"a":"b"}}`), &g); code != 201 {
		t.Fatalf("create: %d", code)
	}
	for _, tt := range []struct {
		name, method, path, ctype, body string
		code                            int
		want                            string
	}{
		{"name not a DNS subdomain", "POST", "", "application/json", create(`{"name":"Bad_Name"}`), 422,
			`Gizmo.demo.io "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"no name", "POST", "", "application/json", create(`{}`), 422,
			`Gizmo.demo.io "" is invalid: metadata.name: Required value: name or generateName is required`},
		{"bad generateName", "POST", "", "application/json", create(`{"generateName":"Bad-"}`), 422,
			`Gizmo.demo.io "Bad-" is invalid: metadata.generateName: Invalid value: "Bad-": a lowercase RFC 1123 subdomain`},
		{"label value too long", "POST", "", "application/json", create(`{"name":"l","labels":{"a":"` + strings.Repeat("x", 64) + `"}}`), 422,
			`Gizmo.demo.io "l" is invalid: metadata.labels: Invalid value: "` + strings.Repeat("x", 64) + `": must be no more than 63 bytes`},
		{"annotations over 256 KiB", "POST", "", "application/json", create(`{"name":"a","annotations":{"a":"` + strings.Repeat("x", 256<<10) + `"}}`), 422,
			`Gizmo.demo.io "a" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes`},
		{"uid is immutable", "PATCH", "/g", "application/merge-patch+json", `{"metadata":{"uid":"other"}}`, 422,
			`Gizmo.demo.io "g" is invalid: metadata.uid: Invalid value: "other": field is immutable`},
		{"a client may not set deletionTimestamp", "PATCH", "/g", "application/merge-patch+json", `{"metadata":{"deletionTimestamp":"2030-01-01T00:00:00Z"}}`, 422,
			`Gizmo.demo.io "g" is invalid: metadata.deletionTimestamp: Invalid value: "2030-01-01T00:00:00Z": field is immutable`},
		{"an update without resourceVersion is unconditional", "PUT", "/g", "application/json", create(`{"name":"g"}`), 200, ""},
	} {
		var st status.Status
		code := send(t, tt.method, url+tt.path, tt.ctype, tt.body, &st)
		if code != tt.code || !strings.HasPrefix(st.Message, tt.want) {
			t.Errorf("%s: %s answered %d %q; want %d %q", tt.name, tt.method, code, st.Message, tt.code, tt.want)
		}
	}

	// A resource that requires resourceVersion on updates, as custom
	// resources do.
	surl := base + "/apis/demo.io/v1/namespaces/ns/strictgizmos"
	sbody := `{"apiVersion":"demo.io/v1","kind":"StrictGizmo","metadata":{"name":"s"}}`
	if code := send(t, "POST", surl, "application/json", sbody, nil); code != 201 {
		t.Fatalf("create strict: %d", code)
	}
	var st status.Status
	if code := send(t, "PUT", surl+"/s", "application/json", sbody, &st); code != 422 ||
		st.Message != `strictgizmos.demo.io "s" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update` {
		t.Errorf("update without resourceVersion: %d %q", code, st.Message)
	}
}

// An object over the size etcd would refuse gets etcd's error, as from
// kube-apiserver, on create and on an update that grows it.
func TestObjectSizeLimit(t *testing.T) {
	_, base := newServer(t, server.Options{Resources: []*server.Resource{gizmos}, Limits: server.LimitOptions{MaxObjectBytes: 1 << 10}})
	url := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	big := strings.Repeat("x", 1<<10)
	var st status.Status
	if code := send(t, "POST", url, "application/json", `{"metadata":{"name":"big","annotations":{"a":"`+big+`"}}}`, &st); code != 500 ||
		st.Message != "etcdserver: request is too large" || st.Reason != "" {
		t.Errorf("create of a large object: %d %q %q", code, st.Reason, st.Message)
	}
	if code := send(t, "POST", url, "application/json", `{"metadata":{"name":"g"}}`, nil); code != 201 {
		t.Fatalf("create: %d", code)
	}
	st = status.Status{}
	if code := send(t, "PATCH", url+"/g", "application/merge-patch+json", `{"metadata":{"annotations":{"a":"`+big+`"}}}`, &st); code != 500 ||
		st.Message != "etcdserver: request is too large" {
		t.Errorf("update to a large object: %d %q", code, st.Message)
	}
}
