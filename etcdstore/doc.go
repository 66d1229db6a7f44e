// Package etcdstore stores the objects of a resource in etcd, the engine
// Kubernetes runs on, with the semantics of package store: data outlives
// the process and several servers can share it.
//
// Writes are etcd transactions, as Kubernetes' storage layer makes them:
// the resourceVersion of an object is the etcd revision that last
// modified its key; a create succeeds only if the key has no create
// revision (else 409 AlreadyExists), an update or delete only if the key's
// modification revision is still the one it planned on (else it plans
// again on the value the failed transaction read; a resourceVersion the
// client sent that is no longer current is the 409 Conflict). As
// kube-apiserver's start from its watch cache, an update or delete starts
// from the replica's object: one transaction, no read, when the replica
// is current; a refusal, a no-op or a dry run is decided on the value in
// etcd only. The decisions around the write (system fields,
// preconditions, finalizers and two-phase deletion, generateName, dry
// run) are package store's Plan functions, so both backends answer alike.
// A dry run writes nothing to etcd.
//
// Reads and watches are served from an in-memory replica, a store.Store
// fed by one etcd watch (Store.Apply), as kube-apiserver's watch cache is.
// New gives a resource a replica of its own, watching the resource's key
// prefix; a Replica holds several resources in one store.Store fed by one
// watch on Options.Prefix, so that they share one revision space, as the
// resources of one in-memory Store do (a server's controllers wait on its
// Changed for a write to any of them). With either, a page of a list
// costs O(log n + limit) and is one snapshot, remainingItemCount is exact,
// and one etcd event reaches every watcher through package watch. A read with
// resourceVersion unset is consistent. A Get reads its key from etcd, as
// kube-apiserver's does (concurrent Gets of one key share a read sent
// after they began), and serves the replica's object when it is the
// version etcd has; a List first asks etcd for its current revision and
// waits until the replica has reached it (Kubernetes' consistent reads
// from cache, KEP-2340), using a watch progress request so that revisions
// written to other prefixes need no event. Progress
// requests are reliable from etcd 3.4.31 and 3.5.13 on (the versions
// Kubernetes requires); CheckVersion refuses an older etcd, and package
// embedded runs a current one in the process. A revision
// the replica does not reach within Options.FutureWait is the 504 "Too
// large resource version". A watch with resourceVersion unset catches up
// the same way before it takes its initial state (Resource.Sync, which the
// server calls through store.Syncer). An exact list, or the next page of a
// paged list, at a revision older than the replica's history (a replica
// started later than the list, as on another server) is read from etcd at
// that revision. When etcd compacts (Compact), every replica compacts to
// the same revision and older reads answer 410 Gone. A watch
// that etcd compacted under the replica (a replica that fell behind)
// starts over with a fresh list (Store.Reset): its watchers get 410 and
// relist, as with Kubernetes.
//
// Keys are laid out as Kubernetes lays them out:
// <prefix>/<path>/<namespace>/<name> (no namespace for a cluster-scoped
// resource), under Options.Prefix ("/registry" by default). path is
// store.ResourceOptions.EtcdPrefix, as kube-apiserver names it for a
// built-in kind ("deployments", "services/specs"), or else
// <group>/<resource>, as it keys a custom resource (the group left out
// for the core group). Errors that name an object's key (the 409 of a
// failed storage precondition) name this one, below Options.Prefix, as
// kube-apiserver names its keys below --etcd-prefix (the replica's
// store.Options.StoragePrefix). Objects that an earlier apisem kept under
// <group>/<resource> before the resource had an EtcdPrefix are moved to
// their new keys when a replica starts, each in one transaction that
// puts the value under the new key and deletes the old one, if the new
// key is absent; an object whose new key is taken stays where it is, not
// served. Servers that share a prefix must be upgraded together: one of
// the earlier version writes the former keys, which the others see only
// once one of them starts again. Values are encoded by Options.Codec
// (JSON by default) without their resourceVersion, which is etcd's.
//
// Every etcd call is bounded by Options.RequestTimeout and by the
// request's context: an unreachable etcd makes requests fail with
// kube-apiserver's 504 Timeout (or 503 ServiceUnavailable when the client
// reports etcd unavailable), never hang, and the replica recovers by
// itself when etcd returns. A read's 504 is that of a request past its
// deadline ("request did not complete within the allotted timeout"); a
// write's, that of a write handler past its deadline ("request did not
// complete within requested timeout - context deadline exceeded"), which
// may still have been applied. Replica.Sync, the wait of a consistent
// read, is what a readiness check of the replica runs.
//
// Options.Metrics receives each etcd request's duration
// (etcd_request_duration_seconds); Options.Tracer traces the writes and
// each etcd call with kube-apiserver's span names, as children of the
// request's span (etcdstore/trace.go).
package etcdstore
