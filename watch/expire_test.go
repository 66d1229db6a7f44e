package watch_test

import (
	"testing"
	"testing/synctest"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch"
	"github.com/apisem/apisem/watch/watchtest"
)

// Expire ends the open watches, idle or with events pending, with 410
// Gone; a watch started after it is not affected.
func TestExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := watchtest.NewObjectSource()
		b := watchtest.NewBroadcaster(t, src, watchtest.Funcs(), watch.Options{})
		idle := watchtest.Watch(t, b, rv.Watch{Start: rv.StartMostRecent}, nil)
		busy := watchtest.Watch(t, b, rv.Watch{Start: rv.StartMostRecent}, nil)
		r1 := src.Put("a", watchtest.NewObject("a", "1"))
		watchtest.Expect(t, idle, added("a", r1))
		src.Put("a", watchtest.NewObject("a", "2")) // pending for both
		synctest.Wait()
		b.Expire()
		for _, w := range []*watch.Watcher[*watchtest.Object]{idle, busy} {
			err := watchtest.ExpectError(t, w, status.ReasonExpired)
			if err.Code() != 410 || !status.IsExpired(err) {
				t.Errorf("error %v: code %d; want 410 Expired", err, err.Code())
			}
			watchtest.ExpectEnd(t, w)
		}
		after := watchtest.Watch(t, b, rv.Watch{Start: rv.StartMostRecent}, nil)
		r3 := src.Put("a", watchtest.NewObject("a", "3"))
		watchtest.Expect(t, after, modified("a", r3))
		if s := b.Stats(); s.Expired != 2 {
			t.Errorf("Stats().Expired = %d, want 2", s.Expired)
		}
	})
}
