package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/watch"
)

// DefaultAddr is where ListenAndServe listens unless Options.Addr says
// otherwise.
const DefaultAddr = "127.0.0.1:8080"

// Options configure a Server. The zero value means the defaults written
// next to each field.
type Options struct {
	// Resources are the served resources. The server keeps the pointers:
	// they identify the resources in Create and StoreOf, and must not be
	// changed after New.
	Resources []*Resource

	// AdmitCreate, when set, is asked before every create (from POST or
	// Create) whether obj may be created; an error, best a status error,
	// refuses it. Kubernetes' NamespaceLifecycle admission, which refuses
	// content in a namespace that is missing or terminating, is its
	// typical use.
	AdmitCreate func(ctx context.Context, res *Resource, obj Object) error

	// Version is what /version reports; see Version for the defaults.
	Version Version

	// Addr is the address ListenAndServe listens on. "" means DefaultAddr.
	Addr string

	// HistoryWindow is how long the history of writes is kept for
	// resourceVersion reads and watch resumption; older revisions answer
	// 410 Gone. 0 means 5 minutes; negative means no time limit.
	HistoryWindow time.Duration
	// MaxRevisions caps the number of revisions kept in history. 0 means
	// no cap.
	MaxRevisions uint64

	// BookmarkInterval is the period of BOOKMARK events on watches that
	// allow them. 0 means one minute, as Kubernetes.
	BookmarkInterval time.Duration
	// WatchTimeout is the minimum length of a watch without
	// timeoutSeconds: it ends after a random duration between WatchTimeout
	// and twice that. 0 means 30 minutes, as Kubernetes.
	WatchTimeout time.Duration
	// FutureWait is how long a read at a resourceVersion the server has
	// not reached yet waits before the 504 "Too large resource version".
	// 0 means 3 seconds, as Kubernetes' watch cache.
	FutureWait time.Duration

	// MaxObjectBytes limits the size of a stored object (its JSON), as
	// etcd's request limit does for kube-apiserver, which answers a larger
	// one with etcd's 500 "etcdserver: request is too large"; the
	// in-memory store and an etcd backend then refuse the same objects. 0
	// means validation.MaxObjectBytes (1.5 MiB, etcd's default).
	MaxObjectBytes int

	// MaxBodyBytes limits request bodies; larger ones get 413. 0 means
	// 3 MiB, as Kubernetes.
	MaxBodyBytes int64

	// DisableWatchList turns off Kubernetes' WatchList feature: watches
	// are not served as streaming lists and sendInitialEvents is refused.
	DisableWatchList bool

	// Logger receives one line per request and the server's events. nil
	// means no logging.
	Logger *slog.Logger

	// Now is the server's clock. nil means time.Now.
	Now func() time.Time

	// Rand is the source of uids and generated names. nil means
	// crypto/rand; tests set a seeded source for reproducible output.
	Rand io.Reader
}

// resource is one served resource: its description, its part of the
// store, and the broadcaster of its watches.
type resource struct {
	def     *Resource
	gr      status.GroupResource
	store   *store.Resource[Object]
	bcast   *watch.Broadcaster[Object]
	codec   *codec
	maxBody int64         // request body limit
	fields  *fieldManager // managedFields and server-side apply
}

// Server is a Kubernetes-compatible API server for the types of package
// api, in memory. It is an http.Handler; create it with New and stop it
// with Shutdown.
type Server struct {
	opts   Options
	log    *slog.Logger
	now    func() time.Time
	store  *store.Store[Object]
	rvConf rv.Config

	resources []*resource
	byPath    map[string]*resource // "<groupVersion>/<plural>"
	byDef     map[*Resource]*resource
	disco     *discovery

	closing  atomic.Bool
	mu       sync.Mutex   // guards httpSrv
	httpSrv  *http.Server // set by Serve
	shutdown sync.Once
}

// New returns a Server with empty storage, ready to serve.
func New(opts Options) (*Server, error) {
	s := &Server{
		opts:   opts,
		log:    opts.Logger,
		now:    opts.Now,
		rvConf: rv.Config{DisableWatchList: opts.DisableWatchList},
		byPath: map[string]*resource{},
		byDef:  map[*Resource]*resource{},
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.store = store.New(store.Options[Object]{
		DeepCopy:      func(o Object) Object { return o.DeepCopyObject() },
		Equal:         sameObject,
		Now:           s.now,
		Rand:          opts.Rand,
		HistoryWindow: opts.HistoryWindow,
		MaxRevisions:  opts.MaxRevisions,
		FutureWait:    opts.FutureWait,
	})
	defs := opts.Resources
	var err error
	if s.disco, err = buildDiscovery(defs, opts.Version); err != nil {
		return nil, err
	}
	wopts := watch.Options{
		BookmarkInterval: opts.BookmarkInterval,
		MinTimeout:       opts.WatchTimeout,
		FutureWait:       opts.FutureWait,
	}
	types := newApplyTypes(defs)
	for _, d := range defs {
		r := &resource{def: d, gr: status.GroupResource{Group: d.Group, Resource: d.Plural}, fields: newFieldManager(types, d)}
		fields := make(map[string]func(Object) string, len(d.Fields))
		for k, f := range d.Fields {
			fields[k] = f
		}
		r.store = s.store.Resource(store.ResourceOptions[Object]{
			GroupResource: r.gr,
			Kind:          d.Kind,
			Namespaced:    d.Namespaced,
			Fields:        fields,
			Finalizers:    d.Finalizers,
		})
		r.codec = newCodec(d, s.store, s.now)
		r.maxBody = s.maxBody()
		r.bcast = watch.NewBroadcaster[Object](r.store.Source(), watch.ObjectFuncs[Object]{
			Bookmark:    r.bookmark,
			WithVersion: withVersion,
		}, wopts)
		s.resources = append(s.resources, r)
		path := d.GroupVersion() + "/" + d.Plural
		if s.byPath[path] != nil || s.byDef[d] != nil {
			return nil, fmt.Errorf("server: resource %s served twice", path)
		}
		s.byPath[path] = r
		s.byDef[d] = r
	}
	return s, nil
}

// bookmark is the object of a BOOKMARK event: the zero object of the
// resource's type with only its resourceVersion (and the initial-events-end
// annotation when asked).
func (r *resource) bookmark(rev rv.Version, initialEventsEnd bool) Object {
	o := r.def.New()
	m := o.Meta()
	m.ResourceVersion = rev.String()
	if initialEventsEnd {
		m.Annotations = map[string]string{meta.InitialEventsAnnotation: "true"}
	}
	return o
}

// withVersion returns a deep copy of o at resourceVersion rev (the
// object of a DELETED event carries the deletion's resourceVersion).
func withVersion(o Object, rev rv.Version) Object {
	c := o.DeepCopyObject()
	c.Meta().ResourceVersion = rev.String()
	return c
}

// Store returns the store that holds every served resource, in one
// revision space: controllers wait on its Changed and read its Revision.
func (s *Server) Store() *store.Store[Object] { return s.store }

// StoreOf returns the store of res, one of Options.Resources, or nil if
// res is not served. Writes through it bypass the HTTP layer's defaulting,
// validation and admission (controllers use it to change what they own).
func (s *Server) StoreOf(res *Resource) *store.Resource[Object] {
	if r := s.byDef[res]; r != nil {
		return r.store
	}
	return nil
}

// BroadcasterOf returns the watch broadcaster of res, one of
// Options.Resources, or nil if res is not served: for watches inside the
// process, and for its Stats.
func (s *Server) BroadcasterOf(res *Resource) *watch.Broadcaster[Object] {
	if r := s.byDef[res]; r != nil {
		return r.bcast
	}
	return nil
}

// Logger returns the server's logger (Options.Logger, or one that
// discards).
func (s *Server) Logger() *slog.Logger { return s.log }

// Compact discards all history up to the current revision, as if the
// retention window had passed: reads and watches at older resourceVersions
// answer 410 Gone from now on. It returns the compaction revision. Tests
// use it to exercise clients' handling of 410.
func (s *Server) Compact() rv.Version {
	return s.store.Compact(s.store.Revision())
}

// Revision returns the latest resourceVersion the server has written.
func (s *Server) Revision() rv.Version { return s.store.Revision() }

// ListenAndServe listens on Options.Addr (DefaultAddr if empty) and
// serves until Shutdown, when it returns http.ErrServerClosed.
func (s *Server) ListenAndServe() error {
	addr := s.opts.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(l)
}

// Serve serves on l until Shutdown, when it returns http.ErrServerClosed.
func (s *Server) Serve(l net.Listener) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		l.Close()
		return http.ErrServerClosed
	}
	s.httpSrv = hs
	s.mu.Unlock()
	return hs.Serve(l)
}

// Shutdown stops the server gracefully: it ends every watch stream (their
// clients see the end of the response, as when a Kubernetes server
// restarts) and, if Serve is running,
// shuts its http.Server down, waiting for in-flight requests until ctx is
// done. Requests arriving during shutdown get 503. It is safe to call more
// than once.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.shutdown.Do(func() {
		s.mu.Lock()
		s.closing.Store(true)
		hs := s.httpSrv
		s.mu.Unlock()
		for _, r := range s.resources {
			r.bcast.Close()
		}
		if hs != nil {
			if e := hs.Shutdown(ctx); e != nil && err == nil {
				err = e
			}
		}
	})
	return err
}

var errShuttingDown = status.NewServiceUnavailable("the server is shutting down")
