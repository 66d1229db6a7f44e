package watch_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch"
	"github.com/apisem/apisem/watch/watchtest"
)

// Every goroutine has an owner: watchers in every state — live, parked,
// reading initial events, waiting for a NotOlderThan revision, blocked in
// Next — are released by their context, Stop, timeout or Close. synctest.Test
// fails if any goroutine of the bubble is left.
func TestNoLeaks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := watchtest.NewObjectSource()
		for i := range 10 {
			src.Put(fmt.Sprint("o", i), watchtest.NewObject(fmt.Sprint("o", i), "1"))
		}
		b := watch.NewBroadcaster(src, watchtest.Funcs(), watch.Options{Buffer: 2, RecentEvents: 4})
		ctx, cancel := context.WithCancel(context.Background())
		var ws []*watch.Watcher[*obj]
		start := func(d rv.Watch) *watch.Watcher[*obj] {
			w := b.Watch(ctx, d, nil)
			ws = append(ws, w)
			return w
		}
		live := start(rv.Watch{Start: rv.StartMostRecent, Bookmarks: true})
		parked := start(exact(0))
		initial := start(rv.Watch{Start: rv.StartAny, InitialEvents: true, EndBookmark: true, Bookmarks: true})
		short := start(rv.Watch{Start: rv.StartMostRecent, Timeout: time.Second})
		go start(rv.Watch{Start: rv.StartNotOlderThan, Version: 100, InitialEvents: true})
		// A consumer blocked in Next.
		blocked := make(chan bool)
		go func() {
			_, ok := live.Next()
			blocked <- ok
		}()
		for i := range 10 {
			src.Put(fmt.Sprint("o", i), watchtest.NewObject(fmt.Sprint("o", i), "2"))
		}
		watchtest.Next(t, initial)
		synctest.Wait()
		if s := b.Stats(); s.Watchers != 5 || s.Parks == 0 {
			t.Errorf("Stats() = %+v, want 5 watchers and a parked one", s)
		}
		<-blocked
		time.Sleep(2 * time.Second) // short times out
		watchtest.ExpectEnd(t, short)
		parked.Stop()
		cancel() // live, initial and the NotOlderThan wait
		synctest.Wait()
		if s := b.Stats(); s.Watchers != 0 || s.Live != 0 {
			t.Errorf("Stats() after cancel = %+v, want no watchers", s)
		}
		for _, w := range ws {
			watchtest.ExpectEnd(t, w)
		}
		b.Close()
	})
}

// Close releases watchers nobody stops, and the broadcaster's goroutine;
// no goroutine outlives it (outside a bubble, counted by the runtime).
func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	src := watchtest.NewObjectSource()
	b := watch.NewBroadcaster(src, watchtest.Funcs(), watch.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	for i := range 100 {
		w := b.Watch(ctx, rv.Watch{Start: rv.StartMostRecent, Bookmarks: true}, nil)
		if i%2 == 0 {
			go func() {
				for {
					if _, ok := w.Next(); !ok {
						done <- struct{}{}
						return
					}
				}
			}()
		}
	}
	src.Put("a", watchtest.NewObject("a", "1"))
	b.Close()
	for range 50 {
		<-done
	}
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}
