package storetest_test

import (
	"context"
	"fmt"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/store/storetest"
)

// The harness of the in-memory store, as its own contract test builds
// it: a fresh store per check, with its whole history kept.
func ExampleHarness() {
	s := store.New(store.Options[*storetest.Widget]{HistoryWindow: -1})
	defer s.Close()
	h := storetest.Harness{
		Backend: s.Resource(storetest.Resource()),
		Compact: func(rev rv.Version) { s.Compact(rev) },
	}
	w, err := h.Backend.Create(context.Background(), storetest.NewWidget("ns", "a"), store.CreateOptions{})
	fmt.Println(w.Name, w.ResourceVersion, err)
	// Output: a 1 <nil>
}
