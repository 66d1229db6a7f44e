package server

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apisem/apisem/store"
)

// stuckSync is a backend whose Sync waits until its context ends, as a
// replica of a storage that is down (Syncer).
type stuckSync struct{ store.Backend[Object] }

func (stuckSync) Sync(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

type stuckStorage struct{ memStorage }

func (s stuckStorage) Backend(res *Resource, ro store.ResourceOptions[Object]) (store.Backend[Object], error) {
	b, err := s.memStorage.Backend(res, ro)
	return stuckSync{b}, err
}

// A watch with resourceVersion unset waits for its replica to catch up
// with the source (Syncer) only as long as its timeoutSeconds: then it
// answers kube-apiserver's 504 of a request past its deadline.
func TestWatchSyncWithinTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := New(Options{Resources: testResources(), Storage: func(so store.Options[Object]) (Storage, error) {
			return stuckStorage{memStorage{store.New(so)}}, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Shutdown(context.Background())
		start := time.Now()
		w := get(s, "/apis/test.apisem.dev/v1/namespaces/ns/gadgets?watch=1&timeoutSeconds=3")
		if took := time.Since(start); took != 3*time.Second {
			t.Errorf("the watch answered after %v; want its timeoutSeconds, 3s", took)
		}
		if w.Code != 504 || !strings.Contains(w.Body.String(), `"message":"Timeout: request did not complete within the allotted timeout"`) {
			t.Errorf("watch: %d %s", w.Code, w.Body)
		}
	})
}
