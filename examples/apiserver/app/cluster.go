package app

import (
	"context"

	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/server"
)

// asCluster makes the command's server act on deletions as a cluster
// does: a garbage collector (package gc, which demo runs with this
// option) finishes Foreground and Orphan deletions and deletes the
// dependents of deleted owners.
func asCluster(opts *server.Options) { opts.GarbageCollection = true }

// createSystemNamespaces makes the namespaces a cluster starts with
// (default, kube-system, kube-public, kube-node-lease), those that do
// not exist yet.
func createSystemNamespaces(ctx context.Context, s *demo.Server) error {
	return s.Namespaces().CreateSystemNamespaces(ctx)
}
