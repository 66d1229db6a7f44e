package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/managedfields"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/metrics"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server/connlimit"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/tracing"
	"github.com/apisem/apisem/version"
	"github.com/apisem/apisem/watch"
)

// DefaultAddr is where ListenAndServe listens unless Options.Addr says
// otherwise.
const DefaultAddr = "127.0.0.1:8080"

// Options configure a Server. The zero value means the defaults written
// next to each field. The fields most servers set are at the top; the
// others are grouped by concern (History, Watch, Limits, Security,
// Hooks), each group's zero value meaning its defaults, so a server sets
// only the fields it changes:
//
//	server.Options{
//		Resources: resources,
//		Watch:     server.WatchOptions{BookmarkInterval: 10 * time.Second},
//		Security:  server.SecurityOptions{Authorizer: authz},
//	}
type Options struct {
	// Resources are the served resources. The server keeps the pointers:
	// they identify the resources in Create and StoreOf, and must not be
	// changed after New.
	Resources []*Resource

	// Admission is asked about every write, as Kubernetes' admission
	// control: creates, updates (PUT, patches, server-side apply, the
	// status and scale subresources) and deletions (one by one in a
	// deletecollection). The zero value admits everything. Kubernetes'
	// NamespaceLifecycle, which refuses content in a namespace that is
	// missing or terminating, is a typical Mutate.
	Admission Admission

	// GarbageCollection says that a garbage collector acts on deletions'
	// propagation policies, as kube-apiserver's store assumes with
	// --enable-garbage-collector (its default): a delete with
	// propagationPolicy Foreground (or Orphan, or orphanDependents=true)
	// then puts the foregroundDeletion (orphan) finalizer on the object
	// and answers 200 with it marked, for the collector to finish.
	// Without it the server, which has no collector of its own, answers
	// as kube-apiserver with the collector turned off: the policy is
	// checked and otherwise ignored, so that no object waits for ever for
	// a finalizer nobody removes.
	GarbageCollection bool

	// Version is what /version reports; see Version for the defaults.
	Version version.Info

	// Addr is the address ListenAndServe listens on. "" means DefaultAddr.
	Addr string

	// Storage makes the storage of the served resources from the options
	// of the in-memory store the server uses by default (clock, history
	// window, object equality...), which a storage that replicates into
	// memory takes over. nil means that in-memory store. The server closes
	// the storage at the end of Shutdown.
	Storage func(opts store.Options[Object]) (Storage, error)

	// Logger receives one line per request and the server's events. nil
	// means no logging.
	Logger *slog.Logger

	// Now is the server's clock. nil means time.Now.
	Now func() time.Time

	// Rand is the source of uids and generated names. nil means
	// crypto/rand; tests set a seeded source for reproducible output.
	Rand io.Reader

	// History is the retention of past revisions.
	History HistoryOptions

	// Watch configures watches and reads at a resourceVersion.
	Watch WatchOptions

	// Limits are the size limits and the limits of the HTTP edge against
	// slow and hostile clients.
	Limits LimitOptions

	// Security is authentication, authorization and TLS
	// (server/auth.go).
	Security SecurityOptions

	// Hooks extend the server with the user's filters, health checks and
	// metrics.
	Hooks HookOptions
}

// HistoryOptions are the retention of the history of writes, which serves
// resourceVersion reads and watch resumption; a revision past it answers
// 410 Gone. The zero value means the defaults written next to each field.
//
// History is bounded by time, revisions and estimated bytes
// (Options.History: Window, MaxRevisions, MaxBytes); what falls out
// of it answers 410 Gone, and it expires on a timer while the server is
// idle.
type HistoryOptions struct {
	// Window is how long the history of writes is kept; older revisions
	// answer 410 Gone. 0 means 5 minutes; negative means no time limit.
	Window time.Duration
	// MaxRevisions caps the number of revisions kept in history. 0 means
	// no cap.
	MaxRevisions uint64
	// MaxBytes caps the estimated memory of history: the objects written
	// within it and the encodings cached for them. Past it the oldest
	// revisions are compacted and answer 410 Gone, as expired ones. 0
	// means store.DefaultMaxHistoryBytes (256 MiB); negative means no byte
	// limit.
	MaxBytes int64
}

// WatchOptions configure watches and reads at a resourceVersion. The zero
// value means Kubernetes' defaults.
type WatchOptions struct {
	// BookmarkInterval is the period of BOOKMARK events on watches that
	// allow them. 0 means one minute, as Kubernetes.
	BookmarkInterval time.Duration
	// Timeout is the minimum length of a watch without timeoutSeconds: it
	// ends after a random duration between Timeout and twice that. 0
	// means 30 minutes, as Kubernetes.
	Timeout time.Duration
	// FutureWait is how long a read or watch at a resourceVersion the
	// server has not reached yet waits before the 504 "Too large resource
	// version". 0 means 3 seconds, as Kubernetes' watch cache.
	FutureWait time.Duration
	// DisableWatchList turns off Kubernetes' WatchList feature: watches
	// are not served as streaming lists and sendInitialEvents is refused.
	DisableWatchList bool
}

// LimitOptions are the size limits and the limits of the HTTP edge
// against slow and hostile clients; each 0 means kube-apiserver's default
// (see the Default constants). HookOptions shows where in the filter
// chain each applies.
//
// The handler bounds every request as kube-apiserver does, so that slow
// or stuck clients cannot hold memory, goroutines or connections: a
// deadline (Options.Limits.RequestTimeout, 60 s, answered with the 504 Timeout
// Status), a body read deadline, caps on the reads and writes in flight
// (400 and 200, answered with 429 and Retry-After), and write deadlines,
// which also drop a watcher whose client stops reading. Serve adds header
// and idle timeouts and a header size limit; Shutdown closes what its
// grace period did not end. Each field below documents its limit and
// default; all but Serve's hold for httptest servers too.
//
// A list response never holds the list: compact JSON and protobuf lists
// are written from the items' cached encodings, other forms (YAML,
// indented JSON, Tables, PartialObjectMetadata) are converted one item at
// a time, and those conversions share Options.Limits.MaxListEncodingBytes. A
// response therefore holds a few of its items, whatever the list's size.
type LimitOptions struct {
	// MaxObjectBytes limits the size of a stored object (its JSON), as
	// etcd's request limit does for kube-apiserver, which answers a larger
	// one with etcd's 500 "etcdserver: request is too large"; the
	// in-memory store and an etcd backend then refuse the same objects. 0
	// means validation.MaxObjectBytes (1.5 MiB, etcd's default).
	MaxObjectBytes int

	// MaxBodyBytes limits request bodies; larger ones get 413. 0 means
	// 3 MiB, as Kubernetes.
	MaxBodyBytes int64

	// MaxListEncodingBytes bounds the memory that list responses together
	// spend at once converting items from their cached JSON to another
	// form (YAML, indented JSON, Table rows, PartialObjectMetadata): each
	// list converts one item at a time, reserving a multiple of its size
	// first and releasing it before writing the result, so concurrent
	// lists wait for each other (until their client gives up) rather than
	// multiply memory, and a slow client holds no reservation. Compact
	// JSON and protobuf lists are written from the cached encodings and
	// need none. An item larger than the limit is converted alone. 0
	// means 64 MiB; negative means no limit.
	MaxListEncodingBytes int64

	// RequestTimeout bounds every request but watches: past it the
	// client gets the 504 Timeout Status. A request's ?timeout= may
	// shorten it. 0 means 60 seconds (--request-timeout).
	RequestTimeout time.Duration
	// BodyReadTimeout bounds the reading of a request's body (a body that
	// trickles in is answered with the same 504). 0 means RequestTimeout.
	BodyReadTimeout time.Duration
	// WriteTimeout bounds each write of a watch stream, never past the
	// watch's own timeout: a watcher whose client stops reading is
	// dropped, its connection closed. The deadline is renewed only once
	// it would move by a tenth of WriteTimeout (at most a second), so a
	// stuck write may end that much before WriteTimeout. It is also the
	// grace a response has past its request's deadline. 0 means 10
	// seconds.
	WriteTimeout time.Duration
	// MaxRequestsInFlight caps the reads (GET) served at once, watches
	// and health checks apart; one more is refused with 429 and
	// Retry-After: 1. 0 means 400 (--max-requests-inflight); negative,
	// no cap.
	MaxRequestsInFlight int
	// MaxMutatingRequestsInFlight caps the writes served at once likewise.
	// 0 means 200 (--max-mutating-requests-inflight); negative, no cap.
	MaxMutatingRequestsInFlight int
	// ReadHeaderTimeout, IdleTimeout and MaxHeaderBytes are those of the
	// http.Server of Serve. 0 means 32 seconds, 90 seconds and 1 MiB.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	MaxHeaderBytes    int
	// Connections caps the connections Serve accepts, in total and per
	// client address, and keeps a reserve over the caps in which only
	// health checks are served; past it connections are closed as soon
	// as they are accepted. The zero value derives the caps from the
	// process's limit on open files (see connlimit.Limits).
	Connections connlimit.Limits
}

// SecurityOptions are authentication, authorization and TLS. The zero
// value serves plain HTTP to anyone, as a server for trusted callers
// only.
//
// Options.Security.Authenticator and Authorizer (package auth) run before
// every handler, as in Kubernetes: 401 Unauthorized for a request no
// authenticator accepts, 403 Forbidden for one the authorizer does not
// allow, with Kubernetes' attributes and messages; handlers find the user
// with auth.UserFrom. They run in Kubernetes' filter order: the request's
// deadline, then authentication, then the in-flight limit, then
// authorization, so that an authenticator is bounded by the deadline and
// only authenticated requests take (and wait for authorization in) the
// in-flight slots. Options.Security.TLS makes Serve speak HTTPS and HTTP/2
// (package auth/certs builds it). Left nil, the server is open over plain
// HTTP, for trusted callers and tests.
type SecurityOptions struct {
	// Authenticator establishes the user of every request; a request it
	// does not accept is a 401 Unauthorized. The user is in the context
	// of the handlers (auth.UserFrom). nil means requests are served
	// without a user, as a server for trusted callers only.
	Authenticator auth.Authenticator
	// Authorizer decides what each request may do; a request it does not
	// allow is a 403 Forbidden. nil means everything is allowed.
	Authorizer auth.Authorizer
	// TLS, when set, makes Serve and ListenAndServe speak HTTPS (and
	// HTTP/2) with it; package auth/certs builds one that requests the
	// client certificates the authenticators need. nil means plain HTTP.
	TLS *tls.Config
}

// HookOptions extend the server with the user's own code around the
// handler. The zero value adds nothing.
//
// A request runs through the filters, each a func(http.Handler) http.Handler, in Kubernetes'
// order:
//
//	deadline        Limits.RequestTimeout or a shorter ?timeout= (504); not for watches
//	authentication  Security.Authenticator (401)
//	tracing         Hooks.Tracer: the request's span, a child of a trusted
//	                caller's traceparent (server/trace.go)
//	Hooks.Audit     the audit log (package audit), which sees the 429s and 403s below
//	in flight       Limits.MaxRequestsInFlight, MaxMutatingRequestsInFlight (429);
//	                not for watches and health checks
//	authorization   Security.Authorizer (403), from the URL alone
//	Hooks.Filters   the user's own, the first outermost
//	handler         health, discovery, OpenAPI, /debug/pprof (unless
//	                Hooks.DisableProfiling), the resources' verbs
//
// A user's filter therefore sees only requests the server's filters let
// through, with auth.UserFrom and RequestInfoFrom in their context, and
// runs inside the request's deadline and in-flight slot; it sees a
// request for a resource the server does not serve (the handler answers
// its 404).
//
// Store, StoreOf and BroadcasterOf give controllers in the same process the store and the
// watches the HTTP layer uses. AddResource and RemoveResource change what
// is served while the server runs, as CustomResourceDefinitions do;
// ResourcesChanged tells controllers that act on every resource (package
// gc) when.
// Options.Hooks.Metrics receives each request with kube-apiserver's metric
// labels (package metrics serves them at /metrics). Options.Hooks.Tracer
// traces requests as kube-apiserver's --tracing-config-file does (package
// tracing; the nested module tracing/otel for OpenTelemetry), and
// /debug/pprof serves Go's profiles behind the authorizer, as its
// --profiling does.
type HookOptions struct {
	// Filters wrap the handler with the user's own filters (audit,
	// metrics, CORS, headers), the first outermost. They run after
	// authorization, just before the handler: inside the request's
	// deadline and in-flight slot, for authenticated and authorized
	// requests only (a 401, 403, 429 or 504 of the server's own filters
	// never reaches them), with the user (auth.UserFrom) and the request
	// (RequestInfoFrom) in the context; watches pass through them too,
	// without a deadline. Health checks and discovery pass through them
	// as well. The full order is in the type's doc. nil entries are
	// skipped.
	Filters []func(http.Handler) http.Handler

	// Audit wraps everything after authentication with the audit log's
	// filter (package audit), where kube-apiserver has it: before the
	// in-flight limits and authorization, so that it sees the requests
	// they refuse too, with the user (auth.UserFrom) and the request
	// (RequestInfoFrom) in the context. The server tells its response
	// writer what it decides (AuditRecorder). A request no authenticator
	// accepts passes through it alone on its way to the 401
	// (AuthenticationFailed). nil means no audit.
	Audit func(http.Handler) http.Handler

	// HealthChecks are checks of /livez, /readyz and /healthz beyond the
	// server's own ("ping", and "shutdown" on readyz), listed between
	// them in this order: a storage's reachability, a controller's first
	// pass. Each is bounded by its Timeout, so a hung dependency fails its
	// check rather than hanging the endpoint. nil means the server's own
	// checks alone.
	HealthChecks []HealthCheck

	// Metrics receives the server's measurements (request counts and
	// durations, watches, watch events) with kube-apiserver's metric
	// labels; if it is an http.Handler too (metrics.Recorder), the server
	// serves it at /metrics behind the authorizer. nil measures nothing.
	Metrics metrics.Observer

	// Tracer, if set, traces each authenticated request in a span of its
	// own, a child of the caller's W3C traceparent when the caller may
	// choose the trace (server/trace.go); the storage's spans are its
	// children. The nested module tracing/otel is one, for
	// OpenTelemetry. nil traces nothing, at no cost.
	Tracer tracing.Tracer

	// DisableProfiling turns off /debug/pprof, which is served by
	// default behind the authenticator and the authorizer as a
	// non-resource URL, as kube-apiserver's --profiling (server/debug.go).
	DisableProfiling bool
}

// resource is one served resource: its description, its part of the
// store, and the broadcaster of its watches.
type resource struct {
	def     *Resource
	gr      status.GroupResource
	store   store.Backend[Object]
	bcast   *watch.Broadcaster[Object]
	codec   *codec
	maxBody int64         // request body limit
	fields  *fieldManager // managedFields and server-side apply
	// scale describes the Scale objects of the scale subresource; nil
	// without one (Resource.Scale). scaleMap maps managedFields between
	// the object and its Scale view.
	scale    *resource
	scaleMap managedfields.ScaleMapping
}

// Server is a Kubernetes-compatible API server for the types of package
// api, in memory. It is an http.Handler; create it with New and stop it
// with Shutdown.
//
// Package rv decides what each request's query means; store keeps the
// objects of all resources in one revision space (one resourceVersion
// sequence, as one etcd) and answers reads, writes and list pages; a
// watch.Broadcaster per resource serves the watches; negotiation chooses
// media types, reads bodies, converts to Tables and PartialObjectMetadata,
// frames watch streams and renders errors; envelope writes the protobuf
// forms. Each stored version is encoded once per form and shared by list
// pages, responses and watch events.
type Server struct {
	opts   Options
	log    *slog.Logger
	now    func() time.Time
	store  *store.Store[Object] // storage.Store()
	rvConf rv.Config

	storage Storage
	// handler is the filter chain ending in serve (server/filters.go).
	handler http.Handler

	// reg is what is served now; AddResource and RemoveResource publish
	// a new one (under regMu), so requests read it without locking.
	reg   atomic.Pointer[registry]
	regMu sync.Mutex
	wopts watch.Options

	edge  *edge
	conns conns // of Serve's http.Server
	// listBudget bounds the memory list conversions hold at once
	// (Options.Limits.MaxListEncodingBytes); nil means no limit.
	listBudget *negotiation.Budget

	health map[string][]healthCheck // the checks of each health endpoint
	// inflight are the encodings of the objects the write pipeline is
	// handing to the store.
	inflight inflight

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
		rvConf: rv.Config{DisableWatchList: opts.Watch.DisableWatchList},
		edge:   newEdge(&opts.Limits),

		listBudget: newListBudget(opts.Limits.MaxListEncodingBytes),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.handler = s.chain()
	if s.now == nil {
		s.now = time.Now
	}
	var err error
	if s.health, err = healthChecks(opts.Hooks.HealthChecks, s.log); err != nil {
		return nil, err
	}
	so := store.Options[Object]{
		DeepCopy:        func(o Object) Object { return o.DeepCopyObject() },
		Equal:           s.inflight.sameObject,
		Now:             s.now,
		Rand:            opts.Rand,
		HistoryWindow:   opts.History.Window,
		MaxRevisions:    opts.History.MaxRevisions,
		MaxHistoryBytes: opts.History.MaxBytes,
		FutureWait:      opts.Watch.FutureWait,
	}
	if opts.Storage == nil {
		s.storage = newMemStorage(so)
	} else {
		if s.storage, err = opts.Storage(so); err != nil {
			return nil, err
		}
	}
	s.store = s.storage.Store()
	s.wopts = watch.Options{
		BookmarkInterval: opts.Watch.BookmarkInterval,
		MinTimeout:       opts.Watch.Timeout,
		FutureWait:       opts.Watch.FutureWait,
	}
	reg, err := s.withResources(&registry{}, opts.Resources, nil)
	if err != nil {
		return nil, errors.Join(err, s.storage.Close())
	}
	s.reg.Store(reg)
	s.storage.Start()
	return s, nil
}

// registry is one state of what the server serves. It is never changed
// once published.
type registry struct {
	resources []*resource
	byPath    map[string]*resource // "<groupVersion>/<plural>"
	byDef     map[*Resource]*resource
	disco     *discovery
	replaced  chan struct{} // closed when another registry replaces this one
}

// withResources returns a registry that serves old's resources less
// remove, plus add. The resources of add get their store views and
// broadcasters; nothing of old changes.
func (s *Server) withResources(old *registry, add []*Resource, remove *Resource) (*registry, error) {
	reg := &registry{byPath: map[string]*resource{}, byDef: map[*Resource]*resource{}, replaced: make(chan struct{})}
	var defs []*Resource
	keep := func(r *resource) error {
		path := r.def.GroupVersion() + "/" + r.def.Plural
		if reg.byPath[path] != nil || reg.byDef[r.def] != nil {
			return fmt.Errorf("server: resource %s served twice", path)
		}
		reg.resources = append(reg.resources, r)
		reg.byPath[path] = r
		reg.byDef[r.def] = r
		defs = append(defs, r.def)
		return nil
	}
	for _, r := range old.resources {
		if r.def != remove {
			keep(r) // distinct in old already
		}
	}
	var added []*resource
	for _, d := range add {
		r, err := s.newResource(d)
		if err != nil {
			closeAll(added)
			return nil, err
		}
		added = append(added, r)
		if err := keep(r); err != nil {
			closeAll(added)
			return nil, err
		}
	}
	// The definitions of old are kept and only those added checked: a
	// server adding resources one at a time would otherwise walk every
	// schema on each addition.
	var prev *definitions
	newDefs := defs
	if remove == nil && old.disco != nil {
		prev, newDefs = old.disco.defs, defs[len(old.resources):]
	}
	openAPIDefs, err := prev.with(newDefs)
	if err != nil {
		closeAll(added)
		return nil, err
	}
	if reg.disco, err = buildDiscovery(defs, openAPIDefs, s.opts.Version); err != nil {
		closeAll(added)
		return nil, err
	}
	return reg, nil
}

func closeAll(rs []*resource) {
	for _, r := range rs {
		r.bcast.Close()
	}
}

// newResource makes d's storage, codec and broadcaster.
func (s *Server) newResource(d *Resource) (*resource, error) {
	if d.Create != nil && !slices.Equal(d.Verbs, []string{"create"}) {
		return nil, fmt.Errorf("server: resource %s/%s has Create and serves %q: a resource with Create serves create alone", d.GroupVersion(), d.Plural, d.Verbs)
	}
	r := &resource{def: d, gr: status.GroupResource{Group: d.Group, Resource: d.Plural}, fields: newFieldManager(d, s.versionOf)}
	fields := make(map[string]func(Object) string, len(d.Fields))
	for k, f := range d.Fields {
		fields[k] = f
		if d.Read != nil {
			// Selectors see objects as reads return them.
			fields[k] = func(o Object) string { return f(d.readOrSelf(o)) }
		}
	}
	var err error
	r.store, err = s.storage.Backend(d, store.ResourceOptions[Object]{
		GroupResource: r.gr,
		Kind:          d.Kind,
		Namespaced:    d.Namespaced,
		Fields:        fields,
		UnknownField:  unknownField(d),
		Finalizers:    d.Finalizers,
		Prefix:        d.StorageResource.String(), // "" without one: GroupResource's
		EtcdPrefix:    d.EtcdPrefix,
	})
	if err != nil {
		return nil, err
	}
	r.codec = newCodec(d, r.store.Store(), s.now, &s.inflight)
	r.maxBody = s.maxBody()
	if d.Scale != nil {
		sd := scaleResource(d)
		r.scale = &resource{def: sd, gr: r.gr, codec: newCodec(sd, s.store, s.now, &s.inflight), maxBody: r.maxBody, fields: newFieldManager(sd, nil)}
		r.scaleMap = scaleMapping(d)
	}
	r.bcast = watch.NewBroadcaster[Object](r.store.Source(), watch.ObjectFuncs[Object]{
		Bookmark:    r.bookmark,
		WithVersion: withVersion,
	}, s.wopts)
	return r, nil
}

// unknownField is d.UnknownField or its default: nil, the store's
// default text, where that is kube-apiserver's.
func unknownField(d *Resource) func(string) string {
	if d.UnknownField == nil && (d.Custom || len(d.Fields) > 0) {
		return func(label string) string { return "field label not supported: " + label }
	}
	return d.UnknownField
}

// AddResource starts serving res while the server runs, as Kubernetes
// starts serving a CustomResourceDefinition's resource once it is
// established: its paths, discovery and OpenAPI documents. Objects a
// resource with the same group, resource name and scope stored before
// are served again. It fails when the group, version and resource are
// served already or after Shutdown.
func (s *Server) AddResource(res *Resource) error {
	s.regMu.Lock()
	defer s.regMu.Unlock()
	if s.closing.Load() {
		return errShuttingDown
	}
	reg, err := s.withResources(s.reg.Load(), []*Resource{res}, nil)
	if err != nil {
		return err
	}
	s.publishLocked(reg)
	return nil
}

// RemoveResource stops serving res: its paths answer 404, discovery and
// OpenAPI no longer list it, and its watches end once they have been sent
// every event written before the call (the DELETED events of the objects
// a caller deleted first, say). Its objects stay in the
// store (a caller that removes a resource for good deletes them first, as
// Kubernetes does when a CustomResourceDefinition is deleted). It fails
// when res is not served.
func (s *Server) RemoveResource(res *Resource) error {
	s.regMu.Lock()
	defer s.regMu.Unlock()
	old := s.reg.Load()
	r := old.byDef[res]
	if r == nil {
		return errors.New("server: RemoveResource of a resource the server does not serve")
	}
	reg, err := s.withResources(old, nil, res)
	if err != nil {
		return err
	}
	s.publishLocked(reg)
	r.bcast.CloseAfter(s.store.Revision())
	return nil
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
func (s *Server) StoreOf(res *Resource) store.Backend[Object] {
	if r := s.reg.Load().byDef[res]; r != nil {
		return r.store
	}
	return nil
}

// Resources returns the resources served now: Options.Resources and
// those AddResource added, less those RemoveResource removed. Controllers
// that act on every resource (a namespace's deletion) read it each time.
func (s *Server) Resources() []*Resource {
	rs := s.reg.Load().resources
	out := make([]*Resource, len(rs))
	for i, r := range rs {
		out[i] = r.def
	}
	return out
}

// BroadcasterOf returns the watch broadcaster of res, one of
// Options.Resources, or nil if res is not served: for watches inside the
// process, and for its Stats.
func (s *Server) BroadcasterOf(res *Resource) *watch.Broadcaster[Object] {
	if r := s.reg.Load().byDef[res]; r != nil {
		return r.bcast
	}
	return nil
}

// Logger returns the server's logger (Options.Logger, or one that
// discards).
func (s *Server) Logger() *slog.Logger { return s.log }

// Now returns the time on the server's clock (Options.Now), which what
// runs beside the server, such as package crd's controller, stamps its
// writes with.
func (s *Server) Now() time.Time { return s.now() }

// Compact discards all history up to the current revision, as if the
// retention window had passed: reads and watches at older resourceVersions
// answer 410 Gone from now on. It returns the compaction revision. Tests
// use it to exercise clients' handling of 410. A storage that fails to
// compact (etcd unreachable) is logged, and nothing is compacted.
func (s *Server) Compact() rv.Version {
	c, err := s.storage.Compact(context.Background())
	if err != nil {
		s.log.Error("compaction failed", "err", err)
		return s.store.CompactedRevision()
	}
	return c
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
// Its http.Server has Options' connection limits (ReadHeaderTimeout,
// IdleTimeout, MaxHeaderBytes, Connections).
func (s *Server) Serve(l net.Listener) error {
	hs := s.httpServer()
	l = s.connLimits().Wrap(l, hs)
	hs.ErrorLog = slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		l.Close()
		return http.ErrServerClosed
	}
	s.httpSrv = hs
	s.mu.Unlock()
	// --- TLS (server/auth.go) ---
	if s.opts.Security.TLS != nil {
		// ServeTLS, unlike Serve on a TLS listener, sets up HTTP/2.
		hs.TLSConfig = s.opts.Security.TLS
		return hs.ServeTLS(l, "", "")
	}
	return hs.Serve(l)
}

// Shutdown stops the server gracefully: it ends every watch stream (their
// clients see the end of the response, as when a Kubernetes server
// restarts) and, if Serve is running, shuts its http.Server down, waiting
// for in-flight requests until ctx is done. Then it closes the connections
// left, which only clients that do not finish can hold (one that stopped
// reading, say), and logs how many: that is not an error, Shutdown returns
// nil. Requests arriving during shutdown get 503. It is safe to call more
// than once.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.shutdown.Do(func() {
		s.mu.Lock()
		s.closing.Store(true)
		hs := s.httpSrv
		s.mu.Unlock()
		s.regMu.Lock() // no AddResource from here on
		closeAll(s.reg.Load().resources)
		s.regMu.Unlock()
		s.store.Close()
		if hs != nil {
			err = s.shutdownHTTP(ctx, hs)
		}
		err = errors.Join(err, s.storage.Close())
	})
	return err
}

var errShuttingDown = status.NewServiceUnavailable("the server is shutting down")
