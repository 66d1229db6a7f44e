// Package recorded replays requests whose answers were recorded from a
// real kube-apiserver against a server under test, and checks that it
// answers the same: status code, Warning headers and body (identities,
// resourceVersions and times aside), and what it stores.
//
// The recordings are JSON arrays of Exchange, kept in the testdata of
// the packages that replay them; record-applyfields.go wrote those of
// server-side apply with unknown and duplicate fields.
package recorded
