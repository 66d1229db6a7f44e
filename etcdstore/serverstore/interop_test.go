package serverstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/examples/interop/suite"
	"github.com/apisem/apisem/rv"
)

// The client-go interop suite passes against two replicas of the example
// server on one etcd, whichever serves the client: behind one address
// that sends each request to the other replica than the one before (a
// client's write lands on one and its next read, list page or watch on
// the other), and behind the address of either replica while the other
// runs on the same data (its controllers acting on the client's objects).
//
// The three runs are parallel, each on an etcd of its own (a compaction
// is etcd-wide): the suite waits on etcd far more than it computes.
func TestInteropSuite(t *testing.T) {
	for _, tc := range []struct {
		name string
		pick func(request uint64) int // the replica that serves a request
	}{
		{"Alternating", func(r uint64) int { return int(r % 2) }},
		{"BehindA", func(uint64) int { return 0 }},
		{"BehindB", func(uint64) int { return 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, c := newEtcd(t)
			var n atomic.Int64
			suite.Run(t, func(t *testing.T, opts demo.Options) suite.Server {
				// One etcd for the whole run; each test's servers have a
				// prefix of their own, so that the tests do not see each
				// other's objects.
				so := serverstore.Options{Client: c, Prefix: fmt.Sprintf("/interop%d", n.Add(1))}
				opts.Storage = serverstore.Storage(so)
				p := &replicas{pick: tc.pick}
				for i := range p.s {
					peers, err := serverstore.NewPeers(so)
					if err != nil {
						t.Fatal(err)
					}
					p.peers[i] = peers
					if p.s[i], err = demo.NewWith(opts, crd.Options{Peers: peers}); err != nil {
						t.Fatal(err)
					}
				}
				// Both have joined the peers before the client starts
				// (their first look at the definitions, and a write to
				// etcd that would otherwise come amid the test's).
				eventually(t, "both servers to join their peers", func() bool {
					resp, err := c.Get(context.Background(), so.Prefix+"/crd_served/", clientv3.WithPrefix(), clientv3.WithCountOnly())
					return err == nil && resp.Count == 2
				})
				return p
			})
		})
	}
}

// replicas are two servers on one storage behind one handler, which
// serves each request on the replica pick chooses.
type replicas struct {
	s     [2]*demo.Server
	peers [2]*serverstore.Peers
	pick  func(request uint64) int
	n     atomic.Uint64
}

func (p *replicas) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.s[p.pick(p.n.Add(1))].ServeHTTP(w, r)
}

// Compact compacts etcd through both servers, so that both have dropped
// the history when it returns (each waits for its own replica).
func (p *replicas) Compact() rv.Version {
	p.s[0].Compact()
	return p.s[1].Compact()
}

// Shutdown stops the servers, then makes them leave their peers.
func (p *replicas) Shutdown(ctx context.Context) error {
	err := errors.Join(p.s[0].Shutdown(ctx), p.s[1].Shutdown(ctx))
	return errors.Join(err, p.peers[0].Close(), p.peers[1].Close())
}
