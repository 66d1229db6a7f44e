// Package app is the command line of the example API server, shared by
// its two builds: examples/apiserver, which keeps objects in memory, and
// etcdstore/cmd/apiserver (in etcdstore's module, with the etcd client),
// which keeps them in etcd.
package app
