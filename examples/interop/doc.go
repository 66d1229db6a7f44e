// Package interop proves examples/apiserver against clients nobody here
// wrote: client-go (typed, dynamic and metadata clients, pagers, informers
// and reflectors) and kubectl, against the server started in-process.
//
// The tests any storage must pass are package suite; TestSuite runs them
// on the in-memory server, and the etcd module runs them on replicas on
// etcd. The tests here compare our code with Kubernetes' own (validation,
// strategic merge, apply) or need only one server.
//
// It is its own Go module so that the apisem library does not depend on
// client-go; the replace directive in go.mod points at the working tree.
package interop
