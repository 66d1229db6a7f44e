// Package embedded runs an etcd inside the process, with etcd's own
// server code (go.etcd.io/etcd/server/v3/embed, the version of
// etcdstore's go.mod): durable storage for a server that has no etcd to
// talk to, with nothing to download or install.
//
// It listens on loopback only, on ports the operating system chooses
// (so that it never collides with another etcd on the machine, nor races
// another process for a port it picked), unless Options.ClientURL names
// one. Its data stays in Options.Dir: started again on the same
// directory, it has every key, revision and lease of the run before.
// One process at a time may use a directory.
//
//	e, err := embedded.Start(embedded.Options{Dir: dir})
//	...
//	defer e.Close()
//	client, err := clientv3.New(clientv3.Config{Endpoints: []string{e.Endpoint()}})
//
// It is a single-member cluster, as kube-apiserver's tests and
// single-node clusters run it; a highly available deployment runs etcd
// as a cluster of its own and passes its endpoints to the client
// instead.
package embedded
