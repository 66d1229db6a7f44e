package store_test

import (
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/store/storetest"
)

// The in-memory Resource keeps the Backend contract (package storetest),
// which other backends, such as etcdstore's, check against too.
func TestBackendContract(t *testing.T) {
	storetest.CheckBackend(t, func(t *testing.T) storetest.Harness {
		s := store.New(store.Options[*storetest.Widget]{HistoryWindow: -1})
		t.Cleanup(s.Close)
		return storetest.Harness{Backend: s.Resource(storetest.Resource()), Compact: func(rev rv.Version) { s.Compact(rev) }}
	})
}
