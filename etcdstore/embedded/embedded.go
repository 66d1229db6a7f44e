package embedded

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/fileutil"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Options configure an embedded etcd; only Dir is required.
type Options struct {
	// Dir holds the data; it is created (mode 0700) if missing.
	Dir string
	// ClientURL is where clients reach it: an http URL on a loopback
	// address. Empty means http://127.0.0.1:0, a port the operating
	// system chooses (Endpoint says which).
	ClientURL string
	// ProgressNotifyInterval is etcd's
	// --experimental-watch-progress-notify-interval; 0 keeps etcd's
	// default (10 minutes).
	ProgressNotifyInterval time.Duration
	// Logger receives etcd's log at LogLevel; nil means none.
	Logger *zap.Logger
	// LogLevel is etcd's --log-level; empty means "error".
	LogLevel string
	// StartTimeout bounds the wait for etcd to serve; 0 means a minute.
	StartTimeout time.Duration
}

// Etcd is a running embedded etcd.
type Etcd struct {
	e        *embed.Etcd
	lock     *fileutil.LockedFile
	endpoint string
	once     sync.Once
	// closing silences etcd's log once Close has begun: etcd reports
	// its own listeners closing as errors.
	closing *atomic.Bool
}

// lockName is the file of Dir whose lock says a process uses it. etcd
// locks its database too, but waits for that lock without end: a second
// process on the directory would hang instead of failing.
const lockName = "apisem-embedded.lock"

// Start starts an etcd as opts say and returns once it serves clients.
func Start(opts Options) (*Etcd, error) {
	if opts.Dir == "" {
		return nil, errors.New("embedded etcd: no data directory")
	}
	client, err := loopbackURL(opts.ClientURL)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("embedded etcd: %w", err)
	}
	lock, err := fileutil.TryLockFile(filepath.Join(opts.Dir, lockName), os.O_WRONLY|os.O_CREATE, 0o600)
	if errors.Is(err, fileutil.ErrLocked) {
		return nil, fmt.Errorf("embedded etcd: the data directory %s is in use by another process", opts.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: %w", err)
	}
	closing := new(atomic.Bool)
	if opts.Logger != nil {
		opts.Logger = opts.Logger.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
			return quietCore{c, closing}
		}))
	}
	e, err := start(opts, client)
	if err != nil {
		lock.Close()
		return nil, err
	}
	e.lock, e.closing = lock, closing
	return e, nil
}

func start(opts Options, client *url.URL) (*Etcd, error) { // The peer listener is needed by etcd's raft even with one member;
	// it too is on loopback, on a port of the system's choice.
	peer, _ := url.Parse("http://127.0.0.1:0")

	cfg := embed.NewConfig()
	cfg.Dir = opts.Dir
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	if opts.LogLevel != "" {
		cfg.LogLevel = opts.LogLevel
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(log)
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	// No metrics listener of etcd's own: the embedding server has its
	// /metrics.
	cfg.ListenMetricsUrls = nil
	if opts.ProgressNotifyInterval > 0 {
		cfg.WatchProgressNotifyInterval = opts.ProgressNotifyInterval
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("starting the embedded etcd in %s: %w", opts.Dir, err)
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("starting the embedded etcd in %s: %w", opts.Dir, err)
	case <-e.Server.StopNotify():
		e.Close()
		return nil, fmt.Errorf("the embedded etcd in %s stopped while it started", opts.Dir)
	case <-timer.C:
		e.Close()
		return nil, fmt.Errorf("the embedded etcd in %s did not start within %v", opts.Dir, timeout)
	}
	return &Etcd{e: e, endpoint: "http://" + e.Clients[0].Addr().String()}, nil
}

// loopbackURL parses raw (empty for the default), refusing what is not an
// http URL on a loopback address.
func loopbackURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = "http://127.0.0.1:0"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd client URL: %w", err)
	}
	if u.Scheme != "http" || u.Port() == "" || u.Path != "" {
		return nil, fmt.Errorf("embedded etcd client URL %q: want http://<loopback address>:<port>", raw)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("embedded etcd client URL %q: the embedded etcd listens on loopback addresses only", raw)
	}
	return u, nil
}

// Endpoint is the client URL, such as http://127.0.0.1:40163.
func (e *Etcd) Endpoint() string { return e.endpoint }

// Dir is the data directory.
func (e *Etcd) Dir() string { return e.e.Config().Dir }

// Err reports an error that stopped etcd while it served.
func (e *Etcd) Err() <-chan error { return e.e.Err() }

// Close stops etcd (clients' requests in flight fail) and releases the
// data directory; it is safe to call more than once.
func (e *Etcd) Close() {
	e.once.Do(func() {
		e.closing.Store(true)
		e.e.Close()
		e.lock.Close()
	})
}

// quietCore drops every entry once closing is set.
type quietCore struct {
	zapcore.Core
	closing *atomic.Bool
}

func (q quietCore) Enabled(l zapcore.Level) bool { return !q.closing.Load() && q.Core.Enabled(l) }

func (q quietCore) With(f []zapcore.Field) zapcore.Core { return quietCore{q.Core.With(f), q.closing} }

func (q quietCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if q.closing.Load() {
		return ce
	}
	return q.Core.Check(ent, ce)
}
