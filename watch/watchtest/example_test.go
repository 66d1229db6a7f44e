package watchtest_test

import (
	"errors"
	"fmt"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/watch/watchtest"
)

// A Source records every write as an event until it is compacted; then
// reading from before the compaction revision is the error a watch turns
// into its 410.
func ExampleSource() {
	src := watchtest.NewObjectSource()
	src.Put("a", watchtest.NewObject("a", "1"))
	src.Put("b", watchtest.NewObject("b", "1"))
	src.Put("a", watchtest.NewObject("a", "2"))
	src.Delete("b")

	evs, _ := src.Events(nil, 1, 10)
	for _, ev := range evs {
		fmt.Println(ev.Type, ev.Key, ev.Revision, ev.Object.Value)
	}

	src.Compact(3)
	_, err := src.Events(nil, 1, 10)
	var ce *rv.CompactedError
	fmt.Println(errors.As(err, &ce), ce.Compacted, errors.Is(err, rv.ErrCompacted))
	// Output:
	// ADDED b 2 1
	// MODIFIED a 3 2
	// DELETED b 4 1
	// true 3 true
}
