package serverstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/store"
)

const (
	defaultCheckTimeout  = 2 * time.Second // --etcd-healthcheck-timeout, --etcd-readycheck-timeout
	defaultLivenessGrace = 30 * time.Second
)

// Backend is the etcd storage of one server: Storage goes in its
// server.Options.Storage, HealthChecks in its Options.Hooks.HealthChecks. Create
// it with New.
type Backend struct {
	opts Options
	st   struct {
		sync.Mutex
		s *storage // the storage Storage made; nil before
	}
}

// New returns the etcd storage of one server.
func New(opts Options) *Backend { return &Backend{opts: opts} }

// Storage is the server.Options.Storage of the server (see the function
// Storage). Call it once: the health checks check the last storage made.
func (b *Backend) Storage(so store.Options[server.Object]) (server.Storage, error) {
	s, err := newStorage(b.opts, so)
	if err != nil {
		return nil, err
	}
	b.st.Lock()
	b.st.s = s
	b.st.Unlock()
	return s, nil
}

// HealthChecks returns the health checks of a server on the storage, for
// its server.Options.Hooks.HealthChecks, with kube-apiserver's names
// (k8s.io/apiserver/pkg/server/options/etcd.go):
//
//   - "etcd" reads <prefix>/health from etcd within HealthcheckTimeout.
//     /readyz lists it as kube-apiserver does. /livez and /healthz list a
//     tolerant one: it fails only once etcd has failed it for
//     LivenessGrace, so that a short etcd outage (a restart, a leader
//     election) takes the server out of rotation without getting it
//     restarted. kube-apiserver's own fails at once and leaves the
//     tolerance to its liveness probe's failureThreshold (80 s on a
//     kubeadm cluster); a server run under a probe that restarts it on the
//     first failures would be restarted by every etcd hiccup.
//   - "etcd-readiness" (readyz) is the same read within ReadycheckTimeout.
//   - "replica-sync" (readyz) waits for the in-memory replicas to have
//     loaded and reached etcd's current revision within ReadycheckTimeout:
//     the wait of a consistent read, which a replica that cannot follow
//     etcd cannot serve.
func (b *Backend) HealthChecks() []server.HealthCheck {
	o := b.opts
	prefix := o.Prefix
	if prefix == "" {
		prefix = "/registry"
	}
	key := path.Join("/", prefix, "health")
	probe := func(ctx context.Context) error {
		if _, err := o.Client.Get(ctx, key); err != nil {
			return fmt.Errorf("error getting data from etcd: %w", err)
		}
		return nil
	}
	grace := o.LivenessGrace
	if grace == 0 {
		grace = defaultLivenessGrace
	}
	health, ready := cmp.Or(o.HealthcheckTimeout, defaultCheckTimeout), cmp.Or(o.ReadycheckTimeout, defaultCheckTimeout)
	live := &tolerant{check: probe, grace: grace}
	return []server.HealthCheck{
		{Name: "etcd", Endpoints: server.Livez | server.Healthz, Check: live.run, Timeout: health},
		{Name: "etcd", Endpoints: server.Readyz, Check: probe, Timeout: health},
		{Name: "etcd-readiness", Endpoints: server.Readyz, Check: probe, Timeout: ready},
		{Name: "replica-sync", Endpoints: server.Readyz, Check: b.sync, Timeout: ready},
	}
}

var errNotStarted = errors.New("the storage has not been made yet")

// sync waits until every replica of the storage has caught up with etcd.
func (b *Backend) sync(ctx context.Context) error {
	b.st.Lock()
	s := b.st.s
	b.st.Unlock()
	if s == nil {
		return errNotStarted
	}
	return s.sync(ctx)
}

// tolerant is a check that fails only once check has failed for grace
// (negative: at once).
type tolerant struct {
	check func(ctx context.Context) error
	grace time.Duration

	mu      sync.Mutex
	failing time.Time // when check began to fail; zero while it passes
}

func (t *tolerant) run(ctx context.Context) error {
	err := t.check(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil {
		t.failing = time.Time{}
		return nil
	}
	now := time.Now()
	if t.failing.IsZero() {
		t.failing = now
	}
	if now.Sub(t.failing) < t.grace {
		return nil
	}
	return err
}
