package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store/selector"
)

// ResourceOptions describe one resource (one kind of object) in a Store.
type ResourceOptions[T meta.Object] struct {
	// GroupResource names the resource in error messages, e.g.
	// {Resource: "configmaps"} or {Group: "apps", Resource: "deployments"}.
	GroupResource status.GroupResource
	// Kind names the kind in 422 Invalid messages, e.g. "ConfigMap".
	Kind string
	// Namespaced says whether objects live in namespaces. The namespace
	// of a cluster-scoped object is cleared on create.
	Namespaced bool
	// Prefix is the key prefix of the resource's objects; "" means
	// GroupResource.String(). It must not contain "/", and two resources
	// in one Store need distinct prefixes.
	Prefix string
	// EtcdPrefix is the path of the resource's objects in a storage
	// that keys them by path below a prefix of its own, as etcd does
	// (package etcdstore): "<path>/[<namespace>/]<name>". It is one or
	// two segments ("deployments", "services/specs"); "" means
	// "<group>/<resource>" of Prefix or GroupResource ("<resource>" in
	// the core group). A Store keys objects by Prefix; it names the
	// etcd key <Options.StoragePrefix>/<EtcdPrefix>/... in the 409 of a
	// failed storage precondition, as kube-apiserver does.
	EtcdPrefix string
	// Fields are field-selector fields beyond metadata.name and
	// metadata.namespace, each with a function returning the field's
	// value in an object.
	Fields map[string]func(T) string
	// UnknownField returns the message of the 400 for a field selector
	// on an unknown field. nil means Kubernetes' default text,
	// `"<label>" is not a known field selector: only "metadata.name",
	// "metadata.namespace"` (followed by the names in Fields, sorted).
	UnknownField func(label string) string
	// Finalizers reports whether an object is held by finalizers kept
	// outside metadata.finalizers, such as a Namespace's spec.finalizers.
	// Such an object is only marked by Delete, and an update that leaves
	// it without finalizers of either kind completes its deletion. nil
	// means only metadata.finalizers count.
	Finalizers func(T) bool
}

// Resource is one resource of a Store: the operations of the Kubernetes
// API on its objects. Create one with Store.Resource.
type Resource[T meta.Object] struct {
	s          *Store[T]
	gr         status.GroupResource
	gk         status.GroupKind
	namespaced bool
	prefix     string
	etcdPath   string // kube-apiserver's etcd path of the objects, named by storage errors
	fields     map[string]func(T) string
	unknown    func(string) string
	finalizers func(T) bool // extra finalizers; may be nil
}

// Resource returns the resource described by opts. Resources are cheap;
// create each once and share it. It panics if the key prefix is empty or
// contains "/" (a programming error).
func (s *Store[T]) Resource(opts ResourceOptions[T]) *Resource[T] {
	r := &Resource[T]{
		s:          s,
		gr:         opts.GroupResource,
		gk:         status.GroupKind{Group: opts.GroupResource.Group, Kind: opts.Kind},
		namespaced: opts.Namespaced,
		prefix:     opts.Prefix,
		finalizers: opts.Finalizers,
		fields:     opts.Fields,
		unknown:    opts.UnknownField,
	}
	if r.prefix == "" {
		r.prefix = opts.GroupResource.String()
	}
	if r.prefix == "" || strings.Contains(r.prefix, "/") {
		panic(fmt.Sprintf("store: resource prefix %q is empty or contains \"/\"", r.prefix))
	}
	r.etcdPath = opts.EtcdPrefix
	if r.etcdPath == "" {
		r.etcdPath = EtcdPath(r.prefix)
	}
	if r.unknown == nil {
		known := []string{"metadata.name", "metadata.namespace"}
		extra := make([]string, 0, len(r.fields))
		for f := range r.fields {
			extra = append(extra, f)
		}
		sort.Strings(extra)
		known = append(known, extra...)
		for i, f := range known {
			known[i] = strconv.Quote(f)
		}
		list := strings.Join(known, ", ")
		r.unknown = func(label string) string {
			return strconv.Quote(label) + " is not a known field selector: only " + list
		}
	}
	return r
}

// Store returns the Store r belongs to.
func (r *Resource[T]) Store() *Store[T] { return r.s }

// Key returns the storage key of the object namespace/name.
func (r *Resource[T]) Key(namespace, name string) string {
	if !r.namespaced {
		namespace = ""
	}
	return Key(r.prefix, namespace, name)
}

// Prefix returns the key prefix of the collection of objects in namespace
// ("" means all namespaces), ending in "/".
func (r *Resource[T]) Prefix(namespace string) string {
	if !r.namespaced {
		namespace = ""
	}
	return CollectionPrefix(r.prefix, namespace)
}

// Source returns the watch source of this resource's objects.
func (r *Resource[T]) Source() *Source[T] { return r.s.Source(r.Prefix("")) }

// Preconditions must hold for a write to proceed; nil fields are not
// checked.
type Preconditions struct {
	UID             *string
	ResourceVersion *string
}

// CreateOptions modify Create.
type CreateOptions struct {
	// DryRun runs every check and fills in generated fields but stores
	// nothing, consumes no resourceVersion and sends no event.
	DryRun bool
	// ReadOnlyResult returns the stored object itself instead of a copy,
	// saving a deep copy per write. The caller must not modify it (as
	// with the objects of watch events); Store.Encoded serves it from the
	// encoding cache it shares with lists and watchers.
	ReadOnlyResult bool
	// Handoff makes the object given to Create the store's as it is, not
	// a copy: Create fills in its generated fields and stores it, and
	// the caller must not change it afterwards (see
	// UpdateOptions.Handoff).
	Handoff bool
	// UID is the uid to give the object, when set (a server that gives
	// it before its hooks run, as Kubernetes does); else a random one.
	// An object's own metadata.uid is never kept.
	UID string
}

// UpdateOptions modify Update and GuaranteedUpdate.
type UpdateOptions struct {
	// DryRun runs every check but stores nothing; the result carries the
	// current resourceVersion.
	DryRun bool
	// Preconditions on the stored object.
	Preconditions Preconditions
	// AllowCreate makes Update of a missing object create it (Kubernetes'
	// create-on-update); the object's resourceVersion is then ignored.
	AllowCreate bool
	// RequireResourceVersion rejects an Update without a resourceVersion
	// (a strategy that disallows unconditional updates) with a 422.
	RequireResourceVersion bool
	// ReadOnlyResult returns the stored object itself instead of a copy;
	// see CreateOptions.ReadOnlyResult.
	ReadOnlyResult bool
	// Handoff makes what GuaranteedUpdate's tryUpdate returns the store's
	// as it is, not a copy, saving a deep copy per write; the caller
	// must not change it afterwards. A caller that keeps state about the
	// object (the server's write pipeline, its encoding) finds it again
	// in Options.Equal and the Encodings of the stored version.
	Handoff bool
	// Copy, when set, makes the copy of the current object (a T, and it
	// returns a T: the options are not generic) that GuaranteedUpdate
	// hands to tryUpdate, instead of Options.DeepCopy.
	// It may share with the stored object what tryUpdate leaves as it is
	// (a status writer's copy shares the spec), so that the new version
	// and the one kept in history share it too; tryUpdate must then
	// change nothing shared. A backend whose current object is its own
	// (decoded for the call) may ignore it.
	Copy func(any) any
}

// DeleteOptions modify Delete and DeleteCollection.
type DeleteOptions struct {
	// DryRun runs every check but deletes nothing.
	DryRun bool
	// Preconditions on the stored object.
	Preconditions Preconditions
	// ReadOnlyResult returns the stored objects themselves instead of
	// copies; see CreateOptions.ReadOnlyResult.
	ReadOnlyResult bool
	// Propagation is the deletion's propagation policy, for a server
	// whose garbage collector acts on it (kube-apiserver with
	// --enable-garbage-collector): Foreground puts the foregroundDeletion
	// finalizer on the object and Orphan the orphan finalizer, each
	// taking the other away, so that the object stays, marked, until the
	// collector has dealt with its dependents; Background takes both
	// away. "" leaves the object's finalizers as they are.
	Propagation Propagation
	// GracePeriodSeconds is the deletion's grace period (the client's
	// DeleteOptions.gracePeriodSeconds); it counts only with Graceful.
	GracePeriodSeconds *int64
	// Graceful makes the deletion graceful, as Kubernetes deletes a Pod
	// (a Resource.Delete hook that has computed GracePeriodSeconds sets
	// it): a period above 0 marks the object (deletionTimestamp that many
	// seconds ahead, deletionGracePeriodSeconds) instead of deleting it,
	// and it stays until a deletion with a shorter period, which 0
	// deletes when no finalizer holds it. A graceful deletion that
	// deletes writes the mark of period 0 first, as Kubernetes does: a
	// MODIFIED event, then the DELETED one (Store's deletion; a backend
	// of its own decides with PlanDelete alone).
	Graceful bool
}

// Propagation is a deletion's propagation policy (DeleteOptions).
type Propagation string

// The propagation policies, and the finalizers of the first two.
const (
	PropagationForeground Propagation = "Foreground"
	PropagationBackground Propagation = "Background"
	PropagationOrphan     Propagation = "Orphan"

	FinalizerForeground = "foregroundDeletion"
	FinalizerOrphan     = "orphan"
)

// withPropagation returns the finalizers fins with those of policy p, as
// kube-apiserver's store computes them (deletionFinalizersForGarbageCollection):
// both collector finalizers taken away, then the policy's put back last;
// changed is false, and fins returned, when the set is the same.
func withPropagation(fins []string, p Propagation) (out []string, changed bool) {
	if p == "" {
		return fins, false
	}
	for _, f := range fins {
		if f != FinalizerForeground && f != FinalizerOrphan {
			out = append(out, f)
		}
	}
	switch p {
	case PropagationForeground:
		out = append(out, FinalizerForeground)
	case PropagationOrphan:
		out = append(out, FinalizerOrphan)
	}
	same := len(out) == len(fins)
	for _, f := range out {
		same = same && slices.Contains(fins, f)
	}
	if same {
		return fins, false
	}
	return out, true
}

// result returns obj, a stored object, as the result of a write: a copy
// unless the caller asked for the read-only original.
func (s *Store[T]) result(obj T, readOnly bool) T {
	if readOnly {
		return obj
	}
	return s.copyFn(obj)
}

// ErrResourceVersionSetOnCreate is wrapped by the error of a Create whose
// object carries a resourceVersion.
var ErrResourceVersionSetOnCreate = errors.New("store: resourceVersion set on create")

// errRVOnCreate is Kubernetes' answer: a plain storage error, which the API
// server renders as a 500 without a reason.
func errRVOnCreate() error {
	return status.New(500, status.ReasonUnknown, "resourceVersion should not be set on objects to be created", nil).
		Wrap(ErrResourceVersionSetOnCreate)
}

// nowSeconds is the store's time cut to whole seconds, the precision
// Kubernetes' JSON and protobuf keep, so that every reader sees the same
// timestamp whichever encoding it uses.
func (s *Store[T]) nowSeconds() meta.Time {
	return meta.NewTime(s.now().UTC().Truncate(time.Second))
}

// checkScope validates the namespace of an object or request for r.
func (r *Resource[T]) checkScope(namespace, name string) error {
	if r.namespaced {
		if namespace == "" {
			return status.NewBadRequest("Namespace parameter required.")
		}
		if err := checkSegment("Namespace", namespace); err != nil {
			return err
		}
	}
	if name == "" {
		return status.NewBadRequest("Name parameter required.")
	}
	return checkSegment("Name", name)
}

// maxGenerateAttempts is how often Create tries a generated name.
const maxGenerateAttempts = 8

// Create stores a new object and returns it as stored: with a uid,
// creationTimestamp and resourceVersion, and a generated name if it had
// only a generateName. A name in use is the 409 AlreadyExists (prefixed
// "object is being deleted: " while the old object is terminating).
func (r *Resource[T]) Create(ctx context.Context, obj T, opts CreateOptions) (T, error) {
	var zero T
	in, generated, err := r.prepareCreate(obj, opts)
	if err != nil {
		return zero, err
	}
	m := in.Meta()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	for attempt := 1; ; attempt++ {
		if err := r.nameCreate(m, generated); err != nil {
			return zero, err
		}
		key := Key(r.prefix, m.Namespace, m.Name)
		e := r.s.idx.Load().get(key)
		if e != nil {
			if cur := e.head.Load(); !cur.dead {
				if generated && attempt < maxGenerateAttempts {
					continue
				}
				return zero, r.CreateConflict(cur.obj, generated)
			}
		}
		if opts.DryRun {
			return in, nil
		}
		isNew := e == nil
		if isNew {
			e = &entry[T]{key: key}
		}
		return r.s.result(r.s.commitLocked(e, isNew, in, false).obj, opts.ReadOnlyResult), nil
	}
}

// PlanCreate is Create's preparation of an object, for a backend that
// stores it elsewhere (etcdstore): it returns a copy of obj with a uid,
// creationTimestamp and, if it has only a generateName, a generated name
// (a new one per call), or the error Create answers for such an object.
// The backend then stores it if the key is free, with CreateConflict's
// error otherwise (after maxGenerateAttempts tries for a generated name).
func (r *Resource[T]) PlanCreate(obj T, opts CreateOptions) (T, error) {
	var zero T
	opts.Handoff = false // a copy per attempt: each may name it anew
	in, generated, err := r.prepareCreate(obj, opts)
	if err != nil {
		return zero, err
	}
	if err := r.nameCreate(in.Meta(), generated); err != nil {
		return zero, err
	}
	return in, nil
}

// MaxGenerateAttempts is how often Create tries a generated name before
// it answers the 409 of CreateConflict.
const MaxGenerateAttempts = maxGenerateAttempts

// prepareCreate copies obj and fills in the system fields.
func (r *Resource[T]) prepareCreate(obj T, opts CreateOptions) (in T, generated bool, err error) {
	in = obj
	if !opts.Handoff {
		in = r.s.copyFn(obj)
	}
	m := in.Meta()
	if m.ResourceVersion != "" && !opts.DryRun {
		return in, false, errRVOnCreate()
	}
	if !r.namespaced {
		m.Namespace = ""
	}
	generated = m.Name == ""
	if generated && m.GenerateName == "" {
		return in, false, status.NewInvalid(r.gk, "", status.Required("metadata.name", "name or generateName is required"))
	}
	uid := opts.UID
	if uid == "" {
		if uid, err = r.s.newUID(); err != nil {
			return in, false, err
		}
	}
	m.UID, m.ResourceVersion, m.SelfLink = uid, "", ""
	m.CreationTimestamp = r.s.nowSeconds()
	m.DeletionTimestamp, m.DeletionGracePeriodSeconds = nil, nil
	return in, generated, nil
}

// nameCreate generates the name of a new object if it has none and
// checks its key.
func (r *Resource[T]) nameCreate(m *meta.ObjectMeta, generated bool) error {
	if generated {
		var err error
		if m.Name, err = r.s.generateName(m.GenerateName); err != nil {
			return err
		}
	}
	return r.checkScope(m.Namespace, m.Name)
}

// CreateConflict is the 409 of a create whose name is taken by existing:
// AlreadyExists, prefixed "object is being deleted: " while existing is
// terminating, or the generated-name conflict if the name was generated.
func (r *Resource[T]) CreateConflict(existing T, generated bool) error {
	m := existing.Meta()
	switch {
	case generated:
		return status.NewGenerateNameConflict(r.gr, m.Name, 1)
	case m.DeletionTimestamp != nil:
		return status.NewAlreadyExistsTerminating(r.gr, m.Name)
	}
	return status.NewAlreadyExists(r.gr, m.Name)
}

// readRevision resolves the revision a get reads at.
func (r *Resource[T]) readRevision(ctx context.Context, read rv.Read) (uint64, error) {
	switch read.Semantics {
	case rv.NotOlderThan:
		return r.s.waitFor(ctx, uint64(read.Version))
	case rv.Exact:
		n := uint64(read.Version)
		if _, err := r.s.waitFor(ctx, n); err != nil {
			return 0, err
		}
		if n < r.s.compacted.Load() {
			return 0, tooOld(n, r.s.compacted.Load())
		}
		return n, nil
	case rv.ContinueExact:
		return 0, status.NewBadRequest("a continue token is not allowed for this request")
	}
	return r.s.rev.Load(), nil
}

// tooOld is the 410 of a read at a compacted revision outside lists.
func tooOld(n, compacted uint64) error {
	return status.NewExpired(fmt.Sprintf("too old resource version: %d (%d)", n, compacted)).Wrap(rv.ErrCompacted)
}

// Get returns a copy of the object namespace/name as read says (Most
// Recent, Any, Not older than N): 404 NotFound if it does not exist, 504
// if N is not reached in time.
func (r *Resource[T]) Get(ctx context.Context, namespace, name string, read rv.Read) (T, error) {
	v, err := r.View(ctx, namespace, name, read)
	if err != nil {
		return v, err
	}
	return r.s.copyFn(v), nil
}

// View is Get without the copy: it returns the stored object itself,
// which must not be modified (see Page.View). A reader that only encodes
// the object uses it, and Store.Encoded then serves the version's cached
// encoding instead of encoding a copy again.
func (r *Resource[T]) View(ctx context.Context, namespace, name string, read rv.Read) (T, error) {
	var zero T
	if err := r.checkScope(namespace, name); err != nil {
		return zero, err
	}
	key := r.Key(namespace, name)
	for {
		rev, err := r.readRevision(ctx, read)
		if err != nil {
			return zero, err
		}
		v := r.s.idx.Load().getAt(key, rev)
		if !r.s.validate(rev) {
			if read.Semantics == rv.Exact {
				return zero, tooOld(rev, r.s.compacted.Load())
			}
			continue // compacted under us: read the latest again
		}
		if v == nil {
			return zero, status.NewNotFound(r.gr, name)
		}
		return v.obj, nil
	}
}

// getAt returns the version of key visible at rev, or nil.
func (x *index[T]) getAt(key string, rev uint64) *version[T] {
	if e := x.get(key); e != nil {
		return e.at(rev)
	}
	return nil
}

// liveLocked returns the entry of key and its current live version (nil
// if absent or deleted). s.mu must be held.
func (s *Store[T]) liveLocked(key string) (*entry[T], *version[T]) {
	e := s.idx.Load().get(key)
	if e == nil {
		return nil, nil
	}
	v := e.head.Load()
	if v.dead {
		return e, nil
	}
	return e, v
}

// Update replaces the object named by obj's metadata. A resourceVersion
// in obj that is not the stored one is the 409 Conflict
// "the object has been modified"; an empty one updates unconditionally
// (unless opts.RequireResourceVersion). System fields (uid,
// creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds,
// generation) keep their stored values. An update that removes the last
// finalizer of an object being deleted deletes it; the result is then the
// deleted object.
func (r *Resource[T]) Update(ctx context.Context, obj T, opts UpdateOptions) (T, error) {
	var zero T
	in := r.s.copyFn(obj)
	m := in.Meta()
	if !r.namespaced {
		m.Namespace = ""
	}
	if err := r.checkScope(m.Namespace, m.Name); err != nil {
		return zero, err
	}
	key := Key(r.prefix, m.Namespace, m.Name)
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	e, cur := r.s.liveLocked(key)
	if cur == nil {
		if !opts.AllowCreate {
			return zero, status.NewNotFound(r.gr, m.Name)
		}
		uid, err := r.s.newUID()
		if err != nil {
			return zero, err
		}
		m.UID, m.ResourceVersion, m.SelfLink = uid, "", ""
		m.CreationTimestamp = r.s.nowSeconds()
		m.DeletionTimestamp, m.DeletionGracePeriodSeconds = nil, nil
		if opts.DryRun {
			return in, nil
		}
		isNew := e == nil
		if isNew {
			e = &entry[T]{key: key}
		}
		return r.s.result(r.s.commitLocked(e, isNew, in, false).obj, opts.ReadOnlyResult), nil
	}
	if err := r.checkUpdate(key, cur.obj, m, opts); err != nil {
		return zero, err
	}
	m.Generation = cur.obj.Meta().Generation
	return r.updateLocked(e, cur, in, opts)
}

// checkUpdate checks Update's conditions on the stored object cur: the
// resourceVersion m carries and the preconditions.
func (r *Resource[T]) checkUpdate(key string, cur T, m *meta.ObjectMeta, opts UpdateOptions) error {
	switch stored := cur.Meta().ResourceVersion; {
	case m.ResourceVersion == "" && opts.RequireResourceVersion:
		return status.NewInvalid(r.gk, m.Name,
			status.InvalidValue("metadata.resourceVersion", 0, "must be specified for an update"))
	case m.ResourceVersion != "" && m.ResourceVersion != stored:
		return status.NewConflict(r.gr, m.Name, status.OptimisticLockMessage)
	}
	return r.checkUpdatePreconditions(m.Name, cur, opts.Preconditions, opts.DryRun)
}

// WriteOp is what a planned write does to the stored object.
type WriteOp int

const (
	// WriteNone leaves the stored object as it is.
	WriteNone WriteOp = iota
	// WritePut stores the planned object as the key's next state.
	WritePut
	// WriteDelete deletes the key.
	WriteDelete
)

// PlanUpdate is Update's decision for a backend that stores objects
// elsewhere (etcdstore): given the live stored object cur (with its
// resourceVersion) and the update obj, it returns the object to store
// (WritePut), WriteDelete when the update removed the last finalizer of an
// object being deleted (next is then what a dry run returns), or
// WriteNone when nothing changes (next is cur), or Update's error. obj is
// copied; cur is not modified.
func (r *Resource[T]) PlanUpdate(cur, obj T, opts UpdateOptions) (next T, op WriteOp, err error) {
	in := r.s.copyFn(obj)
	m := in.Meta()
	if !r.namespaced {
		m.Namespace = ""
	}
	key := Key(r.prefix, m.Namespace, m.Name)
	if err := r.checkUpdate(key, cur, m, opts); err != nil {
		return next, WriteNone, err
	}
	m.Generation = cur.Meta().Generation
	return r.planUpdate(cur, in)
}

// PlanGuaranteedUpdate is GuaranteedUpdate's decision, as PlanUpdate's:
// cur is the live stored object tryUpdate was called with (after
// CheckPreconditions) and out what it returned.
func (r *Resource[T]) PlanGuaranteedUpdate(cur, out T) (next T, op WriteOp, err error) {
	in := r.s.copyFn(out)
	m := in.Meta()
	m.Name, m.Namespace = cur.Meta().Name, cur.Meta().Namespace
	return r.planUpdate(cur, in)
}

// CheckPreconditions checks update preconditions on the stored object cur
// (GuaranteedUpdate checks them before it calls tryUpdate).
func (r *Resource[T]) CheckPreconditions(cur T, p Preconditions) error {
	m := cur.Meta()
	return r.checkUpdatePreconditions(m.Name, cur, p, false)
}

// CheckUpdatePreconditions is CheckPreconditions for an update with opts,
// whose DryRun the error's key shows, as GuaranteedUpdate checks them.
func (r *Resource[T]) CheckUpdatePreconditions(cur T, opts UpdateOptions) error {
	m := cur.Meta()
	return r.checkUpdatePreconditions(m.Name, cur, opts.Preconditions, opts.DryRun)
}

// GuaranteedUpdate is a read-modify-write of the object namespace/name:
// it calls tryUpdate with a copy of the current object and stores what it
// returns, retrying with the new current object if another write came in
// between. tryUpdate may be called several times and must not keep the
// object; an error from it is returned as is. Unlike Update, the
// generation tryUpdate returns is stored (server code manages it).
func (r *Resource[T]) GuaranteedUpdate(ctx context.Context, namespace, name string, opts UpdateOptions, tryUpdate func(current T) (T, error)) (T, error) {
	var zero T
	if err := r.checkScope(namespace, name); err != nil {
		return zero, err
	}
	key := r.Key(namespace, name)
	for {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		x := r.s.idx.Load()
		e := x.get(key)
		var cur *version[T]
		if e != nil {
			if cur = e.head.Load(); cur.dead {
				cur = nil
			}
		}
		if cur == nil {
			return zero, status.NewNotFound(r.gr, name)
		}
		if err := r.checkUpdatePreconditions(name, cur.obj, opts.Preconditions, opts.DryRun); err != nil {
			return zero, err
		}
		var in0 T
		if opts.Copy != nil {
			in0 = opts.Copy(cur.obj).(T)
		} else {
			in0 = r.s.copyFn(cur.obj)
		}
		out, err := tryUpdate(in0)
		if err != nil {
			return zero, err
		}
		in := out
		if !opts.Handoff {
			in = r.s.copyFn(out)
		}
		m := in.Meta()
		m.Name, m.Namespace = cur.obj.Meta().Name, cur.obj.Meta().Namespace
		r.s.mu.Lock()
		if e2, now := r.s.liveLocked(key); e2 != e || now != cur {
			r.s.mu.Unlock()
			continue // modified meanwhile: try again on the new state
		}
		res, err := r.updateLocked(e, cur, in, opts)
		r.s.mu.Unlock()
		return res, err
	}
}

// checkUpdatePreconditions checks storage preconditions the way
// Kubernetes' storage layer reports them: a 409 Conflict whose message
// embeds the storage error. A dry run's key has no storage prefix: its
// storage checks them itself, on the key below the prefix
// (kube-apiserver 1.37.1: PUT .../configmaps/a?dryRun=All naming another
// uid => "... Key: /configmaps/default/a, ...").
func (r *Resource[T]) checkUpdatePreconditions(name string, cur T, p Preconditions, dryRun bool) error {
	m := cur.Meta()
	var detail string
	switch {
	case p.UID != nil && *p.UID != m.UID:
		detail = fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, m.UID)
	case p.ResourceVersion != nil && *p.ResourceVersion != m.ResourceVersion:
		detail = fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, m.ResourceVersion)
	default:
		return nil
	}
	// The key is the object's etcd key below the storage's prefix
	// (Options.StoragePrefix), in memory as well, as the reference names it.
	key := "/" + r.etcdPath + "/"
	if !dryRun {
		key = r.s.prefix + key
	}
	if ns := m.Namespace; ns != "" && r.namespaced {
		key += ns + "/"
	}
	return status.NewConflict(r.gr, name, "StorageError: invalid object, Code: 4, Key: "+key+m.Name+", ResourceVersion: 0, AdditionalErrorMsg: "+detail)
}

// updateLocked stores in as the next state of the live version cur of e.
// s.mu must be held.
func (r *Resource[T]) updateLocked(e *entry[T], cur *version[T], in T, opts UpdateOptions) (T, error) {
	var zero T
	next, op, err := r.planUpdate(cur.obj, in)
	switch {
	case err != nil:
		return zero, err
	case opts.DryRun:
		return next, nil
	case op == WriteDelete:
		// The update removed the last finalizer: the deletion completes,
		// and the writer gets the object as it wrote it (at the
		// resourceVersion it updated), as from kube-apiserver's
		// deleteWithoutFinalizers; watchers get the deleted version.
		r.s.deleteLocked(e, cur)
		return next, nil
	case op == WriteNone:
		return r.s.result(cur.obj, opts.ReadOnlyResult), nil
	}
	return r.s.result(r.s.commitLocked(e, false, next, false).obj, opts.ReadOnlyResult), nil
}

// planUpdate turns in, a private copy of the update of the live stored
// object cur, into its next state: it keeps the system fields and decides
// whether the update is a write, a deletion (the last finalizer is gone)
// or nothing (Options.Equal).
func (r *Resource[T]) planUpdate(cur, in T) (T, WriteOp, error) {
	m, old := in.Meta(), cur.Meta()
	switch {
	case m.UID == "":
		m.UID = old.UID
	case m.UID != old.UID:
		return in, WriteNone, status.NewInvalid(r.gk, m.Name, status.InvalidValue("metadata.uid", m.UID, "field is immutable"))
	}
	if old.DeletionTimestamp != nil {
		if added := newFinalizers(old.Finalizers, m.Finalizers); len(added) > 0 {
			return in, WriteNone, status.NewInvalid(r.gk, m.Name, status.Forbidden("metadata.finalizers",
				fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", added)))
		}
	}
	// Clients cannot change the system fields.
	KeepSystemFields(m, old)
	if old.DeletionTimestamp != nil && !r.held(in) &&
		(old.DeletionGracePeriodSeconds == nil || *old.DeletionGracePeriodSeconds == 0) {
		// The last finalizer is gone: the deletion completes.
		return in, WriteDelete, nil
	}
	if r.s.equal != nil && r.s.equal(in, cur) {
		return in, WriteNone, nil
	}
	return in, WritePut, nil
}

// held reports whether finalizers of either kind keep obj after a delete.
func (r *Resource[T]) held(obj T) bool {
	return len(obj.Meta().Finalizers) > 0 || r.finalizers != nil && r.finalizers(obj)
}

// newFinalizers returns the finalizers in now that are not in before.
func newFinalizers(before, now []string) []string {
	var added []string
	for _, f := range now {
		if !slices.Contains(before, f) {
			added = append(added, f)
		}
	}
	return added
}

// deleteLocked removes the live version cur of e: the tombstone carries the
// last state with the deletion's resourceVersion. s.mu must be held.
func (s *Store[T]) deleteLocked(e *entry[T], cur *version[T]) *version[T] {
	return s.commitLocked(e, false, s.copyFn(cur.obj), true)
}

// Delete deletes the object namespace/name. If it has finalizers it is
// only marked: deletionTimestamp is set (kept if already set),
// deletionGracePeriodSeconds becomes 0 and generation is incremented on
// the first deletion; it stays until an update removes the last
// finalizer. deleted reports whether the object is gone; the result is
// the deleted object (with the deletion's resourceVersion) or the marked
// one.
func (r *Resource[T]) Delete(ctx context.Context, namespace, name string, opts DeleteOptions) (obj T, deleted bool, err error) {
	var zero T
	if err := r.checkScope(namespace, name); err != nil {
		return zero, false, err
	}
	key := r.Key(namespace, name)
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	e, cur := r.s.liveLocked(key)
	if cur == nil {
		return zero, false, status.NewNotFound(r.gr, name)
	}
	return r.deleteOneLocked(e, cur, opts)
}

func (r *Resource[T]) deleteOneLocked(e *entry[T], cur *version[T], opts DeleteOptions) (T, bool, error) {
	var zero T
	next, op, err := r.PlanDelete(cur.obj, opts)
	switch {
	case err != nil:
		return zero, false, err
	case op == WriteDelete && opts.DryRun:
		return r.s.result(cur.obj, opts.ReadOnlyResult), true, nil
	case op == WriteDelete && opts.Graceful:
		// kube-apiserver's graceful deletion that ends now (a period of
		// 0, a Pod on no node) writes the mark first: watchers see
		// MODIFIED with deletionTimestamp and deletionGracePeriodSeconds
		// 0, then DELETED.
		if mark, ok := r.GracefulMark(cur.obj); ok {
			cur = r.s.commitLocked(e, false, mark, false)
		}
		return r.s.result(r.s.deleteLocked(e, cur).obj, opts.ReadOnlyResult), true, nil
	case op == WriteDelete:
		return r.s.result(r.s.deleteLocked(e, cur).obj, opts.ReadOnlyResult), true, nil
	case op == WriteNone:
		return r.s.result(cur.obj, opts.ReadOnlyResult), false, nil
	case opts.DryRun:
		return next, false, nil
	}
	return r.s.result(r.s.commitLocked(e, false, next, false).obj, opts.ReadOnlyResult), false, nil
}

// GracefulMark returns the state a graceful deletion that deletes cur
// (PlanDelete's WriteDelete with DeleteOptions.Graceful) writes first,
// as kube-apiserver's rest.BeforeDelete marks an object whose graceful
// deletion ends at once: a copy of cur with deletionTimestamp now,
// deletionGracePeriodSeconds 0 and the generation one more on the first
// mark. ok is false when cur is marked so already. A backend of its own
// (etcdstore) writes it before the deletion, as Delete does.
func (r *Resource[T]) GracefulMark(cur T) (mark T, ok bool) {
	if m := cur.Meta(); m.DeletionTimestamp != nil && m.DeletionGracePeriodSeconds != nil && *m.DeletionGracePeriodSeconds == 0 {
		return mark, false
	}
	upd := r.s.copyFn(cur)
	um := upd.Meta()
	if um.DeletionTimestamp == nil && um.Generation > 0 {
		um.Generation++
	}
	now := r.s.nowSeconds()
	var zero int64
	um.DeletionTimestamp, um.DeletionGracePeriodSeconds = &now, &zero
	return upd, true
}

// PlanDelete is Delete's decision for a backend that stores objects
// elsewhere (etcdstore), given the live stored object cur: WriteDelete if
// nothing holds it (next is cur), WritePut of the marked object (next: a
// copy with deletionTimestamp, deletionGracePeriodSeconds 0, the
// generation incremented on the first deletion and the finalizers of
// opts.Propagation) if finalizers hold it,
// WriteNone if it is already marked, or the 409 of a failed precondition.
// cur is not modified.
func (r *Resource[T]) PlanDelete(cur T, opts DeleteOptions) (next T, op WriteOp, err error) {
	m := cur.Meta()
	// Kubernetes checks a deletion's preconditions in its registry
	// (rest.BeforeDelete), whose 409 names the kind, not the resource.
	gr := r.gr
	if r.gk.Kind != "" {
		gr = status.GroupResource{Group: r.gk.Group, Resource: r.gk.Kind}
	}
	if p := opts.Preconditions; p.UID != nil && *p.UID != m.UID {
		return next, WriteNone, status.NewConflict(gr, m.Name, fmt.Sprintf(
			"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated",
			*p.UID, m.UID))
	} else if p.ResourceVersion != nil && *p.ResourceVersion != m.ResourceVersion {
		return next, WriteNone, status.NewConflict(gr, m.Name, fmt.Sprintf(
			"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified",
			*p.ResourceVersion, m.ResourceVersion))
	}
	fins, changed := withPropagation(m.Finalizers, opts.Propagation)
	if next, op, ok := r.planGraceful(cur, opts, fins, changed); ok {
		return next, op, nil
	}
	if !changed && !r.held(cur) {
		return cur, WriteDelete, nil
	}
	now := r.s.nowSeconds()
	keepTime := m.DeletionTimestamp != nil && !m.DeletionTimestamp.After(now.Time)
	if !changed && keepTime && m.DeletionGracePeriodSeconds != nil && *m.DeletionGracePeriodSeconds == 0 {
		return cur, WriteNone, nil // already marked: nothing changes
	}
	upd := r.s.copyFn(cur)
	um := upd.Meta()
	if changed {
		um.Finalizers = fins
		if !r.held(upd) {
			// Background took away the collector's finalizers, the last.
			return cur, WriteDelete, nil
		}
	}
	if um.DeletionTimestamp == nil && um.Generation > 0 {
		um.Generation++
	}
	if !keepTime {
		um.DeletionTimestamp = &now
	}
	var zeroGrace int64
	um.DeletionGracePeriodSeconds = &zeroGrace
	return upd, WritePut, nil
}

// planGraceful is PlanDelete's decision for a graceful deletion
// (DeleteOptions.Graceful) that marks cur or changes its mark, as
// k8s.io/apiserver's rest.BeforeDelete: ok is false where PlanDelete
// decides as for any deletion (a period of 0 for an object not yet
// marked gracefully). A mark may only be shortened; a graceful deletion
// that does not shorten it changes nothing, one that is not graceful
// deletes the object (when no finalizer holds it).
func (r *Resource[T]) planGraceful(cur T, opts DeleteOptions, fins []string, changed bool) (next T, op WriteOp, ok bool) {
	m := cur.Meta()
	marked := m.DeletionTimestamp != nil && m.DeletionGracePeriodSeconds != nil && *m.DeletionGracePeriodSeconds > 0
	var period int64
	if opts.Graceful && opts.GracePeriodSeconds != nil {
		period = max(*opts.GracePeriodSeconds, 0)
	}
	switch {
	case !marked && (!opts.Graceful || period == 0):
		return next, WriteNone, false
	case marked && opts.Graceful && (opts.GracePeriodSeconds == nil || period >= *m.DeletionGracePeriodSeconds):
		return cur, WriteNone, true // pending
	}
	// Here a deletion that is not graceful is one of period 0: the
	// namespace controller's or the garbage collector's, with no kubelet
	// to finish the object.
	upd := r.s.copyFn(cur)
	um := upd.Meta()
	if changed {
		um.Finalizers = fins
	}
	if period == 0 && !r.held(upd) {
		return cur, WriteDelete, true
	}
	start := r.s.nowSeconds().Time
	if marked {
		// The mark moves by the difference of the periods.
		start = m.DeletionTimestamp.Add(-time.Duration(*m.DeletionGracePeriodSeconds) * time.Second)
	} else if um.Generation > 0 {
		um.Generation++
	}
	at := meta.NewTime(start.Add(time.Duration(period) * time.Second))
	um.DeletionTimestamp, um.DeletionGracePeriodSeconds = &at, &period
	return upd, WritePut, true
}

// DeleteCollection deletes every object of the collection (namespace ""
// means all namespaces) that matches the selectors of list, one write
// each, as Delete with opts. With list.Read.Limit > 0 it handles at most
// that many objects, as Kubernetes handles one page. It returns the
// matched objects as they were before deletion (copies unless
// opts.ReadOnlyResult).
func (r *Resource[T]) DeleteCollection(ctx context.Context, namespace string, list ListOptions, opts DeleteOptions) ([]T, error) {
	if err := r.checkFields(list.Fields); err != nil {
		return nil, err
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	x := r.s.idx.Load()
	rev := r.s.rev.Load()
	lo, hi := r.scanRange(namespace, list.Fields)
	var out []T
	var c cursor[T]
	x.seek(&c, lo)
	for e := c.next(); e != nil && (hi == "" || e.key < hi); e = c.next() {
		v := e.at(rev)
		if v == nil || !r.matches(v.obj, list.Labels, list.Fields) {
			continue
		}
		if list.Read.Limit > 0 && int64(len(out)) >= list.Read.Limit {
			break
		}
		cur := e.head.Load() // == v: we hold the writer lock
		one := opts
		one.ReadOnlyResult = true // the result is dropped: do not copy it
		if _, _, err := r.deleteOneLocked(e, cur, one); err != nil {
			return out, err
		}
		out = append(out, r.s.result(v.obj, opts.ReadOnlyResult))
	}
	return out, nil
}

// checkFields rejects a field selector on a field r does not know.
func (r *Resource[T]) checkFields(f selector.Fields) error {
	for _, t := range f.Terms() {
		switch t.Field {
		case "metadata.name", "metadata.namespace":
			continue
		}
		if _, ok := r.fields[t.Field]; !ok {
			return status.NewBadRequest(r.unknown(t.Field))
		}
	}
	return nil
}

// ParseFieldSelector parses a field selector and checks that r knows its
// fields; errors are 400 BadRequest.
func (r *Resource[T]) ParseFieldSelector(s string) (selector.Fields, error) {
	f, err := selector.ParseFields(s)
	if err != nil {
		return f, err
	}
	return f, r.checkFields(f)
}

// FieldValue returns the value of a field-selector field of obj.
func (r *Resource[T]) FieldValue(obj T, field string) string {
	switch field {
	case "metadata.name":
		return obj.Meta().Name
	case "metadata.namespace":
		return obj.Meta().Namespace
	}
	if f, ok := r.fields[field]; ok {
		return f(obj)
	}
	return ""
}

// Matches reports whether obj matches both selectors, as List and
// DeleteCollection filter; a watch filter can use it too.
func (r *Resource[T]) Matches(obj T, labels selector.Labels, fields selector.Fields) bool {
	if !labels.Matches(obj.Meta().Labels) {
		return false
	}
	return fields.Empty() || fields.Matches(func(f string) string { return r.FieldValue(obj, f) })
}

func (r *Resource[T]) matches(obj T, labels selector.Labels, fields selector.Fields) bool {
	return (labels.Empty() && fields.Empty()) || r.Matches(obj, labels, fields)
}

// scanRange returns the key range a list of namespace has to read: the
// collection, narrowed to one namespace when the field selector pins
// metadata.namespace (Kubernetes does the same).
func (r *Resource[T]) scanRange(namespace string, fields selector.Fields) (lo, hi string) {
	if r.namespaced && namespace == "" {
		if ns, ok := fields.RequiresExactMatch("metadata.namespace"); ok && ns != "" && checkSegment("Namespace", ns) == nil {
			namespace = ns
		}
	}
	lo = r.Prefix(namespace)
	return lo, prefixEnd(lo)
}

// Sync implements Syncer: the Store is the source of truth, so it is
// always current.
func (r *Resource[T]) Sync(context.Context) error { return nil }

// KeepSystemFields gives m the system fields of old that an update cannot
// change, whatever it says: creationTimestamp, deletionTimestamp,
// deletionGracePeriodSeconds and resourceVersion (the precondition's, as
// the update replaces it), and clears selfLink. Callers that build the
// updated object's encoding before the store sees it use it to encode what
// the store will keep.
func KeepSystemFields(m, old *meta.ObjectMeta) {
	m.CreationTimestamp = old.CreationTimestamp
	m.DeletionTimestamp = nil
	if old.DeletionTimestamp != nil {
		t := *old.DeletionTimestamp
		m.DeletionTimestamp = &t
	}
	m.DeletionGracePeriodSeconds = nil
	if old.DeletionGracePeriodSeconds != nil {
		g := *old.DeletionGracePeriodSeconds
		m.DeletionGracePeriodSeconds = &g
	}
	m.SelfLink = ""
	m.ResourceVersion = old.ResourceVersion
}
