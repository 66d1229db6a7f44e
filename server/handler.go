package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/store/selector"
)

// maxBody is the request body limit.
func (s *Server) maxBody() int64 {
	if s.opts.Limits.MaxBodyBytes > 0 {
		return s.opts.Limits.MaxBodyBytes
	}
	return negotiation.DefaultMaxBodyBytes
}

// statusRecorder remembers the code a handler wrote and the user who
// sent the request, for the request log, and the body's size, for
// Options.Hooks.Metrics.
type statusRecorder struct {
	http.ResponseWriter
	code  int
	user  string
	bytes int64
}

// noteUser tells the request log behind w who sent the request.
func noteUser(w http.ResponseWriter, name string) {
	for {
		switch t := w.(type) {
		case *statusRecorder:
			t.user = name
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return
		}
	}
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush passes flushes through, which watch streams need.
func (w *statusRecorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ServeHTTP serves the Kubernetes API: discovery, /version, OpenAPI and
// the served resources. It parses the request once, then runs it
// through the filters (server/filters.go, HookOptions) to the handler.
//
// It parses each request once: its verb, group, version, resource,
// subresource, namespace, name, whether it is long-running (a watch), and
// its query, decoded in one pass. Every later stage reads that value, so
// they cannot disagree about what a request is (a watch spelled
// ?w%61tch=1 is a watch to all of them).
//
// Deletion follows kube-apiserver's store: an object with finalizers is
// marked (deletionTimestamp) and answered with 200, and the write that
// removes its last finalizer answers with the object as written and
// deletes it; an immediate deletion answers with a Status, for custom
// resources too; a DeleteOptions body of another kind is a 400. The
// server collects no garbage (no dependents are deleted or orphaned), so
// propagationPolicy is checked but otherwise ignored, as by
// kube-apiserver with its garbage collector turned off, unless
// Options.GarbageCollection says a collector runs: Foreground and Orphan
// then mark the object with the foregroundDeletion or orphan finalizer
// for it to remove.
//
// Where kube-apiserver's answer is a quirk, it is kept so that clients
// see one answer: a get or watch with a resourceVersion that is not a
// number is a 500 with no reason (its watch cache passes on a bare field
// error; a list's is the 400); a path outside the API, or in a group not
// served, gets Go's plain-text "404 page not found"; / lists the served
// paths. A method a path does not take is the 405 kube-apiserver's
// router gives built-in resources (`the server does not allow this method
// on the requested resource`), for custom resources too, whose handler
// answers such requests with whatever its parsing meets first (400, 404
// or 415). A request for a resource that is not Resource.Custom first
// meets that router's checks of the Accept header and a patch's
// Content-Type, with their own 406 and 415 texts: so Accept:
// application/* alone is refused there, and taken (as JSON) by a custom
// resource.
//
// A path with an empty segment (two slashes) is answered as
// kube-apiserver answers it where that is an error or a read: an empty
// name before a subresource (.../pods//status is 400 `name must be
// provided` for get, update and patch); an empty namespace of a built-in
// resource (/api/v1/namespaces//configmaps lists and watches every
// namespace; with a name, or a deletecollection that finds something to
// delete, it is 400 `Namespace parameter required.`; a create decodes
// its body, drops the body's namespace and is refused by validation,
// 422 `metadata.namespace: Required value`); a custom resource's paths,
// read as kube-apiserver's request info reads them (with an empty
// namespace, only a list or watch is served). Elsewhere it is a 404.
// Where two errors apply, the order of a cluster's checks
// is followed for those of the router (405, 406, 415) and of a patch's
// media type; the others' order may differ.
//
// /api names the address the client reached as the server's
// (serverAddressByClientCIDRs), where kube-apiserver names its
// --advertise-address: a server built on this package may sit behind
// any address, and knows only the one it was reached at.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rq := parseRequest(r)
	rec := &rq.rec
	rec.ResponseWriter = w
	if rq.noInfo {
		serveNoInfo(rec, r)
	} else {
		s.handler.ServeHTTP(rec, withRequest(r, rq))
	}
	// Reads are routine; writes and failures are worth a line by default.
	level := slog.LevelDebug
	if r.Method != http.MethodGet || rec.code >= 400 {
		level = slog.LevelInfo
	}
	attrs := []slog.Attr{slog.String("method", r.Method), slog.String("uri", r.URL.RequestURI()),
		slog.Int("code", rec.code), slog.Duration("took", time.Since(start)),
		slog.String("agent", r.UserAgent())}
	if rec.user != "" {
		attrs = append(attrs, slog.String("user", rec.user))
	}
	s.log.LogAttrs(r.Context(), level, "request", attrs...)
}

// serveNoInfo answers a path that kube-apiserver cannot make its request
// info of, /api/v1/watch and /proxy (and /apis/<group>/<version>/...,
// served or not): its request info filter, which runs before
// authentication, answers with Go's plain-text 500 that quotes the
// request URI (k8s.io/apiserver/pkg/endpoints/filters/requestinfo.go and
// responsewriters.InternalError).
func serveNoInfo(w http.ResponseWriter, r *http.Request) {
	http.Error(w, fmt.Sprintf("Internal Server Error: %q: failed to create RequestInfo: unable to determine kind and namespace from url, %v",
		r.RequestURI, r.URL), http.StatusInternalServerError)
}

// errNamespaceRequired is Kubernetes' answer where its storage needs the
// namespace of a namespaced object and the request has none.
func errNamespaceRequired() error { return status.NewBadRequest("Namespace parameter required.") }

// serve is the handler at the end of the filter chain.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	if rq.health {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // kube-apiserver's mux serves /healthz, not /healthz/
			return
		}
		s.serveHealth(w, r, rq.segs)
		return
	}
	if s.closing.Load() {
		s.writeError(w, r, nil, errShuttingDown)
		return
	}
	switch {
	case rq.pathOK && !s.opts.Hooks.DisableProfiling && isDebugPath(rq.segs):
		s.serveDebug(w, r, rq.segs)
	case rq.pathOK && (len(rq.segs) == 0 || len(rq.segs) == 1 && rq.segs[0] == "index.html"):
		s.serveRoot(w)
	case !rq.pathOK && !rq.objectPath():
		s.notFound(w, r, rq.segs)
	case rq.info.ResourceRequest && !rq.core && s.reg.Load().disco.group[rq.info.Group] == nil:
		// No API router of kube-apiserver's claims a group it does not
		// serve.
		http.NotFound(w, r)
	case rq.info.ResourceRequest && !rq.core && !s.reg.Load().disco.builtin[rq.info.Group]:
		// A group of custom resources alone: what is not served there
		// is the plain-text 404 too (apiextensions-apiserver passes it
		// on).
		t, err := s.route(r.Method, rq)
		if err == errPassedOn || err != nil && s.lookup(rq) == nil {
			http.NotFound(w, r)
			return
		}
		s.serveTarget(w, r, t, err)
	case rq.info.ResourceRequest && (!rq.core || rq.info.Version == "v1"):
		s.serveResource(w, r, rq)
	default:
		s.serveDiscovery(w, r, rq.segs)
	}
}

func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, rq *request) {
	t, err := s.route(r.Method, rq)
	s.serveTarget(w, r, t, err)
}

// serveTarget serves the request for t, or answers route's error err.
func (s *Server) serveTarget(w http.ResponseWriter, r *http.Request, t *target, err error) {
	if err == errPassedOn {
		err = errNotFound()
	}
	if err != nil {
		s.writeError(w, r, nil, err)
		return
	}
	if !t.res.def.Custom {
		if err := routerAccepts(r.Header, t); err != nil {
			s.writeError(w, r, nil, err)
			return
		}
	}
	if t.noNamespace && t.name != "" {
		// Kubernetes' storage cannot make the object's key.
		s.writeError(w, r, t.res, errNamespaceRequired())
		return
	}
	if t.name == "" && t.sub != "" {
		// .../widgets//status: the handler needs the name first, after a
		// patch's media type (Kubernetes' PatchResource checks that
		// before it reads the path).
		err := error(status.NewBadRequest("name must be provided"))
		if t.verb == verbPatch {
			if _, perr := patchType(r, t); perr != nil {
				err = perr
			}
		}
		s.writeError(w, r, t.res, err)
		return
	}
	if text := t.res.def.DeprecationWarning; text != "" {
		r = withWarningsOf(w, r)
		AddWarning(r.Context(), text)
	}
	switch {
	case t.sub != "" && t.res.def.subresource(t.sub) != nil:
		err = s.serveSubresource(w, r, t)
	default:
		err = s.serveVerb(w, r, t)
	}
	// A verb returns an error only when it has written nothing yet.
	if err != nil {
		if t.verb == verbGet || t.verb == verbWatch {
			err = readVersionError(err)
		}
		s.writeError(w, r, t.res, err)
	}
}

// serveVerb serves t's verb on the object, its collection, or its status,
// scale or other object subresource.
func (s *Server) serveVerb(w http.ResponseWriter, r *http.Request, t *target) (err error) {
	switch t.verb {
	case verbGet:
		err = s.get(w, r, t)
	case verbList, verbWatch:
		err = s.listOrWatch(w, r, t)
	case verbCreate:
		err = s.create(w, r, t)
	case verbUpdate:
		err = s.update(w, r, t)
	case verbPatch:
		err = s.patch(w, r, t)
	case verbDelete:
		err = s.delete(w, r, t)
	case verbDeleteCollection:
		err = s.deleteCollection(w, r, t)
	}
	return err
}

// readVersionError turns the 400 for a resourceVersion that is not a
// number into the answer kube-apiserver gives a get or a watch: its watch
// cache returns the storage layer's bare field error, which no
// translation maps to a Status, so the client gets a 500 with no reason
// and the field error as the message. A 500 for a client's mistake is a
// quirk of the cluster's, kept so that clients see one answer (lists
// answer the 400).
func readVersionError(err error) error {
	var se *status.Error
	if !errors.Is(err, rv.ErrInvalidVersion) || !errors.As(err, &se) {
		return err
	}
	return &status.Error{Status: status.Status{
		Kind: "Status", APIVersion: "v1", Status: status.StatusFailure,
		Message: strings.TrimPrefix(se.Status.Message, "invalid resource version: "),
		Code:    http.StatusInternalServerError,
	}}
}

// endpoint describes what a resource's endpoint of shape resp serves and
// reads.
func (rs *resource) endpoint(resp negotiation.Response) negotiation.Endpoint {
	e := negotiation.Endpoint{Response: resp, MaxBodyBytes: rs.maxBody}
	if !rs.def.Protobuf() {
		e.MediaTypes = negotiation.JSON | negotiation.YAML
	}
	return e
}

// negotiate chooses the representation of a response of shape resp. A
// type without a protobuf form still has protobuf PartialObjectMetadata,
// as a custom resource in Kubernetes (which restricts only unconverted
// responses to the type's own serializers): the metadata client asks for
// it first. So the choice is made among everything first, and only a
// plain protobuf answer sends it back to the type's own media types.
func (rs *resource) negotiate(r *http.Request, resp negotiation.Response) (negotiation.Result, error) {
	if rs.def.Protobuf() {
		return rs.endpoint(resp).Negotiate(r)
	}
	res, err := negotiation.Endpoint{Response: resp}.Negotiate(r)
	if err != nil || res.MediaType == negotiation.Protobuf && res.Target == negotiation.TargetNone {
		return rs.endpoint(resp).Negotiate(r)
	}
	return res, nil
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, t *target) error {
	v := t.view()
	res, err := v.res.negotiate(r, negotiation.Object)
	if err != nil {
		return err
	}
	read, err := getRead(r)
	if err != nil {
		return err
	}
	// Only encoded: the stored object will do, and its encodings are
	// cached.
	o, err := t.res.store.View(r.Context(), t.namespace, t.name, read)
	if err != nil {
		return err
	}
	if v.get != nil {
		if o, err = t.res.def.read(o); err != nil {
			return readFailed(t.res, err, false)
		}
		if o, err = v.get(o); err != nil {
			return err
		}
	}
	return readFailed(t.res, s.writeObject(w, r, http.StatusOK, v.res, res, o), false)
}

// selectors parses the label and field selectors of a list, watch or
// deletecollection.
func selectors(rs *resource, o *rv.ListOptions) (selector.Labels, selector.Fields, error) {
	labels, err := selector.ParseLabels(o.LabelSelector)
	if err != nil {
		return labels, selector.Fields{}, err
	}
	fields, err := rs.store.ParseFieldSelector(o.FieldSelector)
	return labels, fields, err
}

// listOptions resolves the query of a list or deletecollection.
func (s *Server) listOptions(rs *resource, o rv.ListOptions) (store.ListOptions, error) {
	read, err := o.ResolveList()
	if err != nil {
		// ResolveList's only 400 beside a continue token refuses a
		// resourceVersion with it; Kubernetes decodes the token first,
		// so a bad token is what it names.
		if o.Continue != "" && status.IsBadRequest(err) {
			if terr := s.store.CheckContinue(o.Continue); terr != nil {
				err = terr
			}
		}
		return store.ListOptions{}, err
	}
	labels, fields, err := selectors(rs, &o)
	return store.ListOptions{Read: read, Labels: labels, Fields: fields}, err
}

func (s *Server) listOrWatch(w http.ResponseWriter, r *http.Request, t *target) error {
	opts, err := collectionOptions(r)
	if err != nil {
		return err
	}
	if t.verb == verbWatch {
		return s.watch(w, r, t, opts)
	}
	res, err := t.res.negotiate(r, negotiation.List)
	if err != nil {
		return err
	}
	lo, err := s.listOptions(t.res, opts)
	if err != nil {
		return err
	}
	page, err := t.res.store.List(r.Context(), t.namespace, lo)
	if err != nil {
		return err
	}
	return readFailed(t.res, s.writeList(w, r, t.res, res, pageMeta(page), page), true)
}

// ensureNamespace makes the namespace of o the request's: it fills it in
// when o has none and clears it for a cluster-scoped resource (the
// request's namespace is then ""); any other difference is a 400.
func ensureNamespace(t *target, m *meta.ObjectMeta) error {
	switch {
	case m.Namespace == t.namespace:
	case m.Namespace == "" || t.namespace == "":
		m.Namespace = t.namespace
	default:
		return status.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// readWrite begins a create or update: it negotiates the response, parses
// the write options of kind and decodes the body. Warn mode's warnings go
// out as Warning headers with whatever the response turns out to be, as
// Kubernetes sends them.
func (s *Server) readWrite(w http.ResponseWriter, r *http.Request, rs *resource, kind negotiation.OptionsKind) (negotiation.Result, writeOptions, Object, error) {
	res, err := rs.negotiate(r, negotiation.Object)
	if err != nil {
		return res, writeOptions{}, nil, err
	}
	opts, err := parseWriteOptions(r, kind, false)
	if err != nil {
		return res, opts, nil, err
	}
	o, warnings, err := s.decodeObject(r, rs, opts.FieldValidation)
	addWarnings(r.Context(), warnings)
	return res, opts, o, err
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, t *target) error {
	r = withWarningsOf(w, r)
	res, opts, o, err := s.readWrite(w, r, t.res, negotiation.CreateOptions)
	if err != nil {
		return err
	}
	if create := t.res.def.Create; create != nil {
		m := o.Meta()
		if err := ensureNamespace(t, m); err != nil {
			return err
		}
		// The system fields a client may not set, which kube-apiserver's
		// create handler wipes before any storage sees the object.
		m.UID, m.CreationTimestamp, m.DeletionTimestamp, m.DeletionGracePeriodSeconds = "", meta.Time{}, nil, nil
		// The handler records the writer in managedFields before Create
		// sees the object, as kube-apiserver's: a review answers them.
		enc, err := t.res.codec.encode(o)
		if err != nil {
			return err
		}
		s.recordWrite(&write{t: t, obj: o, enc: enc}, &opts.owner)
		out, err := create(r.Context(), CreateRequest{Object: o, Namespace: t.namespace, DryRun: opts.DryRun, Server: s,
			Authorizer: s.opts.Security.Authorizer, Authenticator: s.opts.Security.Authenticator})
		if err != nil {
			return err
		}
		if out != nil { // a review: the object itself is the answer
			return s.writeObject(w, r, http.StatusCreated, t.res, res, out)
		}
		// kube-apiserver's create handler gives the Status the code.
		return s.writeSuccess(w, r, res, http.StatusCreated, status.Status{Kind: "Status", APIVersion: "v1",
			Status: status.StatusSuccess, Code: http.StatusCreated})
	}
	// The result is only encoded: the stored object itself will do, and
	// shares its encodings with the watchers of the write.
	out, done, err := s.createObject(r.Context(), t, o, store.CreateOptions{DryRun: opts.DryRun, ReadOnlyResult: true}, &opts.owner)
	defer done()
	if err != nil {
		return err
	}
	return s.writeObject(w, r, http.StatusCreated, t.res, res, out)
}

// Create stores obj as a resource of res (one of Options.Resources), as a
// POST to its collection would, with defaulting, validation and
// admission: for seeding a server and for tests. obj is not modified.
func (s *Server) Create(ctx context.Context, res *Resource, obj Object) (Object, error) {
	rs := s.reg.Load().byDef[res]
	if rs == nil {
		return nil, errors.New("server: Create of a resource the server does not serve")
	}
	o := obj.DeepCopyObject()
	*o.Types() = meta.TypeMeta{}
	if c := rs.def.Coerce; c != nil {
		c(o, nil) // as the body of a POST is decoded
	}
	out, done, err := s.createObject(ctx, &target{res: rs, namespace: o.Meta().Namespace}, o, store.CreateOptions{}, nil)
	done()
	return out, err
}

func (s *Server) update(w http.ResponseWriter, r *http.Request, t *target) error {
	r = withWarningsOf(w, r)
	v := t.view()
	res, opts, o, err := s.readWrite(w, r, v.res, negotiation.UpdateOptions)
	if err != nil {
		return err
	}
	if err := matchURL(t, o.Meta()); err != nil {
		return err
	}
	t.uid = o.Meta().UID
	out, created, done, err := s.updateOrCreate(r.Context(), t, v, o, opts.DryRun, &opts.owner)
	defer done()
	if err != nil {
		return err
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	return s.writeView(w, r, code, v, res, out)
}

// matchURL checks the object of an update or patch against the URL, as
// Kubernetes does: the same name, and no other namespace (one it lacks is
// filled in; another is the 400 of a create's, as kube-apiserver 1.37
// answers an update, patch or apply).
func matchURL(t *target, m *meta.ObjectMeta) error {
	if m.Name != t.name {
		return status.NewBadRequest("the name of the object (" + m.Name + ") does not match the name on the URL (" + t.name + ")")
	}
	return ensureNamespace(t, m)
}

// parseDelete reads a delete's options from the query and the optional
// DeleteOptions body. accepted reports orphanDependents=false, which makes
// a deletion that is not immediate answer 202.
func (s *Server) parseDelete(r *http.Request, rs *resource) (opts store.DeleteOptions, accepted bool, err error) {
	queryDryRun, policy, orphan, err := deleteQuery(r)
	if err != nil {
		return opts, false, err
	}
	body, err := decodeDeleteOptions(rs, r)
	if err != nil {
		return opts, false, err
	}
	if !body.sent {
		if body.GracePeriodSeconds, err = gracePeriodParam(r); err != nil {
			return opts, false, err
		}
	}
	if policy != "" {
		body.PropagationPolicy = &policy
	}
	if orphan != nil {
		body.OrphanDependents = orphan
	}
	var errs []status.FieldError
	if body.OrphanDependents != nil && body.PropagationPolicy != nil {
		errs = append(errs, status.InvalidValue("propagationPolicy", *body.PropagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
	}
	if p := body.PropagationPolicy; p != nil && *p != "Foreground" && *p != "Background" && *p != "Orphan" {
		errs = append(errs, status.NotSupported("propagationPolicy", *p, "Foreground", "Background", "Orphan", "nil"))
	}
	if len(errs) > 0 {
		return opts, false, status.NewInvalid(status.GroupKind{Group: "meta.k8s.io", Kind: "DeleteOptions"}, "", errs...)
	}
	dry, err := negotiation.ParseDryRun(body.DryRun, negotiation.DeleteOptions)
	if err != nil {
		return opts, false, err
	}
	opts.DryRun = queryDryRun || dry
	opts.GracePeriodSeconds = body.GracePeriodSeconds // for a Resource.Delete with graceful deletion
	if s.opts.GarbageCollection {
		switch {
		case body.PropagationPolicy != nil:
			opts.Propagation = store.Propagation(*body.PropagationPolicy)
		case body.OrphanDependents != nil && *body.OrphanDependents:
			opts.Propagation = store.PropagationOrphan
		case body.OrphanDependents != nil:
			opts.Propagation = store.PropagationBackground
		}
	}
	if body.Preconditions != nil {
		opts.Preconditions = store.Preconditions{UID: body.Preconditions.UID, ResourceVersion: body.Preconditions.ResourceVersion}
	}
	return opts, body.OrphanDependents != nil && !*body.OrphanDependents, nil
}
