package watch_test

import (
	"context"
	"fmt"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch"
	"github.com/apisem/apisem/watch/watchtest"
)

// A streaming list (sendInitialEvents=true&allowWatchBookmarks=true): the
// state as ADDED events, the bookmark client-go waits for, then changes.
func Example() {
	src := watchtest.NewObjectSource()
	src.Put("a", watchtest.NewObject("a", "one"))
	src.Put("b", watchtest.NewObject("b", "two"))

	b := watch.NewBroadcaster(src, watchtest.Funcs(), watch.Options{})
	defer b.Close()

	w := b.Watch(context.Background(), rv.Watch{
		Start: rv.StartMostRecent, InitialEvents: true, EndBookmark: true, Bookmarks: true,
	}, nil)
	defer w.Stop()

	src.Put("a", watchtest.NewObject("a", "uno"))
	src.Delete("b")

	enc := &watchtest.JSONEncoder[*watchtest.Object]{}
	for range 5 {
		m, _ := w.Next()
		frame, _ := m.Encoded(enc)
		fmt.Print(string(frame))
	}
	// Output:
	// {"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"},"value":"one"}}
	// {"type":"ADDED","object":{"metadata":{"name":"b","resourceVersion":"2"},"value":"two"}}
	// {"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"2","annotations":{"k8s.io/initial-events-end":"true"}}}}
	// {"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"3"},"value":"uno"}}
	// {"type":"DELETED","object":{"metadata":{"name":"b","resourceVersion":"4"},"value":"two"}}
}
