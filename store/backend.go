package store

import (
	"context"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/store/selector"
)

// Backend is the storage of one resource as a server uses it: the
// operations of the API plus what reads and watches need. *Resource
// implements it in memory; etcdstore.Resource implements it with writes
// to etcd and reads from an in-memory replica (a Store fed by Apply),
// which is what Store and Source return there. A server written against
// Backend runs on either.
type Backend[T meta.Object] interface {
	Create(ctx context.Context, obj T, opts CreateOptions) (T, error)
	Get(ctx context.Context, namespace, name string, read rv.Read) (T, error)
	View(ctx context.Context, namespace, name string, read rv.Read) (T, error)
	List(ctx context.Context, namespace string, opts ListOptions) (*Page[T], error)
	Update(ctx context.Context, obj T, opts UpdateOptions) (T, error)
	GuaranteedUpdate(ctx context.Context, namespace, name string, opts UpdateOptions, tryUpdate func(current T) (T, error)) (T, error)
	Delete(ctx context.Context, namespace, name string, opts DeleteOptions) (obj T, deleted bool, err error)
	DeleteCollection(ctx context.Context, namespace string, list ListOptions, opts DeleteOptions) ([]T, error)

	// Store is the Store reads are served from (Revision, Changed,
	// Encoded); a backend that writes elsewhere must not be written
	// through it.
	Store() *Store[T]
	// Source is the watch source of the resource's objects.
	Source() *Source[T]
	Key(namespace, name string) string
	Prefix(namespace string) string
	ParseFieldSelector(s string) (selector.Fields, error)
	Matches(obj T, labels selector.Labels, fields selector.Fields) bool
	FieldValue(obj T, field string) string
}

var _ Backend[meta.Object] = (*Resource[meta.Object])(nil)

// Syncer is the optional capability of a Backend whose Store replicates
// another source of truth, as an etcd replica does: Sync waits until the
// Store has reached the source's current revision, so that what is served
// next from the Store includes every write acknowledged before the call.
// A server calls it before a watch with resourceVersion unset (whose
// initial state must be the most recent, as Kubernetes' consistent reads
// from cache make it, KEP-2340); such a backend's Get and List do it by
// themselves. A backend that cannot catch up in time answers with a
// Status (504 Timeout). The in-memory Resource is its own source: its Sync
// returns at once.
type Syncer interface {
	Sync(ctx context.Context) error
}

var _ Syncer = (*Resource[meta.Object])(nil)
