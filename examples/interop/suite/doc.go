// Package suite is the part of the client-go interop tests that any
// storage must pass: CRUD, create rules, paging with a pager, informers
// and reflectors (watch resume, relist after 410), the dynamic and
// metadata clients, deletion with finalizers and namespace deletion.
//
// Run runs it on servers from a NewServer: package interop runs it on the
// in-memory example server, and the etcd module on two replicas of the
// example server on one etcd, behind one address. It lives in this module
// so that the etcd module brings client-go's dependencies, not the other
// way round.
package suite
