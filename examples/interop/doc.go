// Package interop proves examples/apiserver against clients nobody here
// wrote: its tests start the server in-process and drive it with client-go
// (typed, dynamic and metadata clients, pagers, informers and reflectors).
//
// It is its own Go module so that the apisem library does not depend on
// client-go; the replace directive in go.mod points at the working tree.
package interop
