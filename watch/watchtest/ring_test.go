package watchtest_test

import (
	"errors"
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch"
	"github.com/apisem/apisem/watch/watchtest"
)

func TestRing(t *testing.T) {
	obj := watchtest.NewObject("a", "1")
	s := watchtest.NewRing(obj, 4) // keeps the last 3 events
	var _ watch.Source[*watchtest.Object] = s

	ch := s.Changed(0)
	select {
	case <-ch:
		t.Fatal("Changed(0) closed before any write")
	default:
	}
	for range 5 {
		s.Put()
	}
	<-ch // closed by the first Put
	if s.Revision() != 5 {
		t.Fatalf("Revision = %d; want 5", s.Revision())
	}
	evs, err := s.Events(nil, 2, 10)
	if err != nil || len(evs) != 3 || evs[0].Revision != 3 || evs[2].Revision != 5 || evs[0].Type != watch.Modified || evs[0].Object != obj {
		t.Fatalf("Events(2) = %+v, %v; want revisions 3..5", evs, err)
	}
	if evs, _ := s.Events(nil, 2, 1); len(evs) != 1 {
		t.Errorf("Events with max 1 returned %d events", len(evs))
	}
	var ce *rv.CompactedError
	if _, err := s.Events(nil, 1, 10); !errors.As(err, &ce) || ce.Compacted != 2 {
		t.Errorf("Events(1) err = %v; want compacted at 2", err)
	}
	var keys []string
	if err := s.Snapshot(5, func(k string, _ *watchtest.Object) bool { keys = append(keys, k); return true }); err != nil || len(keys) != 1 {
		t.Errorf("Snapshot(5) = %v, %v; want the one object", keys, err)
	}
	if err := s.Snapshot(6, func(string, *watchtest.Object) bool { return true }); !errors.Is(err, rv.ErrFutureRevision) {
		t.Errorf("Snapshot(6) err = %v; want ErrFutureRevision", err)
	}
	if err := s.Snapshot(1, func(string, *watchtest.Object) bool { return true }); !errors.As(err, &ce) {
		t.Errorf("Snapshot(1) err = %v; want compacted", err)
	}
	if n := testing.AllocsPerRun(100, func() { s.Put() }); n != 0 {
		t.Errorf("Put allocates %v times; want 0", n)
	}
}
