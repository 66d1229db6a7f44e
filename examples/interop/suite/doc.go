// Package suite is the part of the client-go interop tests that any
// storage must pass: CRUD and create rules, paging with a pager and
// continue after compaction, informers and reflectors (watch resume,
// relist after 410, bookmarks), the dynamic and metadata clients,
// server-side apply, events, CustomResourceDefinitions, discovery and
// OpenAPI, deletion with finalizers and namespace deletion, and kubectl
// (server-side apply and scale; skipped without a kubectl:
// set KUBECTL or put one on PATH).
//
// Run runs it on servers from a NewServer: package interop runs it on the
// in-memory example server, and the etcd module on two replicas of the
// example server on one etcd behind one address. It lives in this module
// so that the etcd module imports it (and client-go), not the other way
// round: this module does not depend on etcd.
package suite
