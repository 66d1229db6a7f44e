package etcdstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/store/selector"
	"github.com/apisem/apisem/tracing"
)

// A Codec turns objects into etcd values and back.
type Codec[T meta.Object] interface {
	Encode(obj T) ([]byte, error)
	Decode(data []byte) (T, error)
}

// JSON is the default Codec: encoding/json into a new value of T, which
// must be a pointer to a struct.
type JSON[T meta.Object] struct{}

// Encode implements Codec.
func (JSON[T]) Encode(obj T) ([]byte, error) { return json.Marshal(obj) }

// Decode implements Codec.
func (JSON[T]) Decode(data []byte) (T, error) {
	var zero T
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer {
		return zero, fmt.Errorf("etcdstore: the JSON codec needs a pointer type, not %v", t)
	}
	obj := reflect.New(t.Elem()).Interface().(T)
	if err := json.Unmarshal(data, obj); err != nil {
		return zero, err
	}
	return obj, nil
}

// Options configure a Resource. The zero value of every field but Client
// means the default written next to it.
type Options[T meta.Object] struct {
	// Client is the etcd client. Required; the caller closes it.
	Client *clientv3.Client
	// Prefix is the key prefix of all resources; "" means "/registry".
	Prefix string
	// Codec encodes the values; nil means JSON.
	Codec Codec[T]
	// Replica configures the in-memory replica (DeepCopy, Now, Rand,
	// FutureWait, Paging, HistoryWindow, MaxRevisions).
	Replica store.Options[T]
	// RequestTimeout bounds every etcd call and the wait of a consistent
	// read for the replica. 0 means 10 seconds.
	RequestTimeout time.Duration
	// Metrics, if set, receives the duration of each etcd request a
	// resource makes (metrics.Recorder is one). nil measures nothing.
	Metrics Metrics
	// Tracer, if set, traces the writes and every etcd call
	// (etcdstore/trace.go), as children of the span in the caller's
	// context: a server's request. nil traces nothing.
	Tracer tracing.Tracer
}

// Metrics receives the etcd requests' durations, labelled as
// kube-apiserver's etcd_request_duration_seconds
// (k8s.io/apiserver/pkg/storage/etcd3/metrics): operation is "get",
// "create", "update", "delete" or "list", gr the resource's.
type Metrics interface {
	EtcdRequest(operation string, gr status.GroupResource, d time.Duration, err error)
}

const (
	defaultPrefix  = "/registry"
	defaultTimeout = 10 * time.Second
	// compactKey holds the revision the last Compact compacted to, under
	// Options.Prefix, as Kubernetes' compactor keeps it.
	compactKey = "/compact_rev_key"
)

// Resource is one resource stored in etcd, with the API of a
// store.Resource (it implements store.Backend). Create it with New, which
// gives it a replica of its own, or with Replica.Resource, which shares
// one replica among resources; stop it with Close.
type Resource[T meta.Object] struct {
	p     *Replica[T]
	own   bool // p is the resource's own (New): Close closes it
	codec Codec[T]
	gr    status.GroupResource
	coll  string // the etcd key of the collection: <prefix>/<EtcdPrefix, or [<group>/]<resource>>
	skey  string // the resource's key prefix in the replica, without "/"
	res   *store.Resource[T]
	ro    store.ResourceOptions[T]

	// former is the etcd key of the collection where an earlier apisem
	// kept the objects ("" if the same): see Replica.moveFormer.
	former string
	// alias: another version of the objects of a resource added before,
	// which decodes them for the replica (see Replica.Resource); a write
	// then plans on values decoded by its own codec, read from etcd.
	alias bool
}

var (
	_ store.Backend[meta.Object] = (*Resource[meta.Object])(nil)
	_ store.Syncer               = (*Resource[meta.Object])(nil)
)

// New returns the resource described by ro, stored in etcd, with a
// replica of its own (see NewReplica), which it starts: a list, then a
// watch. Reads wait for the first list.
func New[T meta.Object](opts Options[T], ro store.ResourceOptions[T]) (*Resource[T], error) {
	p, err := NewReplica(opts)
	if err != nil {
		return nil, err
	}
	r, err := p.Resource(ro, opts.Codec)
	if err != nil {
		return nil, err
	}
	r.own = true
	p.Start()
	return r, nil
}

// Close stops the replica of a resource made by New: reads fail
// afterwards; the client stays open. A resource of a shared Replica stops
// with it (Replica.Close), and Close does nothing.
func (r *Resource[T]) Close() {
	if r.own {
		r.p.Close()
	}
}

// Store returns the replica: read it, never write it.
func (r *Resource[T]) Store() *store.Store[T] { return r.p.store }

// Source returns the watch source of the resource's objects in the
// replica.
func (r *Resource[T]) Source() *store.Source[T] { return r.res.Source() }

// Key returns the storage key of namespace/name in the replica (without
// the etcd prefix; see EtcdKey).
func (r *Resource[T]) Key(namespace, name string) string { return r.res.Key(namespace, name) }

// EtcdKey returns the etcd key of namespace/name.
func (r *Resource[T]) EtcdKey(namespace, name string) string {
	return r.coll + r.res.Key(namespace, name)[len(r.skey):]
}

// Prefix returns the collection prefix of namespace in the replica.
func (r *Resource[T]) Prefix(namespace string) string { return r.res.Prefix(namespace) }

// ParseFieldSelector implements store.Backend.
func (r *Resource[T]) ParseFieldSelector(s string) (selector.Fields, error) {
	return r.res.ParseFieldSelector(s)
}

// Matches implements store.Backend.
func (r *Resource[T]) Matches(obj T, labels selector.Labels, fields selector.Fields) bool {
	return r.res.Matches(obj, labels, fields)
}

// FieldValue implements store.Backend.
func (r *Resource[T]) FieldValue(obj T, field string) string { return r.res.FieldValue(obj, field) }

// A read that etcd did not answer in time gets kube-apiserver's answer
// to a request past its deadline (its timeout filter,
// k8s.io/apiserver/pkg/server/filters/timeout.go); a write gets its answer
// to a write past its deadline (the finisher of its write handlers,
// k8s.io/apiserver/pkg/endpoints/handlers/finisher), whose handler may
// still complete the write: only a write leaves that doubt.
var (
	errReadTimeout  = status.NewTimeout("request did not complete within the allotted timeout", 0)
	errWriteTimeout = status.NewTimeout("request did not complete within requested timeout - "+context.DeadlineExceeded.Error(), 0)
)

// etcdErr turns an etcd client error into the Status a client sees: a
// timeout is the 504 timeout (errReadTimeout or errWriteTimeout), an
// unavailable etcd the 503, the rest a 500.
func etcdErr(err error, timeout *status.Error) error {
	var se *status.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return err
	case errors.Is(err, context.DeadlineExceeded), grpcstatus.Code(err) == codes.DeadlineExceeded:
		return timeout.Wrap(err)
	case errors.Is(err, context.Canceled):
		return err
	case grpcstatus.Code(err) == codes.Unavailable:
		return status.NewServiceUnavailable("etcd is unavailable").Wrap(err)
	}
	return status.NewInternalError(err)
}

// call runs one etcd call of a write, method on key, under the request
// timeout (see Replica.call for a read's); op names it for
// Options.Metrics, method for Options.Tracer.
func (r *Resource[T]) call(ctx context.Context, op, method, key string, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, r.p.timeout)
	defer cancel()
	ctx, sp := r.p.startRPC(ctx, method, key)
	start := time.Now()
	err := f(ctx)
	r.p.observe(op, r.gr, start, err)
	sp.endRPC(err)
	return etcdErr(err, errWriteTimeout)
}

// current reads key from etcd: the object with its resourceVersion, its
// modification revision, or found false.
func (r *Resource[T]) current(ctx context.Context, key string) (obj T, mod int64, found bool, err error) {
	var resp *clientv3.GetResponse
	if err = r.call(ctx, "get", rpcRange, key, func(ctx context.Context) (err error) {
		resp, err = r.p.client.Get(ctx, key)
		return err
	}); err != nil || len(resp.Kvs) == 0 {
		return obj, 0, false, err
	}
	obj, err = r.decode(resp.Kvs[0].Value, resp.Kvs[0].ModRevision)
	return obj, resp.Kvs[0].ModRevision, err == nil, err
}

func (r *Resource[T]) decode(data []byte, mod int64) (T, error) {
	obj, err := r.codec.Decode(data)
	if err != nil {
		return obj, status.NewInternalError(fmt.Errorf("etcdstore: decoding a %s: %w", r.gr, err))
	}
	obj.Meta().ResourceVersion = strconv.FormatInt(mod, 10)
	return obj, nil
}

// encode returns obj's value, without its resourceVersion (etcd's).
func (r *Resource[T]) encode(obj T) (string, error) {
	m := obj.Meta()
	keep := m.ResourceVersion
	m.ResourceVersion = ""
	b, err := r.codec.Encode(obj)
	m.ResourceVersion = keep
	if err != nil {
		return "", status.NewInternalError(fmt.Errorf("etcdstore: encoding a %s: %w", r.gr, err))
	}
	return string(b), nil
}

// txn commits cmp => ops and returns whether it succeeded and the
// revision, with the responses of the else branch.
func (r *Resource[T]) txn(ctx context.Context, op string, cmp clientv3.Cmp, then clientv3.Op, orElse ...clientv3.Op) (*clientv3.TxnResponse, error) {
	var resp *clientv3.TxnResponse
	err := r.call(ctx, op, rpcTxn, string(cmp.KeyBytes()), func(ctx context.Context) (err error) {
		resp, err = r.p.client.Txn(ctx).If(cmp).Then(then).Else(orElse...).Commit()
		return err
	})
	return resp, err
}

// Create stores a new object (see store.Resource.Create).
func (r *Resource[T]) Create(ctx context.Context, obj T, opts store.CreateOptions) (_ T, err error) {
	ctx, sp := r.startStorage(ctx, "Create etcd3", r.EtcdKey(obj.Meta().Namespace, obj.Meta().Name))
	defer func() { sp.end(err) }()
	var zero T
	generated := obj.Meta().Name == ""
	for attempt := 1; ; attempt++ {
		in, err := r.res.PlanCreate(obj, opts)
		if err != nil {
			return zero, err
		}
		m := in.Meta()
		key := r.EtcdKey(m.Namespace, m.Name)
		if opts.DryRun {
			cur, _, found, err := r.current(ctx, key)
			if err != nil {
				return zero, err
			}
			if found {
				if generated && attempt < store.MaxGenerateAttempts {
					continue
				}
				return zero, r.res.CreateConflict(cur, generated)
			}
			return in, nil
		}
		val, err := r.encode(in)
		if err != nil {
			return zero, err
		}
		sp.event("Encode succeeded", len(val))
		resp, err := r.txn(ctx, "create", clientv3.Compare(clientv3.CreateRevision(key), "=", 0),
			clientv3.OpPut(key, val), clientv3.OpGet(key))
		if err != nil {
			return zero, err
		}
		sp.event("Txn call succeeded", -1)
		if resp.Succeeded {
			m.ResourceVersion = strconv.FormatInt(resp.Header.Revision, 10)
			return in, nil
		}
		kvs := resp.Responses[0].GetResponseRange().Kvs
		if len(kvs) == 0 {
			continue // deleted in between
		}
		cur, err := r.decode(kvs[0].Value, kvs[0].ModRevision)
		if err != nil {
			return zero, err
		}
		if generated && attempt < store.MaxGenerateAttempts {
			continue
		}
		return zero, r.res.CreateConflict(cur, generated)
	}
}

// state is a stored object a write plans on, at its modification
// revision mod. live means it was read from etcd (by a Range or a failed
// transaction) and was current then; else it is the replica's, read-only,
// which may be stale: the transaction's comparison of mod finds out.
type state[T meta.Object] struct {
	obj   T
	mod   int64
	found bool
	live  bool
}

// initial returns the state a write starts from: the replica's object, as
// kube-apiserver's GuaranteedUpdate starts from its watch cache's, which
// saves an etcd read per write (the transaction checks it and returns the
// current value if it was stale); the value in etcd if the replica has
// none, or has yet to apply this process's last write of it (a writer
// that updates an object again at once), whose transaction would fail:
// a failed transaction costs etcd a proposal, more than a read.
func (r *Resource[T]) initial(ctx context.Context, namespace, name, key string) (state[T], error) {
	if !r.alias {
		if v, err := r.res.View(ctx, namespace, name, rv.Read{Semantics: rv.Any}); err == nil {
			if mod, err := strconv.ParseInt(v.Meta().ResourceVersion, 10, 64); err == nil && !r.p.behind(key, mod) {
				return state[T]{obj: v, mod: mod, found: true}, nil
			}
		}
	}
	return r.live(ctx, key)
}

// live reads the state of key from etcd.
func (r *Resource[T]) live(ctx context.Context, key string) (state[T], error) {
	obj, mod, found, err := r.current(ctx, key)
	return state[T]{obj: obj, mod: mod, found: found, live: true}, err
}

// keep returns obj for the caller to keep: a copy if it is the replica's.
func (r *Resource[T]) keep(st state[T], obj T) T {
	if st.live || any(obj) != any(st.obj) {
		return obj
	}
	return r.p.copy(obj)
}

// commit makes the planned write op of next over the stored state cur
// if the key was not modified since. ok false means it was: plan again on
// now, the current state, which the transaction read.
func (r *Resource[T]) commit(ctx context.Context, key string, cur state[T], next T, op store.WriteOp) (out T, ok bool, now state[T], err error) {
	cmp := clientv3.Compare(clientv3.ModRevision(key), "=", cur.mod)
	var then clientv3.Op
	name := "update"
	switch op {
	case store.WriteNone:
		return cur.obj, true, cur, nil
	case store.WriteDelete:
		then, out, name = clientv3.OpDelete(key), cur.obj, "delete"
	default:
		val, err := r.encode(next)
		if err != nil {
			return out, false, now, err
		}
		r.storageSpan(ctx).event("Encode succeeded", len(val))
		then, out = clientv3.OpPut(key, val), next
	}
	resp, err := r.txn(ctx, name, cmp, then, clientv3.OpGet(key))
	if err != nil {
		return out, false, now, err
	}
	if !resp.Succeeded {
		now.live = true
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
			now.obj, err = r.decode(kvs[0].Value, kvs[0].ModRevision)
			now.mod, now.found = kvs[0].ModRevision, err == nil
		}
		return out, false, now, err
	}
	r.storageSpan(ctx).event("Transaction committed", -1)
	r.p.noteWrite(key, resp.Header.Revision)
	out = r.keep(cur, out)
	out.Meta().ResourceVersion = strconv.FormatInt(resp.Header.Revision, 10)
	return out, true, now, nil
}

// Update replaces an object (see store.Resource.Update).
func (r *Resource[T]) Update(ctx context.Context, obj T, opts store.UpdateOptions) (_ T, err error) {
	var zero T
	m := obj.Meta()
	key := r.EtcdKey(m.Namespace, m.Name)
	ctx, sp := r.startStorage(ctx, "GuaranteedUpdate etcd3", key)
	defer func() { sp.end(err) }()
	cur, err := r.initial(ctx, m.Namespace, m.Name, key)
	for {
		if err != nil {
			return zero, err
		}
		if !cur.found {
			if !opts.AllowCreate {
				return zero, status.NewNotFound(r.gr, m.Name)
			}
			in := r.p.copy(obj)
			in.Meta().ResourceVersion = ""
			out, err := r.Create(ctx, in, store.CreateOptions{DryRun: opts.DryRun})
			if status.IsAlreadyExists(err) {
				cur, err = r.live(ctx, key)
				continue // created meanwhile: update it
			}
			return out, err
		}
		next, op, perr := r.res.PlanUpdate(cur.obj, obj, opts)
		// A refusal, a dry run or no change is answered on the current
		// object only, as kube-apiserver's GuaranteedUpdate does.
		if !cur.live && (perr != nil || opts.DryRun || op == store.WriteNone) {
			cur, err = r.live(ctx, key)
			continue
		}
		if perr != nil {
			return zero, perr
		}
		if opts.DryRun {
			return next, nil
		}
		out, ok, now, err := r.commit(ctx, key, cur, next, op)
		if ok && err == nil && op == store.WriteDelete {
			// The last finalizer went: the writer gets what it wrote,
			// as from the in-memory store.
			return next, nil
		}
		if ok || err != nil {
			return out, err
		}
		cur = now
	}
}

// GuaranteedUpdate is a read-modify-write (see
// store.Resource.GuaranteedUpdate); tryUpdate runs again whenever another
// write came in between, or when it refused an object of the replica
// that was not the current one.
func (r *Resource[T]) GuaranteedUpdate(ctx context.Context, namespace, name string, opts store.UpdateOptions, tryUpdate func(current T) (T, error)) (_ T, err error) {
	var zero T
	key := r.EtcdKey(namespace, name)
	ctx, sp := r.startStorage(ctx, "GuaranteedUpdate etcd3", key)
	defer func() { sp.end(err) }()
	cur, err := r.initial(ctx, namespace, name, key)
	for {
		if err != nil {
			return zero, err
		}
		if !cur.found {
			return zero, status.NewNotFound(r.gr, name)
		}
		next, op, perr := r.planGuaranteed(cur.obj, opts, tryUpdate)
		if !cur.live && (perr != nil || opts.DryRun || op == store.WriteNone) {
			cur, err = r.live(ctx, key)
			continue
		}
		if perr != nil {
			return zero, perr
		}
		if opts.DryRun {
			return next, nil
		}
		res, ok, now, err := r.commit(ctx, key, cur, next, op)
		if ok && err == nil && op == store.WriteDelete {
			// The last finalizer went: the writer gets what it wrote,
			// as from the in-memory store.
			return next, nil
		}
		if ok || err != nil {
			return res, err
		}
		cur = now
	}
}

// planGuaranteed plans one attempt of GuaranteedUpdate on cur.
func (r *Resource[T]) planGuaranteed(cur T, opts store.UpdateOptions, tryUpdate func(current T) (T, error)) (T, store.WriteOp, error) {
	var zero T
	if err := r.res.CheckUpdatePreconditions(cur, opts); err != nil {
		return zero, store.WriteNone, err
	}
	out, err := tryUpdate(r.p.copy(cur))
	if err != nil {
		return zero, store.WriteNone, err
	}
	return r.res.PlanGuaranteedUpdate(cur, out)
}

// Delete deletes an object, or marks it while finalizers hold it (see
// store.Resource.Delete).
func (r *Resource[T]) Delete(ctx context.Context, namespace, name string, opts store.DeleteOptions) (T, bool, error) {
	var zero T
	key := r.EtcdKey(namespace, name)
	cur, err := r.initial(ctx, namespace, name, key)
	for {
		if err != nil {
			return zero, false, err
		}
		if !cur.found {
			return zero, false, status.NewNotFound(r.gr, name)
		}
		next, op, perr := r.res.PlanDelete(cur.obj, opts)
		if !cur.live && (perr != nil || opts.DryRun || op == store.WriteNone) {
			cur, err = r.live(ctx, key)
			continue
		}
		if perr != nil {
			return zero, false, perr
		}
		if opts.DryRun {
			return r.keep(cur, next), op == store.WriteDelete, nil
		}
		if op == store.WriteDelete && opts.Graceful {
			// The mark first, as Kubernetes' graceful deletion writes it
			// (store.Resource.GracefulMark); then the deletion of it.
			if mark, ok := r.res.GracefulMark(cur.obj); ok {
				marked, ok, now, err := r.commit(ctx, key, cur, mark, store.WritePut)
				if err != nil {
					return zero, false, err
				}
				if ok {
					// The preconditions held for the version marked; the
					// mark's own resourceVersion is the deletion's.
					opts.Preconditions.ResourceVersion = nil
					mod, _ := strconv.ParseInt(marked.Meta().ResourceVersion, 10, 64)
					now = state[T]{obj: marked, mod: mod, found: true, live: true}
				}
				cur = now // decide again on the marked object
				continue
			}
		}
		out, ok, now, err := r.commit(ctx, key, cur, next, op)
		if ok || err != nil {
			return out, op == store.WriteDelete && err == nil, err
		}
		cur = now
	}
}

// DeleteCollection deletes the matching objects of a collection, one
// transaction each (see store.Resource.DeleteCollection): it lists them
// consistently, then deletes each; one deleted meanwhile is skipped.
func (r *Resource[T]) DeleteCollection(ctx context.Context, namespace string, list store.ListOptions, opts store.DeleteOptions) ([]T, error) {
	list.Read = rv.Read{Semantics: rv.MostRecent, Limit: list.Read.Limit}
	p, err := r.List(ctx, namespace, list)
	if err != nil {
		return nil, err
	}
	var out []T
	for i := range p.Len() {
		m := p.View(i).Meta()
		if _, _, err := r.Delete(ctx, m.Namespace, m.Name, opts); err != nil {
			if status.IsNotFound(err) {
				continue
			}
			return out, err
		}
		out = append(out, p.At(i))
	}
	return out, nil
}
