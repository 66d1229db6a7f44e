package etcdstore

import (
	"context"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// retryWait is how long the replica waits before it lists again after a
// failed list or watch; progressEvery how often a consistent read asks
// etcd for a progress notification while it waits for the replica.
const (
	retryWait     = 200 * time.Millisecond
	progressEvery = 50 * time.Millisecond
)

// reflect keeps the replica at etcd's revisions until ctx ends: a list,
// then a watch from the list's revision; a failed or compacted watch
// starts over with a list.
func (r *Resource[T]) reflect(ctx context.Context) {
	defer close(r.done)
	for ctx.Err() == nil {
		r.run(ctx)
		t := time.NewTimer(retryWait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// run lists, then follows the watch until it fails.
func (r *Resource[T]) run(ctx context.Context) {
	var resp *clientv3.GetResponse
	if err := r.call(ctx, func(ctx context.Context) (err error) {
		resp, err = r.client.Get(ctx, r.watchKey, clientv3.WithPrefix())
		return err
	}); err != nil {
		return
	}
	rev := resp.Header.Revision
	if cur := int64(r.replica.Revision()); rev > cur || cur == 0 {
		objs := make([]store.Change[T], 0, len(resp.Kvs))
		for _, kv := range resp.Kvs {
			obj, err := r.decode(kv.Value, kv.ModRevision)
			if err != nil {
				continue // an undecodable value is left out, as a watch cache does
			}
			objs = append(objs, store.Change[T]{Key: string(kv.Key[len(r.base):]), Object: obj, Revision: rv.Version(kv.ModRevision)})
		}
		if err := r.replica.Reset(rv.Version(rev), objs); err != nil {
			return
		}
	} else {
		rev = cur // nothing changed since the replica's revision
	}
	select {
	case <-r.ready:
	default:
		close(r.ready)
	}

	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	r.watchMu.Lock()
	r.watchCx = wctx
	r.watchMu.Unlock()
	events := r.client.Watch(wctx, r.watchKey, clientv3.WithPrefix(), clientv3.WithRev(rev+1), clientv3.WithProgressNotify())
	compactions := r.client.Watch(wctx, r.compact, clientv3.WithRev(rev+1))
	var pending uint64 // a compaction revision the replica has not reached yet
	for {
		select {
		case w, ok := <-events:
			if !ok || w.Canceled || w.Err() != nil {
				return // compacted (relist) or failed (list again)
			}
			if err := r.apply(w); err != nil {
				return
			}
		case w, ok := <-compactions:
			if !ok || w.Canceled || w.Err() != nil {
				return
			}
			for _, ev := range w.Events {
				if c, err := strconv.ParseUint(string(ev.Kv.Value), 10, 64); err == nil && ev.Type == clientv3.EventTypePut {
					pending = max(pending, c)
				}
			}
			// The replica may not have reached the compaction revision
			// (it may be a revision of other prefixes): ask for progress.
			r.client.RequestProgress(wctx)
		}
		if pending > 0 && uint64(r.replica.Revision()) >= pending {
			r.replica.Compact(rv.Version(pending))
			pending = 0
		}
	}
}

// apply applies one watch response: its events, one Apply per revision,
// or a progress notification.
func (r *Resource[T]) apply(w clientv3.WatchResponse) error {
	if w.IsProgressNotify() {
		if rev := rv.Version(w.Header.Revision); rev > r.replica.Revision() {
			return r.replica.Apply(rev)
		}
		return nil
	}
	var changes []store.Change[T]
	for i, ev := range w.Events {
		c := store.Change[T]{Key: string(ev.Kv.Key[len(r.base):]), Deleted: ev.Type == clientv3.EventTypeDelete}
		if !c.Deleted {
			obj, err := r.decode(ev.Kv.Value, ev.Kv.ModRevision)
			if err != nil {
				return err
			}
			c.Object = obj
		}
		changes = append(changes, c)
		if i == len(w.Events)-1 || w.Events[i+1].Kv.ModRevision != ev.Kv.ModRevision {
			if err := r.replica.Apply(rv.Version(ev.Kv.ModRevision), changes...); err != nil {
				return err
			}
			changes = changes[:0]
		}
	}
	return nil
}

// waitReady waits for the replica's first list, for at most the request
// timeout: 503 if it has none by then.
func (r *Resource[T]) waitReady(ctx context.Context) error {
	select {
	case <-r.ready:
		return nil
	default:
	}
	t := time.NewTimer(r.timeout)
	defer t.Stop()
	select {
	case <-r.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return status.NewServiceUnavailable("the replica of " + r.gr.String() + " has not loaded from etcd yet")
	}
}

// catchUp waits until the replica has reached revision rev, asking etcd
// for progress notifications meanwhile, for at most the request timeout.
func (r *Resource[T]) catchUp(ctx context.Context, rev rv.Version) error {
	if r.replica.Revision() >= rev {
		return nil
	}
	deadline := time.NewTimer(r.timeout)
	defer deadline.Stop()
	for {
		cur := r.replica.Revision()
		if cur >= rev {
			return nil
		}
		r.watchMu.Lock()
		wctx := r.watchCx
		r.watchMu.Unlock()
		if wctx != nil {
			r.client.RequestProgress(wctx)
		}
		tick := time.NewTimer(progressEvery)
		select {
		case <-r.replica.Changed(cur):
		case <-tick.C:
		case <-deadline.C:
			tick.Stop()
			return status.NewTimeout("the replica of "+r.gr.String()+" did not catch up with etcd in time", 1)
		case <-ctx.Done():
			tick.Stop()
			return ctx.Err()
		}
		tick.Stop()
	}
}

// prepareRead makes the replica ready for read: for a consistent read
// (resourceVersion unset), it first reaches etcd's current revision, read
// from etcd (KEP-2340's consistent reads from cache); for a read of a
// revision it has not reached, it asks for progress so that a revision of
// other prefixes is reached too.
func (r *Resource[T]) prepareRead(ctx context.Context, read rv.Read) error {
	if err := r.waitReady(ctx); err != nil {
		return err
	}
	switch read.Semantics {
	case rv.MostRecent:
		var resp *clientv3.GetResponse
		if err := r.call(ctx, func(ctx context.Context) (err error) {
			resp, err = r.client.Get(ctx, r.compact)
			return err
		}); err != nil {
			return err
		}
		return r.catchUp(ctx, rv.Version(resp.Header.Revision))
	case rv.NotOlderThan, rv.Exact:
		if read.Version > r.replica.Revision() {
			r.watchMu.Lock()
			wctx := r.watchCx
			r.watchMu.Unlock()
			if wctx != nil {
				r.client.RequestProgress(wctx)
			}
		}
	}
	return nil
}

// Get returns a copy of an object from the replica (see
// store.Resource.Get).
func (r *Resource[T]) Get(ctx context.Context, namespace, name string, read rv.Read) (T, error) {
	if err := r.prepareRead(ctx, read); err != nil {
		var zero T
		return zero, err
	}
	return r.res.Get(ctx, namespace, name, read)
}

// View is Get without the copy (see store.Resource.View).
func (r *Resource[T]) View(ctx context.Context, namespace, name string, read rv.Read) (T, error) {
	if err := r.prepareRead(ctx, read); err != nil {
		var zero T
		return zero, err
	}
	return r.res.View(ctx, namespace, name, read)
}

// List returns a page of a collection from the replica (see
// store.Resource.List).
func (r *Resource[T]) List(ctx context.Context, namespace string, opts store.ListOptions) (*store.Page[T], error) {
	if err := r.prepareRead(ctx, opts.Read); err != nil {
		return nil, err
	}
	return r.res.List(ctx, namespace, opts)
}

// Compact compacts etcd's history up to rev and records rev where every
// replica under prefix ("" means "/registry") sees it and compacts to it
// too: afterwards reads and watches older than rev answer 410 Gone.
// Kubernetes' compactor records it the same way; RunCompactor calls
// Compact on an interval.
func Compact(ctx context.Context, client *clientv3.Client, prefix string, rev int64) error {
	if prefix == "" {
		prefix = defaultPrefix
	}
	key := prefix + compactKey
	if _, err := client.Put(ctx, key, strconv.FormatInt(rev, 10)); err != nil {
		return err
	}
	_, err := client.Compact(ctx, rev)
	return err
}

// RunCompactor compacts etcd every interval (0 means 5 minutes, as
// Kubernetes does) to the revision it had one interval before, until ctx
// ends. Several servers may run it; compacting an already compacted
// revision is harmless.
func RunCompactor(ctx context.Context, client *clientv3.Client, prefix string, interval time.Duration) {
	if interval == 0 {
		interval = 5 * time.Minute
	}
	if prefix == "" {
		prefix = defaultPrefix
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	var last int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		resp, err := client.Get(ctx, prefix+compactKey)
		if err != nil {
			continue
		}
		if last > 0 {
			_ = Compact(ctx, client, prefix, last)
		}
		last = resp.Header.Revision
	}
}
