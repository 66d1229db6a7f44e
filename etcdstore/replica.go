package etcdstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/metadata"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/tracing"
)

// retryWait is how long the replica waits before it lists again after a
// failed list or watch; progressEvery how often a consistent read asks
// etcd for a progress notification while it waits for the replica.
const (
	retryWait     = 200 * time.Millisecond
	progressEvery = 50 * time.Millisecond
)

// watchStreamKey is the gRPC metadata key that gives a replica's etcd
// watch a stream of its own (see run).
const watchStreamKey = "apisem-watch-stream"

// Replica is the in-memory replica of resources stored in etcd under one
// prefix: one store.Store, fed by one etcd watch on the whole prefix, so
// that its resources share one revision space, etcd's, as those of one
// in-memory Store do (a controller can wait on the Store's Changed for a
// write to any of them). Keys under the prefix that belong to none of its
// resources only advance its revision. Create it with NewReplica, add the
// resources with Resource, then Start it; stop it with Close.
type Replica[T meta.Object] struct {
	client   *clientv3.Client
	timeout  time.Duration
	prefix   string // Options.Prefix, without a trailing "/"
	watchKey string // prefix + "/"
	compact  string // the etcd key of the compaction revision
	store    *store.Store[T]
	sopts    store.Options[T] // the replica's, for a one-off store of a read from etcd
	copy     func(T) T
	metrics  Metrics        // Options.Metrics
	tracer   tracing.Tracer // Options.Tracer

	mu      sync.Mutex
	byColl  map[string]*Resource[T] // by etcd path: EtcdPrefix, "<group>/<resource>" or "<resource>"; fixed once started
	started bool

	cancel  context.CancelFunc
	ctx     context.Context
	done    chan struct{} // closed when the reflector has returned
	ready   chan struct{} // closed once the replica has its first list
	watchMu sync.Mutex
	watchCx context.Context // the context of the running etcd watch (for RequestProgress)
	runs    int             // the runs of reflect so far, which name their watch streams
	stale   bool            // the replica reached its revision without all its events (see run)
	moved   bool            // moveFormer has moved the objects of former keys

	// recent holds the revisions of this process's last updates and
	// deletes of keys (etcd keys) the replica may not have applied yet: a
	// write of such a key starts from etcd's value, not from the replica's,
	// which would fail the transaction (see Resource.initial).
	recentMu sync.Mutex
	recent   map[string]int64

	readMu sync.Mutex
	reads  map[string]*readRound // by etcd key: the last round of consistent GETs of it (see readKey)
}

// maxRecent is the size past which noteWrite drops the writes the
// replica has applied.
const maxRecent = 256

// noteWrite records that key was written at rev.
func (p *Replica[T]) noteWrite(key string, rev int64) {
	p.recentMu.Lock()
	defer p.recentMu.Unlock()
	if p.recent == nil {
		p.recent = map[string]int64{}
	}
	if len(p.recent) >= maxRecent {
		applied := int64(p.store.Revision())
		for k, r := range p.recent {
			if r <= applied {
				delete(p.recent, k)
			}
		}
	}
	p.recent[key] = max(p.recent[key], rev)
}

// behind reports whether the replica has yet to apply a write of key
// this process made after revision mod.
func (p *Replica[T]) behind(key string, mod int64) bool {
	p.recentMu.Lock()
	defer p.recentMu.Unlock()
	rev, ok := p.recent[key]
	if ok && rev <= int64(p.store.Revision()) {
		delete(p.recent, key)
	}
	return ok && rev > mod
}

// A readRound is one etcd read of a key that serves every consistent GET
// of the key that began before it was sent (see readKey).
type readRound struct {
	done chan struct{} // closed once resp, err and abandoned are set
	sent bool          // guarded by Replica.readMu
	resp *clientv3.GetResponse
	err  error
	// abandoned: the read that sends the round gave up (its context
	// ended); the others read again.
	abandoned bool
}

// readKey reads key from etcd for a consistent GET: the response is that
// of a request sent after the call began, so the read is linearizable.
// Concurrent reads of one key share requests, as etcd's linearizable
// reads share a read index: while a request is in flight, the reads that
// begin wait for it to end and then share the next one, which the first
// of them sends. The creates in one namespace all read it so (its
// admission), which costs etcd one read per round instead of one per
// create. Each read waits for at most its own context.
func (p *Replica[T]) readKey(ctx context.Context, gr status.GroupResource, key string) (*clientv3.GetResponse, error) {
	for {
		p.readMu.Lock()
		rd := p.reads[key]
		if rd == nil || rd.sent {
			prev := rd
			rd = &readRound{done: make(chan struct{})}
			if p.reads == nil {
				p.reads = map[string]*readRound{}
			}
			p.reads[key] = rd
			p.readMu.Unlock()
			return p.sendRound(ctx, gr, key, rd, prev)
		}
		p.readMu.Unlock()
		select {
		case <-rd.done:
			if !rd.abandoned {
				return rd.resp, rd.err
			}
		case <-ctx.Done():
			return nil, etcdErr(ctx.Err(), errReadTimeout)
		}
	}
}

// sendRound sends the request of round rd once the round before it, prev
// (nil if none), has ended, and publishes its response.
func (p *Replica[T]) sendRound(ctx context.Context, gr status.GroupResource, key string, rd, prev *readRound) (*clientv3.GetResponse, error) {
	defer func() {
		p.readMu.Lock()
		if p.reads[key] == rd {
			delete(p.reads, key)
		}
		p.readMu.Unlock()
		close(rd.done)
	}()
	if prev != nil {
		select {
		case <-prev.done:
		case <-ctx.Done():
			rd.abandoned = true
			return nil, etcdErr(ctx.Err(), errReadTimeout)
		}
	}
	p.readMu.Lock()
	rd.sent = true
	p.readMu.Unlock()
	rd.err = p.call(ctx, rpcRange, key, func(ctx context.Context) (err error) {
		start := time.Now()
		rd.resp, err = p.client.Get(ctx, key)
		p.observe("get", gr, start, err)
		return err
	})
	// An error of this read's own deadline is not the others'.
	rd.abandoned = rd.err != nil && ctx.Err() != nil
	return rd.resp, rd.err
}

// errClosed answers the reads that need a replica that was closed.
var errClosed = status.NewServiceUnavailable("the replica of etcd is stopped")

// ErrStarted is the error of Replica.Resource after Start: the replica
// has listed its resources already.
var ErrStarted = errors.New("etcdstore: a resource added to a replica that has started")

// NewReplica returns a replica of the resources under opts.Prefix, empty
// and not started. opts.Codec is ignored: each resource has its own.
func NewReplica[T meta.Object](opts Options[T]) (*Replica[T], error) {
	if opts.Client == nil {
		return nil, errors.New("etcdstore: Options.Client is nil")
	}
	prefix := opts.Prefix
	if prefix == "" {
		prefix = defaultPrefix
	}
	prefix = strings.TrimSuffix(prefix, "/")
	// The replica's errors name the etcd keys below this prefix (with its
	// "/", so that the prefix "/" names keys below the root).
	opts.Replica.StoragePrefix = prefix + "/"
	p := &Replica[T]{
		client:   opts.Client,
		timeout:  opts.RequestTimeout,
		prefix:   prefix,
		watchKey: prefix + "/",
		compact:  prefix + compactKey,
		store:    store.New(opts.Replica),
		sopts:    opts.Replica,
		copy:     opts.Replica.DeepCopy,
		metrics:  opts.Metrics,
		tracer:   opts.Tracer,
		byColl:   map[string]*Resource[T]{},
		done:     make(chan struct{}),
		ready:    make(chan struct{}),
	}
	if p.timeout == 0 {
		p.timeout = defaultTimeout
	}
	if p.copy == nil { // store.New checked that T has the method
		p.copy = func(o T) T { return any(o).(interface{ DeepCopy() T }).DeepCopy() }
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p, nil
}

// Resource adds the resource described by ro, its values encoded by codec
// (nil means JSON), to a replica that has not started (else ErrStarted).
// Its etcd keys are <prefix>/<path>/[<namespace>/]<name>, path being
// ro.EtcdPrefix or else [<group>/]<resource>; in the replica, its keys
// are under ro.Prefix ("" means the group resource, as in a
// store.Store). Where ro.EtcdPrefix names another path than the group
// and resource, the replica moves the objects it finds under the latter
// (where apisem kept them before it had EtcdPrefix) to the former
// before its first list (see moveFormer).
//
// A resource whose ro.Prefix is another group resource's
// ("<resource>.<group>", or "<resource>" in the core group) is another
// version of that one's objects, as kube-apiserver keeps events.k8s.io
// Events with core Events: it has that one's etcd keys too. Resources
// of one group and resource name are versions of the same objects as
// well. The first resource added of such a collection decodes its
// values for the replica, so its codec must read the values every
// version writes; each writes with its own.
func (p *Replica[T]) Resource(ro store.ResourceOptions[T], codec Codec[T]) (*Resource[T], error) {
	gr := ro.GroupResource
	if gr.Resource == "" || strings.Contains(gr.Resource, "/") || strings.Contains(gr.Group, "/") {
		return nil, fmt.Errorf("etcdstore: bad resource name %q", gr)
	}
	if ro.Prefix == "" {
		ro.Prefix = gr.String()
	}
	coll := store.EtcdPath(ro.Prefix)
	var former string // where the objects were before ro.EtcdPrefix moved them
	if ro.EtcdPrefix != "" && ro.EtcdPrefix != coll {
		if !validEtcdPrefix(ro.EtcdPrefix) {
			return nil, fmt.Errorf("etcdstore: bad EtcdPrefix %q of %s", ro.EtcdPrefix, gr)
		}
		former, coll = coll, ro.EtcdPrefix
	}
	if codec == nil {
		codec = JSON[T]{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch first := p.byColl[coll]; {
	case p.started:
		return nil, ErrStarted
	case first != nil && first.skey == ro.Prefix:
		// Another version of first's objects: the same keys, written
		// with its own codec; first decodes them for the replica.
		return &Resource[T]{p: p, codec: codec, gr: gr, coll: first.coll, skey: ro.Prefix, ro: ro, res: p.store.Resource(ro), alias: true}, nil
	case first != nil:
		return nil, fmt.Errorf("etcdstore: resource %s added twice", gr)
	}
	for c, o := range p.byColl {
		if o.skey == ro.Prefix {
			return nil, fmt.Errorf("etcdstore: resources %s and %s share the key prefix %q", o.gr, gr, ro.Prefix)
		}
		if first, _, _ := strings.Cut(c, "/"); first == coll || strings.HasPrefix(coll, c+"/") {
			// The keys of one would be read as the other's.
			return nil, fmt.Errorf("etcdstore: the etcd keys of %s (%s/) and %s (%s/) overlap", o.gr, c, gr, coll)
		}
	}
	r := &Resource[T]{p: p, codec: codec, gr: gr, coll: p.watchKey + coll, skey: ro.Prefix, ro: ro}
	if former != "" {
		r.former = p.watchKey + former
	}
	r.res = p.store.Resource(ro)
	p.byColl[coll] = r
	return r, nil
}

// Start starts the replica: a list of its resources, then a watch. Reads
// wait for the first list. Starting again does nothing.
func (p *Replica[T]) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || p.ctx.Err() != nil {
		return
	}
	p.started = true
	go p.reflect(p.ctx)
}

// Close stops the replica. Reads that need it to catch up with etcd fail
// with 503 afterwards; the client stays open.
func (p *Replica[T]) Close() {
	p.mu.Lock()
	started := p.started
	p.started = true // no Start after Close
	p.mu.Unlock()
	p.cancel()
	if started {
		<-p.done
	}
	p.store.Close() // its history expiry timer
}

// Store returns the replica's store: read it, never write it.
func (p *Replica[T]) Store() *store.Store[T] { return p.store }

// Compact compacts etcd's history up to its current revision (see the
// function Compact) and waits, for at most the request timeout, until the
// replica has compacted too: older reads and watches of every replica on
// the prefix answer 410 Gone. It returns the compaction revision.
func (p *Replica[T]) Compact(ctx context.Context) (rv.Version, error) {
	var resp *clientv3.GetResponse
	if err := p.call(ctx, rpcRange, p.compact, func(ctx context.Context) (err error) {
		resp, err = p.client.Get(ctx, p.compact)
		return err
	}); err != nil {
		return 0, err
	}
	return p.compactAt(ctx, rv.Version(resp.Header.Revision))
}

// compactAt compacts etcd's history at rev and waits, for at most the
// request timeout, until the replica has compacted too.
func (p *Replica[T]) compactAt(ctx context.Context, rev rv.Version) (rv.Version, error) {
	if err := p.call(ctx, rpcCompact, p.compact, func(ctx context.Context) error { return Compact(ctx, p.client, p.prefix, int64(rev)) }); err != nil {
		return 0, err
	}
	deadline := time.NewTimer(p.timeout)
	defer deadline.Stop()
	for p.store.CompactedRevision() < rev {
		p.requestProgress()
		tick := time.NewTimer(progressEvery)
		select {
		case <-p.store.Changed(p.store.Revision()):
		case <-tick.C:
		case <-p.ctx.Done():
			tick.Stop()
			return 0, errClosed
		case <-deadline.C:
			tick.Stop()
			return 0, status.NewTimeout("the replica did not follow etcd's compaction in time", 1)
		case <-ctx.Done():
			tick.Stop()
			return 0, ctx.Err()
		}
		tick.Stop()
	}
	return rev, nil
}

// call runs one etcd call of a read, method on key, under the request
// timeout (see Resource.call for a write's).
func (p *Replica[T]) call(ctx context.Context, method, key string, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	ctx, sp := p.startRPC(ctx, method, key)
	err := f(ctx)
	sp.endRPC(err)
	return etcdErr(err, errReadTimeout)
}

// observe reports an etcd request of gr, begun at start, to
// Options.Metrics.
func (p *Replica[T]) observe(op string, gr status.GroupResource, start time.Time, err error) {
	if p.metrics != nil {
		p.metrics.EtcdRequest(op, gr, time.Since(start), err)
	}
}

// lookup returns the resource of the etcd key key and its key in the
// replica; nil if the key is none of the replica's resources'.
func (p *Replica[T]) lookup(key string) (*Resource[T], string) {
	rest := key[len(p.watchKey):]
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return nil, ""
	}
	if j := strings.IndexByte(rest[i+1:], '/'); j >= 0 {
		if r := p.byColl[rest[:i+1+j]]; r != nil {
			return r, r.skey + rest[i+1+j:]
		}
	}
	if r := p.byColl[rest[:i]]; r != nil {
		return r, r.skey + rest[i:]
	}
	return nil, ""
}

// requestProgress asks the running etcd watch for a progress
// notification, which brings the replica to etcd's revision.
func (p *Replica[T]) requestProgress() {
	p.watchMu.Lock()
	wctx := p.watchCx
	p.watchMu.Unlock()
	if wctx != nil {
		p.client.RequestProgress(wctx)
	}
}

// reflect keeps the replica at etcd's revisions until ctx ends: a list,
// then a watch from the list's revision; a failed or compacted watch
// starts over with a list.
func (p *Replica[T]) reflect(ctx context.Context) {
	defer close(p.done)
	for ctx.Err() == nil {
		p.run(ctx)
		t := time.NewTimer(retryWait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// list reads every resource of the replica from etcd at one revision,
// and the last compaction revision Compact recorded (0 if none).
func (p *Replica[T]) list(ctx context.Context) (rev int64, compacted uint64, objs []store.Change[T], err error) {
	var resp *clientv3.GetResponse
	if err := p.call(ctx, rpcRange, p.compact, func(ctx context.Context) (err error) {
		resp, err = p.client.Get(ctx, p.compact)
		return err
	}); err != nil {
		return 0, 0, nil, err
	}
	rev = resp.Header.Revision
	if len(resp.Kvs) > 0 {
		compacted, _ = strconv.ParseUint(string(resp.Kvs[0].Value), 10, 64)
	}
	for _, r := range p.byColl {
		if err := p.call(ctx, rpcRange, r.coll+"/", func(ctx context.Context) (err error) {
			start := time.Now()
			resp, err = p.client.Get(ctx, r.coll+"/", clientv3.WithPrefix(), clientv3.WithRev(rev))
			p.observe("list", r.gr, start, err)
			return err
		}); err != nil {
			return 0, 0, nil, err
		}
		for _, kv := range resp.Kvs {
			r2, key := p.lookup(string(kv.Key))
			if r2 != r {
				continue // another resource's key (a group named as this resource)
			}
			obj, err := r.decode(kv.Value, kv.ModRevision)
			if err != nil {
				continue // an undecodable value is left out, as a watch cache does
			}
			objs = append(objs, store.Change[T]{Key: key, Object: obj, Revision: rv.Version(kv.ModRevision)})
		}
	}
	return rev, compacted, objs, nil
}

// run lists, then follows the watch until it fails.
func (p *Replica[T]) run(ctx context.Context) {
	if !p.moved {
		if err := p.moveFormer(ctx); err != nil {
			return
		}
		p.moved = true
	}
	rev, compacted, objs, err := p.list(ctx)
	if err != nil {
		return
	}
	if cur := int64(p.store.Revision()); rev > cur || cur == 0 {
		if err := p.store.Reset(rv.Version(rev), objs); err != nil {
			return
		}
		p.stale = false
	} else if p.stale {
		// The replica reached its revision without an event at or
		// before it; the store cannot start over at a revision it has
		// reached, so list again once etcd has moved on (the next write).
		return
	} else {
		rev = cur // nothing changed since the replica's revision
		// A compaction the last watch did not see is not lost: the
		// compactions watch below starts after it.
		if c := rv.Version(compacted); c > p.store.CompactedRevision() && c <= p.store.Revision() {
			p.store.Compact(c)
		}
	}
	select {
	case <-p.ready:
	default:
		close(p.ready)
	}

	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	// The events watch has a gRPC watch stream of its own: a client puts
	// every watch whose context carries the same metadata on one stream,
	// and a progress notification answers for the whole stream. Shared
	// with other watches (the compactions watch below, other replicas on
	// the same client, or a watch of this replica's previous run being
	// cancelled), a notification was seen to reach this watch before an
	// event at its revision, which left the replica at a revision without
	// the event. Alone on its stream, the watch gets its events and the
	// notifications in etcd's order.
	p.runs++
	stream := fmt.Sprintf("%p/%d", p, p.runs)
	ectx := metadata.AppendToOutgoingContext(wctx, watchStreamKey, stream)
	// The watch's span lasts as long as its stream, as otelgrpc's does.
	ectx, sp := p.startRPC(ectx, rpcWatch, p.watchKey)
	var werr error
	defer func() { sp.endRPC(werr) }()
	p.watchMu.Lock()
	p.watchCx = ectx
	p.watchMu.Unlock()
	events := p.client.Watch(ectx, p.watchKey, clientv3.WithPrefix(), clientv3.WithRev(rev+1), clientv3.WithProgressNotify())
	compactions := p.client.Watch(metadata.AppendToOutgoingContext(wctx, watchStreamKey, stream+"/compactions"), p.compact, clientv3.WithRev(rev+1))
	var pending uint64 // a compaction revision the replica has not reached yet
	for {
		select {
		case w, ok := <-events:
			if !ok || w.Canceled || w.Err() != nil {
				werr = w.Err()
				return // compacted (relist) or failed (list again)
			}
			if err := p.apply(w); err != nil {
				return
			}
		case w, ok := <-compactions:
			if !ok || w.Canceled || w.Err() != nil {
				return
			}
			if w.IsProgressNotify() {
				continue // the events watch's notifications are the ones used
			}
			for _, ev := range w.Events {
				if c, err := strconv.ParseUint(string(ev.Kv.Value), 10, 64); err == nil && ev.Type == clientv3.EventTypePut {
					pending = max(pending, c)
				}
			}
			// The replica may not have reached the compaction revision
			// (it may be a revision of other prefixes): ask for progress.
			if pending > uint64(p.store.Revision()) {
				p.client.RequestProgress(ectx)
			}
		}
		if pending > 0 && uint64(p.store.Revision()) >= pending {
			p.store.Compact(rv.Version(pending))
			pending = 0
		}
	}
}

// apply applies one watch response: its events, one Apply per revision
// (a revision without events of the replica's resources only advances
// it), or a progress notification.
func (p *Replica[T]) apply(w clientv3.WatchResponse) error {
	if w.IsProgressNotify() {
		if rev := rv.Version(w.Header.Revision); rev > p.store.Revision() {
			return p.store.Apply(rev)
		}
		return nil
	}
	var changes []store.Change[T]
	if len(w.Events) > 0 && rv.Version(w.Events[0].Kv.ModRevision) <= p.store.Revision() {
		// A progress notification outran this event: what the replica
		// serves at its revision lacks it. Start over (see run).
		p.stale = true
		return fmt.Errorf("etcdstore: an event at revision %d reached a replica at %d", w.Events[0].Kv.ModRevision, p.store.Revision())
	}
	for i, ev := range w.Events {
		if r, key := p.lookup(string(ev.Kv.Key)); r != nil {
			c := store.Change[T]{Key: key, Deleted: ev.Type == clientv3.EventTypeDelete}
			if !c.Deleted {
				obj, err := r.decode(ev.Kv.Value, ev.Kv.ModRevision)
				if err != nil {
					return err
				}
				c.Object = obj
			}
			changes = append(changes, c)
		}
		if i == len(w.Events)-1 || w.Events[i+1].Kv.ModRevision != ev.Kv.ModRevision {
			if err := p.store.Apply(rv.Version(ev.Kv.ModRevision), changes...); err != nil {
				return err
			}
			changes = changes[:0]
		}
	}
	return nil
}

// waitReady waits for the replica's first list, for at most the request
// timeout: 503 if it has none by then. what names the replica in the
// error.
func (p *Replica[T]) waitReady(ctx context.Context, what string) error {
	select {
	case <-p.ready:
		return nil
	default:
	}
	t := time.NewTimer(p.timeout)
	defer t.Stop()
	select {
	case <-p.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-p.ctx.Done():
		return errClosed
	case <-t.C:
		return status.NewServiceUnavailable("the replica of " + what + " has not loaded from etcd yet")
	}
}

// catchUp waits until the replica has reached revision rev, asking etcd
// for progress notifications meanwhile, for at most the request timeout.
func (p *Replica[T]) catchUp(ctx context.Context, rev rv.Version, what string) error {
	st := p.store
	if st.Revision() >= rev {
		return nil
	}
	deadline := time.NewTimer(p.timeout)
	defer deadline.Stop()
	for {
		cur := st.Revision()
		if cur >= rev {
			return nil
		}
		p.requestProgress()
		tick := time.NewTimer(progressEvery)
		select {
		case <-st.Changed(cur):
		case <-tick.C:
		case <-p.ctx.Done():
			tick.Stop()
			return errClosed
		case <-deadline.C:
			tick.Stop()
			return status.NewTimeout("the replica of "+what+" did not catch up with etcd in time", 1)
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
// other prefixes is reached too. Every wait ends with ctx: a request's
// deadline bounds it as much as the request timeout does.
func (p *Replica[T]) prepareRead(ctx context.Context, read rv.Read, what string) error {
	if err := p.waitReady(ctx, what); err != nil {
		return err
	}
	switch read.Semantics {
	case rv.MostRecent:
		var resp *clientv3.GetResponse
		if err := p.call(ctx, rpcRange, p.compact, func(ctx context.Context) (err error) {
			resp, err = p.client.Get(ctx, p.compact)
			return err
		}); err != nil {
			return err
		}
		return p.catchUp(ctx, rv.Version(resp.Header.Revision), what)
	case rv.NotOlderThan, rv.Exact:
		if read.Version > p.store.Revision() {
			p.requestProgress()
		}
	}
	return nil
}

// Sync waits until the replica has its first list and has reached etcd's
// current revision, for at most the request timeout and until ctx ends:
// what a consistent read waits for. A readiness check calls it: a replica
// that cannot, because etcd or the replica's watch is down, cannot serve
// consistent reads either.
func (p *Replica[T]) Sync(ctx context.Context) error {
	return p.prepareRead(ctx, rv.Read{Semantics: rv.MostRecent}, p.prefix)
}

func (r *Resource[T]) prepareRead(ctx context.Context, read rv.Read) error {
	return r.p.prepareRead(ctx, read, r.gr.String())
}

// Sync implements store.Syncer: it waits until the replica has reached
// etcd's current revision, for at most the request timeout and until ctx
// ends (504 Timeout then). A server calls it before a watch with
// resourceVersion unset, so that the watch's initial state holds every
// write etcd acknowledged before; Get and List with resourceVersion unset
// do it by themselves.
func (r *Resource[T]) Sync(ctx context.Context) error {
	return r.prepareRead(ctx, rv.Read{Semantics: rv.MostRecent})
}

// Get returns a copy of an object from the replica (see
// store.Resource.Get); with resourceVersion unset, the object etcd has
// (see latest).
func (r *Resource[T]) Get(ctx context.Context, namespace, name string, read rv.Read) (T, error) {
	if read.Semantics == rv.MostRecent {
		obj, shared, err := r.latest(ctx, namespace, name)
		if err == nil && shared {
			obj = r.p.copy(obj)
		}
		return obj, err
	}
	if err := r.prepareRead(ctx, read); err != nil {
		var zero T
		return zero, err
	}
	return r.res.Get(ctx, namespace, name, read)
}

// View is Get without the copy (see store.Resource.View).
func (r *Resource[T]) View(ctx context.Context, namespace, name string, read rv.Read) (T, error) {
	if read.Semantics == rv.MostRecent {
		obj, _, err := r.latest(ctx, namespace, name)
		return obj, err
	}
	if err := r.prepareRead(ctx, read); err != nil {
		var zero T
		return zero, err
	}
	return r.res.View(ctx, namespace, name, read)
}

// latest reads namespace/name consistently with one etcd read of its key,
// as kube-apiserver serves a GET with resourceVersion unset from etcd, not
// from its cache: a consistent read through the replica would add a wait
// for the replica to reach etcd's revision, which writes elsewhere keep
// moving (a create's namespace admission reads so, under 8 writers). The
// replica's object serves when it is the version etcd has (shared true:
// the replica's own, read-only, with its cached encoding); the replica
// is waited for only when it has not reached the object's own revision;
// else the value read is decoded (a replica that lost an event).
func (r *Resource[T]) latest(ctx context.Context, namespace, name string) (obj T, shared bool, err error) {
	p := r.p
	if err := p.waitReady(ctx, r.gr.String()); err != nil {
		return obj, false, err
	}
	if p.ctx.Err() != nil {
		return obj, false, errClosed
	}
	// The replica's object, or its refusal of namespace and name (scope).
	have, err := r.res.View(ctx, namespace, name, rv.Read{Semantics: rv.Any})
	if err != nil && !status.IsNotFound(err) {
		return obj, false, err
	}
	inReplica := err == nil
	key := r.EtcdKey(namespace, name)
	resp, err := p.readKey(ctx, r.gr, key)
	if err != nil {
		return obj, false, err
	}
	if len(resp.Kvs) == 0 {
		if inReplica {
			// The replica has yet to apply the deletion: wait for it, as
			// below for a write.
			if err := p.catchUp(ctx, rv.Version(resp.Header.Revision), r.gr.String()); err != nil {
				return obj, false, err
			}
		}
		return obj, false, status.NewNotFound(r.gr, name)
	}
	kv := resp.Kvs[0]
	mod := strconv.FormatInt(kv.ModRevision, 10)
	if inReplica && have.Meta().ResourceVersion == mod {
		return have, true, nil
	}
	if rv.Version(kv.ModRevision) > p.store.Revision() {
		// The replica has yet to reach the object's revision (it was
		// just written): wait for it, so that a read of any
		// resourceVersion that follows finds it too, as after the
		// replica's consistent read.
		if err := p.catchUp(ctx, rv.Version(kv.ModRevision), r.gr.String()); err != nil {
			return obj, false, err
		}
		if have, err := r.res.View(ctx, namespace, name, rv.Read{Semantics: rv.Any}); err == nil && have.Meta().ResourceVersion == mod {
			return have, true, nil
		}
	}
	// Other reads share resp (readKey), and a decoded object may alias
	// the value it was decoded from: decode a copy of its own.
	obj, err = r.decode(bytes.Clone(kv.Value), kv.ModRevision)
	return obj, false, err
}

// List returns a page of a collection from the replica (see
// store.Resource.List). An exact list, or the continuation of a paged
// list, at a revision older than the replica's history (the replica
// started after it, or let it go) is read from etcd at that revision, so
// it answers 410 only once etcd has compacted it: a paged list started on
// one server continues on another that started later.
func (r *Resource[T]) List(ctx context.Context, namespace string, opts store.ListOptions) (*store.Page[T], error) {
	if err := r.prepareRead(ctx, opts.Read); err != nil {
		return nil, err
	}
	p, err := r.res.List(ctx, namespace, opts)
	var ce *rv.CompactedError
	if err != nil && status.IsExpired(err) && errors.As(err, &ce) && ce.Requested > 0 {
		if p, ok, err2 := r.listAt(ctx, namespace, opts, ce.Requested); err2 != nil || ok {
			return p, err2
		}
	}
	return p, err
}

// listAt serves a list at revision rev from etcd: it reads the collection
// at rev and lists it from a store of its own, so that the page, its
// continue token and remainingItemCount are those the replica would have
// given. ok is false if etcd has compacted rev. It costs a read of the
// whole collection (of namespace, if set), as an exact list that misses a
// Kubernetes watch cache costs a read from etcd.
func (r *Resource[T]) listAt(ctx context.Context, namespace string, opts store.ListOptions, rev rv.Version) (page *store.Page[T], ok bool, err error) {
	key := r.coll + "/"
	if namespace != "" && r.ro.Namespaced {
		key += namespace + "/"
	}
	var resp *clientv3.GetResponse
	compacted := false
	if err := r.p.call(ctx, rpcRange, key, func(ctx context.Context) (err error) {
		start := time.Now()
		resp, err = r.p.client.Get(ctx, key, clientv3.WithPrefix(), clientv3.WithRev(int64(rev)))
		r.p.observe("list", r.gr, start, err)
		if errors.Is(err, rpctypes.ErrCompacted) {
			compacted = true
			return nil
		}
		return err
	}); err != nil || compacted {
		return nil, false, err
	}
	objs := make([]store.Change[T], 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		r2, k := r.p.lookup(string(kv.Key))
		if r2 != r {
			continue
		}
		obj, err := r.decode(kv.Value, kv.ModRevision)
		if err != nil {
			continue // left out, as the replica leaves it out
		}
		objs = append(objs, store.Change[T]{Key: k, Object: obj, Revision: rv.Version(kv.ModRevision)})
	}
	st := store.New(r.p.sopts)
	defer st.Close()
	if err := st.Reset(rev, objs); err != nil {
		return nil, false, status.NewInternalError(err)
	}
	page, err = st.Resource(r.ro).List(ctx, namespace, opts)
	return page, err == nil, err
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
