// Package storetest checks that a store.Backend keeps the contract the
// server relies on, as the in-memory store keeps it: the resourceVersion
// semantics of get and list (the table of the Kubernetes API concepts),
// paged lists that are one snapshot whatever is written between their
// pages, with exact remainingItemCount, 410 Gone after compaction, and
// isolation (no dirty, non-repeatable or phantom reads, no read skew, no
// lost update, no stale read).
//
// An implementation of store.Backend, such as a backend on etcd, runs
// the checks with a fresh, empty backend of Resource per check:
//
//	func TestContract(t *testing.T) {
//		storetest.CheckBackend(t, func(t *testing.T) storetest.Harness {
//			b := newBackend(t, storetest.Resource()) // empty; Cleanup stops it
//			return storetest.Harness{Backend: b, Compact: func(rev rv.Version) { compact(b, rev) }}
//		})
//	}
//
// Package store runs them on its in-memory Resource, package etcdstore on
// etcd.
//
// The checks know no revision numbers in advance: they record the
// revision of each write, so a backend whose revisions start anywhere, or
// skip numbers (etcd's, shared with other keys), passes as the in-memory
// store does.
package storetest
