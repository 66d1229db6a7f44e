package server

import (
	"fmt"
	"strings"
	"testing"
)

// An applied configuration too large to store is refused before the
// merge (issue 24): with 100,000 keys the merge took seconds of CPU. The
// conflict the merge would find is not reported.
func TestApplyTooLargeBeforeMerge(t *testing.T) {
	_, base := newGizmoServer(t)
	cfg := "apiVersion: demo.io/v1\nkind: Gizmo\nmetadata:\n  name: g1\ndata:\n  k00000: a\n"
	do(t, 201, base, "PATCH", gizmos+"/g1?fieldManager=first", cfg, "Content-Type", applyCT)
	// The 1.2 MB: its data alone would fit, not with the
	// managedFields entry that lists every key.
	var b strings.Builder
	b.WriteString("apiVersion: demo.io/v1\nkind: Gizmo\nmetadata:\n  name: g1\ndata:\n")
	for i := range 100000 {
		fmt.Fprintf(&b, "  k%05d: v\n", i)
	}
	r := do(t, 500, base, "PATCH", gizmos+"/g1?fieldManager=second", b.String(), "Content-Type", applyCT)
	if got := jsonField(t, r.body, "message"); got != "etcdserver: request is too large" {
		t.Errorf("message %q", got)
	}
}

// A time before year 0 or after 9999 in UTC, which Kubernetes stores and
// then serves as no RFC 3339 parser reads, is refused (issue 24).
func TestTimeOutOfRange(t *testing.T) {
	_, base := newGizmoServer(t)
	for _, tt := range []struct{ name, body, message string }{
		{"managedFields time", `{"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"name":"g1","managedFields":[{"manager":"m","operation":"Update","apiVersion":"demo.io/v1","fieldsType":"FieldsV1","fieldsV1":{},"time":"0000-01-01T0:00:00+01:00"}]}}`,
			`Gizmo in version "v1" cannot be handled as a Gizmo: metadata: parsing time "0000-01-01T0:00:00+01:00": year -1 in UTC is outside of range [0,9999]`},
		{"deletionTimestamp", `{"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"name":"g1","deletionTimestamp":"9999-12-31T23:00:00-01:00"}}`,
			`Gizmo in version "v1" cannot be handled as a Gizmo: metadata: parsing time "9999-12-31T23:00:00-01:00": year 10000 in UTC is outside of range [0,9999]`},
	} {
		r := do(t, 400, base, "POST", gizmos, tt.body, "Content-Type", "application/json")
		if got := jsonField(t, r.body, "message"); got != tt.message {
			t.Errorf("%s: message\n%q\nwant\n%q", tt.name, got, tt.message)
		}
	}
}
