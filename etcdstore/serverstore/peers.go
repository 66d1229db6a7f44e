package serverstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

const (
	// defaultPeerTTL is the lease of a peer's report: how long a server
	// that died without Close still counts.
	defaultPeerTTL = 10 * time.Second
	// peerRetry is how long a peer waits before it tries again to renew
	// a lost lease.
	peerRetry = 500 * time.Millisecond
	// peersDir holds the reports, under the prefix. Its name, with an
	// underscore, is no resource's (resource names are DNS labels).
	peersDir = "/crd_served/"
)

// Peers are the servers on one etcd and prefix as the controllers of
// their CustomResourceDefinitions see them (crd.Peers, given in
// crd.Options.Peers): a definition is Established only once every server
// serves it, so that a client that sees the condition through one server
// finds the resource on all. Each server has one Peers, made by NewPeers
// and closed (after its controller has stopped) by Close.
//
// A server's report is the key <prefix>/crd_served/<id>, holding the
// revision it reported, attached to a lease the server keeps alive: a
// server that stops (Close revokes the lease) or dies (the lease expires
// after Options.PeerTTL) no longer counts, and a definition created
// meanwhile waits at most that long. The key lies under the prefix the
// servers' replicas watch, so that a report wakes every controller.
type Peers struct {
	client  *clientv3.Client
	timeout time.Duration
	ttl     int64 // seconds
	dir     string
	key     string // this server's

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when run has returned
	kick   chan struct{} // tells run the lease changed; buffered, size 1

	mu      sync.Mutex // held across the etcd calls of a report
	lease   clientv3.LeaseID
	rev     rv.Version // the last revision reported
	started bool       // run started by the first report
	closed  bool
}

var _ crd.Peers = (*Peers)(nil)

// NewPeers returns this server's view of the peers on opts.Client and
// opts.Prefix. It joins them at its first Report.
func NewPeers(opts Options) (*Peers, error) {
	if opts.Client == nil {
		return nil, errors.New("serverstore: Options.Client is nil")
	}
	prefix := strings.TrimSuffix(opts.Prefix, "/")
	if prefix == "" {
		prefix = "/registry"
	}
	var id [8]byte
	rand.Read(id[:])
	p := &Peers{
		client: opts.Client, timeout: opts.RequestTimeout, ttl: int64(opts.PeerTTL.Round(time.Second) / time.Second),
		dir: prefix + peersDir, done: make(chan struct{}), kick: make(chan struct{}, 1),
	}
	p.key = p.dir + hex.EncodeToString(id[:])
	if p.timeout == 0 {
		p.timeout = 10 * time.Second
	}
	if p.ttl <= 0 {
		p.ttl = int64(defaultPeerTTL / time.Second)
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p, nil
}

// call runs one etcd call under the request timeout.
func (p *Peers) call(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	return f(ctx)
}

// Report implements crd.Peers: it writes rev under the server's lease,
// taking a lease first if it has none.
func (p *Peers) Report(ctx context.Context, rev rv.Version) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return status.NewServiceUnavailable("the server is leaving its peers")
	}
	p.rev = rev
	if err := p.putLocked(ctx); err != nil {
		return err
	}
	if !p.started {
		p.started = true
		go p.run()
	}
	return nil
}

// putLocked writes the last reported revision under the lease, taking a
// new lease if there is none or etcd no longer has it.
func (p *Peers) putLocked(ctx context.Context) error {
	for retried := false; ; retried = true {
		if p.lease == 0 {
			var resp *clientv3.LeaseGrantResponse
			if err := p.call(ctx, func(ctx context.Context) (err error) {
				resp, err = p.client.Grant(ctx, p.ttl)
				return err
			}); err != nil {
				return err
			}
			p.lease = resp.ID
			select {
			case p.kick <- struct{}{}:
			default:
			}
		}
		err := p.call(ctx, func(ctx context.Context) error {
			_, err := p.client.Put(ctx, p.key, strconv.FormatUint(uint64(p.rev), 10), clientv3.WithLease(p.lease))
			return err
		})
		if errors.Is(err, rpctypes.ErrLeaseNotFound) && !retried {
			p.lease = 0
			continue
		}
		return err
	}
}

// run keeps the lease alive; when it is lost (etcd was out of reach for
// longer than its TTL), it takes a new one and writes the last report
// again, so that the server counts again.
func (p *Peers) run() {
	defer close(p.done)
	for p.ctx.Err() == nil {
		var err error
		p.mu.Lock()
		if p.lease == 0 {
			err = p.putLocked(p.ctx)
		}
		lease := p.lease
		p.mu.Unlock()
		if err == nil {
			p.keepAlive(lease)
		}
		t := time.NewTimer(peerRetry)
		select {
		case <-p.ctx.Done():
		case <-t.C:
		case <-p.kick:
		}
		t.Stop()
	}
}

// keepAlive renews lease until it is lost, the server leaves or a report
// takes another lease.
func (p *Peers) keepAlive(lease clientv3.LeaseID) {
	ctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	ch, err := p.client.KeepAlive(ctx, lease)
	if err != nil {
		return
	}
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				p.mu.Lock()
				if p.lease == lease {
					p.lease = 0
				}
				p.mu.Unlock()
				return
			}
		case <-p.kick:
			p.mu.Lock()
			changed := p.lease != lease
			p.mu.Unlock()
			if changed {
				return
			}
		}
	}
}

// Reached implements crd.Peers: every other server's report is rev or
// later.
func (p *Peers) Reached(ctx context.Context, rev rv.Version) (bool, error) {
	var resp *clientv3.GetResponse
	if err := p.call(ctx, func(ctx context.Context) (err error) {
		resp, err = p.client.Get(ctx, p.dir, clientv3.WithPrefix())
		return err
	}); err != nil {
		return false, err
	}
	for _, kv := range resp.Kvs {
		if string(kv.Key) == p.key {
			continue
		}
		if v, err := strconv.ParseUint(string(kv.Value), 10, 64); err != nil || rv.Version(v) < rev {
			return false, nil
		}
	}
	return true, nil
}

// Close leaves the peers: it stops renewing the lease and revokes it,
// which deletes the report, so that the others no longer wait for this
// server. Call it after the controller has stopped.
func (p *Peers) Close() error {
	p.cancel() // first: a report in flight under p.mu ends sooner
	p.mu.Lock()
	p.closed = true
	started, lease := p.started, p.lease
	p.mu.Unlock()
	if started {
		<-p.done
	}
	if lease == 0 || p.client.Ctx().Err() != nil {
		return nil // nothing to revoke, or no client to: the lease expires
	}
	return p.call(context.Background(), func(ctx context.Context) error {
		_, err := p.client.Revoke(ctx, lease)
		return err
	})
}
