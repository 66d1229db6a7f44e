package serverstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/examples/interop/suite"
	"github.com/apisem/apisem/rv"
)

// The client-go interop suite passes against two replicas of the example
// server on one etcd behind one address that sends each request to the
// other replica than the one before: a client's write lands on one and
// its next read, list page or watch on the other.
func TestInteropSuite(t *testing.T) {
	_, c := newEtcd(t)
	var n atomic.Int64
	suite.Run(t, func(t *testing.T, opts demo.Options) suite.Server {
		// One etcd for the whole suite; each test's servers have a
		// prefix of their own, so that the tests do not see each other's
		// objects.
		opts.Storage = serverstore.Storage(serverstore.Options{Client: c, Prefix: fmt.Sprintf("/interop%d", n.Add(1))})
		var p alternate
		for i := range p.s {
			s, err := demo.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			p.s[i] = s
		}
		return &p
	})
}

// alternate serves each request on the other server than the one before.
type alternate struct {
	s [2]*demo.Server
	n atomic.Uint64
}

func (p *alternate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.s[p.n.Add(1)%2].ServeHTTP(w, r)
}

// Compact compacts etcd through both servers, so that both have dropped
// the history when it returns (each waits for its own replica).
func (p *alternate) Compact() rv.Version {
	p.s[0].Compact()
	return p.s[1].Compact()
}

func (p *alternate) Shutdown(ctx context.Context) error {
	return errors.Join(p.s[0].Shutdown(ctx), p.s[1].Shutdown(ctx))
}
