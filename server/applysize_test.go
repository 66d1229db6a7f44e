package server

import (
	"strconv"
	"strings"
	"testing"
)

// An applied configuration too large to store is refused before the
// merge (issue 24): with 100,000 keys the merge took seconds of CPU. The
// conflict the merge would find is not reported.
func TestApplyTooLargeBeforeMerge(t *testing.T) {
	_, base := newGizmoServer(t)
	cfg := "apiVersion: demo.io/v1\nkind: Gizmo\nmetadata:\n  name: g1\ndata:\n  key-0: a\n"
	do(t, 201, base, "PATCH", gizmos+"/g1?fieldManager=first", cfg, "Content-Type", applyCT)
	var b strings.Builder
	b.WriteString("apiVersion: demo.io/v1\nkind: Gizmo\nmetadata:\n  name: g1\ndata:\n")
	for i := range 100000 {
		b.WriteString("  key-" + strconv.Itoa(i) + ": v\n")
	}
	r := do(t, 500, base, "PATCH", gizmos+"/g1?fieldManager=second", b.String(), "Content-Type", applyCT)
	if got := jsonField(t, r.body, "message"); got != "etcdserver: request is too large" {
		t.Errorf("message %q", got)
	}
}
