package demo

import (
	"sync/atomic"
	"testing"
	"time"
)

// Applying the same ConfigMap again a second later writes nothing, as on a
// cluster: the same resourceVersion, and the server's revision does not
// move (so no watch event). A controller that applies its objects on every
// reconcile does not wake itself.
func TestApplyConfigMapTwiceWritesNothing(t *testing.T) {
	var tick atomic.Int64
	start := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	s, base := newTestServer(t, Options{Now: func() time.Time { return start.Add(time.Duration(tick.Add(1)) * time.Second) }})
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns"}}`)
	path := "/api/v1/namespaces/ns/configmaps/app?fieldManager=ctl"
	cfg := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  k: v\n"
	first := must(t, 201, base, "PATCH", path, cfg, "Content-Type", "application/apply-patch+yaml")
	rev := s.Revision()
	second := must(t, 200, base, "PATCH", path, cfg, "Content-Type", "application/apply-patch+yaml")
	if a, b := field(t, first.body, "metadata.resourceVersion"), field(t, second.body, "metadata.resourceVersion"); a != b || s.Revision() != rev {
		t.Errorf("resourceVersion %v after %v (server at %v, was %v); want nothing written", b, a, s.Revision(), rev)
	}
	if first.body != second.body {
		t.Errorf("the second apply answered\n%s\nwant the stored object\n%s", second.body, first.body)
	}
}
