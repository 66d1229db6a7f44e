package crd

import (
	"context"
	"strconv"

	"github.com/apisem/apisem/rv"
)

// Peers are the servers that serve the definitions of one storage
// together with this one, such as replicas of a server on one etcd. Each
// runs its own Controller, which serves a definition once it has seen it;
// with Peers (Options.Peers), a controller marks a definition Established
// only once every peer reports that it serves it, so that a client that
// sees the condition can use the resource through any of them, as it can
// with one server. kube-apiserver, told by --apiserver-count that it has
// peers, waits five seconds instead. Without Peers a definition is
// Established as soon as its own server serves it.
//
// A report must reach the other peers' controllers, which look again only
// when their server's store changes: a report written as a key under the
// etcd prefix the servers' replicas watch does (package
// github.com/apisem/apisem/etcdstore/serverstore implements Peers so).
type Peers interface {
	// Report records that this server serves every definition stored at
	// revision rev or before: its controller has reconciled them as of
	// rev. The controller reports after its first look at the
	// definitions, which makes the server a peer, and then whenever a
	// definition waits to be established at a later revision.
	Report(ctx context.Context, rev rv.Version) error
	// Reached reports whether every other peer has reported rev or a
	// later revision. A peer that stopped, or that could not renew its
	// membership, no longer counts.
	Reached(ctx context.Context, rev rv.Version) (bool, error)
}

// report tells the peers the revision as of which this server serves the
// definitions defs, listed at rev: at the first sync, and when a
// definition that is not established has changed since the last report.
// A failed report is tried again at the next sync.
func (c *Controller) report(ctx context.Context, rev rv.Version, defs []*CustomResourceDefinition) {
	if c.opts.Peers == nil {
		return
	}
	need := !c.joined
	for _, d := range defs {
		if !need && d.DeletionTimestamp == nil && !d.IsEstablished() && version(d) > c.reported {
			need = true
		}
	}
	if !need {
		return
	}
	if err := c.opts.Peers.Report(ctx, rev); err != nil {
		c.logErr(ctx, "", "reporting to the peers", err)
		c.reportFailed = true
		return
	}
	c.joined, c.reported, c.reportFailed = true, rev, false
}

// peersServe reports whether every peer serves d as it is now.
func (c *Controller) peersServe(ctx context.Context, d *CustomResourceDefinition) bool {
	if c.opts.Peers == nil {
		return true
	}
	ok, err := c.opts.Peers.Reached(ctx, version(d))
	if err != nil {
		c.logErr(ctx, d.Name, "asking the peers", err)
	}
	return ok && err == nil
}

// version is d's resourceVersion as a revision.
func version(d *CustomResourceDefinition) rv.Version {
	v, _ := strconv.ParseUint(d.ResourceVersion, 10, 64)
	return rv.Version(v)
}
