package watch_test

import (
	"context"
	"fmt"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch"
	"github.com/apisem/apisem/watch/watchtest"
)

// A watch of one object: its filter wants the object named b, whose key
// is "b", so WatchKeys tells the Broadcaster so. A Source that is a
// RangeSource (package store's) then reads that key alone for the
// initial event; any other is read whole and filtered, with the same
// events.
func ExampleBroadcaster_WatchKeys() {
	src := watchtest.NewObjectSource()
	src.Put("a", watchtest.NewObject("a", "one"))
	src.Put("b", watchtest.NewObject("b", "two"))

	b := watch.NewBroadcaster(src, watchtest.Funcs(), watch.Options{})
	defer b.Close()

	named := func(o *watchtest.Object) bool { return o.Metadata.Name == "b" }
	w := b.WatchKeys(context.Background(), rv.Watch{Start: rv.StartMostRecent, InitialEvents: true},
		named, watch.KeyRange{Start: "b", End: "b\x00"})
	defer w.Stop()

	src.Put("a", watchtest.NewObject("a", "uno"))
	src.Put("b", watchtest.NewObject("b", "dos"))

	enc := &watchtest.JSONEncoder[*watchtest.Object]{}
	for range 2 {
		m, _ := w.Next()
		frame, _ := m.Encoded(enc)
		fmt.Print(string(frame))
	}
	// Output:
	// {"type":"ADDED","object":{"metadata":{"name":"b","resourceVersion":"2"},"value":"two"}}
	// {"type":"MODIFIED","object":{"metadata":{"name":"b","resourceVersion":"4"},"value":"dos"}}
}
