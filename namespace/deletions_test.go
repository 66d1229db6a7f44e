package namespace

import (
	"strconv"
	"testing"
	"time"
)

// A deletion is remembered for 30 seconds, and at most the last 100 are,
// as Kubernetes' NamespaceLifecycle remembers them.
func TestRecentDeletions(t *testing.T) {
	now := time.Unix(1000, 0)
	d := recentDeletions{now: func() time.Time { return now }}
	if d.recent("a") {
		t.Fatal("nothing deleted, yet a is recent")
	}
	d.add("a")
	now = now.Add(deletionTTL - time.Second)
	if !d.recent("a") {
		t.Error("a deleted 29s ago is not recent")
	}
	now = now.Add(time.Second)
	if d.recent("a") {
		t.Error("a deleted 30s ago is recent")
	}
	if d.n.Load() != 0 {
		t.Errorf("%d deletions remembered after they expired; want 0", d.n.Load())
	}

	for i := range maxDeletions + 1 {
		now = now.Add(time.Millisecond)
		d.add("ns" + strconv.Itoa(i))
	}
	if d.recent("ns0") {
		t.Error("the oldest of 101 deletions is remembered")
	}
	for _, n := range []string{"ns1", "ns" + strconv.Itoa(maxDeletions)} {
		if !d.recent(n) {
			t.Errorf("%s, one of the last 100 deletions, is forgotten", n)
		}
	}
	if got := d.n.Load(); got != maxDeletions {
		t.Errorf("%d deletions remembered; want %d", got, maxDeletions)
	}
	// Deleting again renews the time without growing the set.
	now = now.Add(deletionTTL - time.Millisecond)
	d.add("ns1")
	now = now.Add(time.Millisecond)
	if !d.recent("ns1") || d.recent("ns2") {
		t.Error("a namespace deleted again is not remembered from the new deletion")
	}
}
