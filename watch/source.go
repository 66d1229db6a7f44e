package watch

import "github.com/apisem/apisem/rv"

// EventType is the type of a watch event, as written on the wire.
type EventType string

// The event types of a Kubernetes watch stream.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
	Error    EventType = "ERROR"
)

// Event is one committed write as a Source reports it. Objects are
// immutable: neither the Source nor any watcher may modify them.
type Event[T any] struct {
	// Type is Added, Modified or Deleted.
	Type EventType
	// Revision is the revision of the write.
	Revision rv.Version
	// Key is the object's storage key.
	Key string
	// Object is the state after the write. For Deleted it is the last
	// state, with its resourceVersion set to Revision (as Kubernetes
	// reports deletions).
	Object T
	// Prev is the state before the write for Modified and Deleted, the
	// zero T for Added. Selector transitions are computed from it.
	Prev T
}

// Source is what a Broadcaster consumes: an ordered, replayable history of
// writes. The in-memory store satisfies it; so can an etcd-backed store
// (revision = etcd revision, compaction = etcd compaction).
//
// Every method must be safe for concurrent use and must not block on
// watchers. Revision and Events agree: every event with a revision at or
// below what Revision returned is visible to Events.
type Source[T any] interface {
	// Revision returns the latest committed revision.
	Revision() rv.Version
	// Events appends to dst the events with a revision greater than after,
	// oldest first, at most max of them (max > 0), and returns the extended
	// slice. If after is older than the compaction revision it returns a
	// *rv.CompactedError (which wraps rv.ErrCompacted).
	Events(dst []Event[T], after rv.Version, max int) ([]Event[T], error)
	// Changed returns a channel that is closed as soon as the latest
	// committed revision is greater than after (at once if it already is).
	Changed(after rv.Version) <-chan struct{}
	// Snapshot calls yield for every object in the state at revision at,
	// in key order, until yield returns false. It returns a
	// *rv.CompactedError if at is older than the compaction revision and an
	// error wrapping rv.ErrFutureRevision if at is newer than Revision.
	Snapshot(at rv.Version, yield func(key string, obj T) bool) error
}

// RangeSource is an optional capability of a Source: SnapshotRange is
// Snapshot of the keys in [start, end) alone (end "" for no upper bound),
// read without walking the others. A Broadcaster uses it for the initial
// events of a watch whose objects lie in a KeyRange (WatchKeys), so that
// a watch of one object, or of one namespace, costs in proportion to
// those objects rather than to the whole Source.
type RangeSource[T any] interface {
	SnapshotRange(at rv.Version, start, end string, yield func(key string, obj T) bool) error
}

// EventCache is an optional capability of a Source: serialized events
// cached per stored object version and shared with every reader of the
// Source. A Broadcaster tests for it at run time (as net/http tests a
// ResponseWriter for http.Flusher) and, when the Source has it, encodes
// through it every event whose object the Source returned unchanged: the
// changes it reads, whether for the live stream or for a watcher catching
// up beyond the window, and the ADDED events of initial state. Watchers
// that start with initial events or catch up from the Source then share
// encodings with each other and with the live stream instead of each
// encoding its own.
type EventCache[T any] interface {
	// EncodedEvent returns what enc.AppendEvent(nil, typ, obj) returns,
	// computed at most once per stored object version, encoder and event
	// type, from any goroutine. obj is an object this Source returned from
	// Events or Snapshot, stored under key; a Source that no longer holds
	// that version may encode it without caching. The result is shared and
	// must not be modified.
	EncodedEvent(enc Encoder[T], typ EventType, key string, obj T) ([]byte, error)
}
