package store

import (
	"context"
	"testing"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// A graceful deletion (DeleteOptions.Graceful) marks an object for its
// period, lets a shorter period move the mark and 0 delete it (or leave
// it marked with 0 while finalizers hold it); GracePeriodSeconds without
// Graceful is ignored.
func TestGracefulDelete(t *testing.T) {
	ctx := context.Background()
	grace := func(n int64) *int64 { return &n }
	f := newFixture(t, Options[*widget]{})
	in := newWidget("ns", "a")
	in.Generation = 1
	f.create(t, in)
	f.create(t, newWidget("ns", "plain"))

	// Not graceful: the period does not count.
	if _, deleted, err := f.r.Delete(ctx, "ns", "plain", DeleteOptions{GracePeriodSeconds: grace(30)}); err != nil || !deleted {
		t.Errorf("a deletion that is not graceful: deleted %v, %v", deleted, err)
	}

	for i, step := range []struct {
		grace   *int64
		deleted bool
		at      time.Duration // deletionTimestamp after epoch; 0 for none
		period  int64
		gen     int64
		write   bool
	}{
		{grace(30), false, 30 * time.Second, 30, 2, true},
		{grace(30), false, 30 * time.Second, 30, 2, false}, // not shorter: pending
		{nil, false, 30 * time.Second, 30, 2, false},
		{grace(10), false, 10 * time.Second, 10, 2, true},
		{grace(0), true, 0, 0, 0, true},
	} {
		rev := f.s.Revision()
		out, deleted, err := f.r.Delete(ctx, "ns", "a", DeleteOptions{Graceful: true, GracePeriodSeconds: step.grace})
		if err != nil || deleted != step.deleted || (f.s.Revision() != rev) != step.write {
			t.Fatalf("%d: deleted %v, %v, wrote %v", i, deleted, err, f.s.Revision() != rev)
		}
		if deleted {
			continue
		}
		if out.DeletionTimestamp == nil || !out.DeletionTimestamp.Equal(epoch.Add(step.at)) ||
			*out.DeletionGracePeriodSeconds != step.period || out.Generation != step.gen {
			t.Errorf("%d: marked %s", i, mustJSON(out))
		}
	}

	// A deletion that is not graceful deletes a marked object (the
	// namespace controller's, with no kubelet to finish it).
	f.create(t, newWidget("ns", "b"))
	if _, _, err := f.r.Delete(ctx, "ns", "b", DeleteOptions{Graceful: true, GracePeriodSeconds: grace(30)}); err != nil {
		t.Fatal(err)
	}
	if _, deleted, err := f.r.Delete(ctx, "ns", "b", DeleteOptions{}); err != nil || !deleted {
		t.Errorf("a deletion that is not graceful of a marked object: deleted %v, %v", deleted, err)
	}

	// Held by a finalizer, 0 leaves it marked with 0, for the finalizer's
	// removal to delete it.
	held := newWidget("ns", "held")
	held.Finalizers = []string{"example.com/x"}
	f.create(t, held)
	if _, _, err := f.r.Delete(ctx, "ns", "held", DeleteOptions{Graceful: true, GracePeriodSeconds: grace(5)}); err != nil {
		t.Fatal(err)
	}
	out, deleted, err := f.r.Delete(ctx, "ns", "held", DeleteOptions{Graceful: true, GracePeriodSeconds: grace(0)})
	if err != nil || deleted || *out.DeletionGracePeriodSeconds != 0 || !out.DeletionTimestamp.Equal(epoch) {
		t.Fatalf("held: %s, %v, %v", mustJSON(out), deleted, err)
	}
	out.Finalizers = nil
	if _, err := f.r.Update(ctx, out, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.r.Get(ctx, "ns", "held", rv.Read{Semantics: rv.MostRecent}); !status.IsNotFound(err) {
		t.Errorf("held object after its finalizer went: %v", err)
	}
}
