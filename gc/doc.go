// Package gc is a garbage collector for metadata.ownerReferences, as
// kube-controller-manager's, for a server of package server: it deletes
// the dependents of deleted owners across every resource the server
// serves, custom resources and resources added while it runs included.
//
// # Usage
//
//	s, err := server.New(server.Options{Resources: rs, GarbageCollection: true})
//	...
//	c := gc.New(s, gc.Options{})
//	go c.Run(ctx)                 // until ctx is done
//
// With Options.GarbageCollection the server leaves a deletion's
// propagation policy to the collector, as kube-apiserver does:
//
//   - Background (the default): the owner goes at once; the collector
//     then deletes each dependent whose every owner is gone. An owner
//     reference counts as gone when no object of its kind and name
//     exists, or one with another uid does.
//   - Foreground: the server marks the owner with the foregroundDeletion
//     finalizer; the collector deletes its dependents (in the foreground
//     too where they have dependents of their own) and removes the
//     finalizer once no dependent whose reference has blockOwnerDeletion
//     is left, which lets the owner go.
//   - Orphan: the server marks the owner with the orphan finalizer; the
//     collector takes the references to the owner out of its dependents,
//     which stay, then removes the finalizer.
//
// A dependent with an owner that still exists is not deleted; its
// references to owners that are gone, or waiting in a Foreground
// deletion, are removed. A namespaced dependent's owners are looked up
// in its namespace (or are cluster-scoped): a reference to an object of
// another namespace counts as gone. A cluster-scoped dependent cannot
// have a namespaced owner: such a reference is never resolved, and the
// dependent is never collected, as in Kubernetes 1.20 and later. A
// reference to a kind the server does not serve waits until it does.
//
// # How it works
//
// Run reads every object of the served resources' stores once, then
// follows their events (the server's Store holds every resource in one
// revision space; a storage may keep resources added at run time in
// stores of their own, as etcd's keeps a replica per custom resource): it
// keeps the graph of owners and dependents by uid, and after each batch
// of writes acts on the objects they concern, reading owners from
// the store before it deletes anything. Its writes go to the resources'
// stores directly, as the controller's own, so they pass no admission
// and record no managedFields. When the history it follows has been
// compacted away, it reads everything again.
//
// # Concurrency
//
// Run is the collector's only goroutine, owned by its caller; it returns
// when its context is done. Writes that race with the collector's are
// resolved by uid preconditions: a replaced object is never deleted in
// its predecessor's name.
package gc
