package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/managedfields"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store/selector"
	"github.com/apisem/apisem/validation"
)

// The request value. ServeHTTP parses a request's method, path and query
// once, before any filter runs (parseRequest), and puts the result in the
// request's context; the filters and the handlers read it from there
// (requestOf), and users' filters read its RequestInfo (RequestInfoFrom).
// Nothing else in the package splits a resource path or decodes a query.

// RequestInfo is what a request asks, read from its method and URL alone
// by Kubernetes' rules (k8s.io/apiserver/pkg/endpoints/request,
// RequestInfoFactory), before authentication and before the server knows
// whether it serves the resource named: these are the attributes the
// authorizer decides on, which is why a request for a resource the server
// does not serve is refused (403) before it can learn that (404).
type RequestInfo struct {
	// ResourceRequest is true for paths under /api/<version>/ and
	// /apis/<group>/<version>/; the fields Group to Name are set only for
	// those.
	ResourceRequest bool
	// LongRunning is true for a watch: it has no request deadline and is
	// not counted in flight (its timeoutSeconds ends it).
	LongRunning bool
	// Verb is, for a resource request, the Kubernetes verb: get, list,
	// watch, create, update, patch, delete or deletecollection, "" for a
	// method that has none. For any other request it is the lower-case
	// HTTP method.
	Verb string
	// Group ("" for the core group under /api), Version, Resource and
	// Subresource are those of the path.
	Group, Version, Resource, Subresource string
	// Namespace is the path's namespace; for a Namespace object itself
	// (/api/v1/namespaces/<name>) it is that name, as Kubernetes
	// authorizes a namespace in itself.
	Namespace string
	// Name is the path's name, or for a list or watch whose field
	// selector requires one metadata.name, that name.
	Name string
	// Path is the URL's path.
	Path string
}

// RequestInfoFrom returns the RequestInfo of the request whose context is
// ctx, for filters (Options.Hooks.Filters) and handlers; ok is false for a
// context that did not come from the server.
func RequestInfoFrom(ctx context.Context) (info RequestInfo, ok bool) {
	rq, ok := ctx.Value(requestKey{}).(*request)
	if !ok {
		return RequestInfo{}, false
	}
	return rq.info, true
}

// requestKey is the context key of a request's *request.
type requestKey struct{}

// request is a request as the server parsed it, once; after parseRequest
// it is only read. It is also the request's context (the server's, with
// itself as the value of requestKey; the deadline filter, which runs
// first, puts its deadline under it) and holds the request log's
// recorder: one allocation for the three, where three would cost
// BenchmarkHTTPGet two allocations more than the code before the request
// value.
type request struct {
	context.Context // the request's context as the server received it

	rec  statusRecorder // of ServeHTTP, for the request log
	info RequestInfo

	segs []string // the path's segments, outer slashes trimmed
	// segsBuf holds segs for a path of up to eight segments, the longest
	// an object's subresource has: one allocation less per request.
	segsBuf [8]string
	pathOK  bool // no empty segment: the path can address something
	health  bool // a health endpoint (server/health.go)
	// noInfo: the path is /api/<version>/watch or /proxy (or under
	// /apis/<group>/), from which Kubernetes' request info cannot be made:
	// kube-apiserver answers it with a plain-text 500 before anything else
	// (serveNoInfo).
	noInfo bool

	// Of a resource request, from the path (the group, version, resource
	// and subresource are in info): the name ("" for a collection, where
	// info.Name may be a field selector's), and whether there were more
	// segments than resource, name and subresource.
	core        bool // under /api
	name        string
	nsPrefix    bool // the path began /namespaces/<ns>/<resource>
	legacyWatch bool // the path began /watch/
	tooLong     bool
	warnOn      bool // warn is set up; here, beside the other flags, it takes no padding

	// query is the decoded query; nil for a request without one (most
	// GETs), which then costs nothing (see options).
	query *query

	// target is the route's answer (newTarget), kept here to save the
	// request an allocation.
	target target

	// warn is the warnings recorder of the response, once withWarningsOf
	// has set it up (warnOn): kept here, it costs a write no context and
	// no copy of its *http.Request.
	warn warnings

	// audit is the AuditRecorder of the writer the audit hook passed on
	// (withAuditRecorder), nil without one: AddAuditAnnotation's.
	audit AuditRecorder
}

// newTarget returns the request's target for res, of its name,
// subresource and legacy watch path, in the request value. A request is
// routed once (Server.serve).
func (rq *request) newTarget(res *resource) *target {
	rq.target = target{res: res, name: rq.name, sub: rq.info.Subresource, legacyWatch: rq.legacyWatch}
	return &rq.target
}

// noQuery is the query of a request without one; it is never written.
var noQuery query

// options returns rq's decoded query, empty for a request without one.
func (rq *request) options() *query {
	if rq.query == nil {
		return &noQuery
	}
	return rq.query
}

// Value makes rq the value of requestKey in its context.
func (rq *request) Value(key any) any {
	switch key.(type) {
	case requestKey:
		return rq
	case warningsKey:
		if rq.warnOn {
			return &rq.warn
		}
	}
	return rq.Context.Value(key)
}

// requestOf returns r's request value. A request that did not come
// through ServeHTTP (a test calling a handler) is parsed here, by the
// same parser.
func requestOf(r *http.Request) *request {
	if rq, ok := r.Context().Value(requestKey{}).(*request); ok {
		return rq
	}
	return parseRequest(r)
}

// withRequest returns r with rq, its parse, as its context.
func withRequest(r *http.Request, rq *request) *http.Request {
	return r.WithContext(rq)
}

// parseRequest parses r's method, path and query: the one place that does.
func parseRequest(r *http.Request) *request {
	rq := &request{Context: r.Context()}
	rq.segs, rq.pathOK = splitPath(rq.segsBuf[:0], r.URL.Path)
	rq.health = rq.pathOK && isHealthPath(rq.segs)
	// The query, scanned once: rv keeps the ListOptions parameters, q
	// the others. Below, the ListOptions are decoded for a collection and
	// resourceVersion alone for a GET of one object.
	var scan rv.Query
	if raw := r.URL.RawQuery; raw != "" {
		q := &query{}
		scan = rv.ScanQuery(raw, q.add)
		rq.query = q
	}
	info := &rq.info
	info.Path = r.URL.Path
	info.Verb = lowerMethod(r.Method)

	parts := rq.segs
	if len(parts) < 3 || parts[0] != "api" && parts[0] != "apis" {
		return rq
	}
	rq.core = parts[0] == "api"
	if !rq.core {
		if len(parts) < 4 {
			return rq // /apis/<group>/<version>: discovery
		}
		info.Group, parts = parts[1], parts[1:]
	}
	info.ResourceRequest = true
	info.Version, parts = parts[1], parts[2:]

	if len(parts) == 1 && (parts[0] == "watch" || parts[0] == "proxy") {
		rq.noInfo = true
		return rq
	}
	if parts[0] == "watch" && len(parts) > 1 {
		rq.legacyWatch = true
		info.Verb, parts = string(verbWatch), parts[1:]
	} else {
		info.Verb = string(methodVerb(r.Method))
	}
	if parts[0] == "namespaces" && len(parts) > 1 {
		info.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			rq.nsPrefix = true
			parts = parts[2:]
		}
	}
	info.Resource = parts[0]
	if len(parts) > 1 {
		rq.name = parts[1]
	}
	if len(parts) > 2 {
		info.Subresource = parts[2]
	}
	rq.tooLong = len(parts) > 3
	info.Name = rq.name

	collection := rq.name == "" && (info.Verb == string(verbGet) || info.Verb == string(verbDelete))
	if q := rq.query; q != nil {
		switch {
		case rq.legacyWatch || collection:
			q.list, q.listErr = scan.ListOptions()
		case info.Verb == string(verbGet):
			// A GET of one object reads resourceVersion alone.
			q.read, q.readErr = scan.ResolveGet()
		}
	}
	q := rq.options()
	if collection {
		// Its options decide list or watch.
		if info.Verb == string(verbDelete) {
			info.Verb = string(verbDeleteCollection)
		} else {
			// Kubernetes' rule: the watch parameter decides even where
			// another parameter is malformed (the handler refuses those).
			info.Verb = string(verbList)
			if scan.Watch() {
				info.Verb = string(verbWatch)
			}
			// A list or watch of one name (kubectl get --watch <name>,
			// an informer of one object) is authorized as that name.
			if q.listErr == nil && q.list.FieldSelector != "" {
				if f, err := selector.ParseFields(q.list.FieldSelector); err == nil {
					if name, ok := f.RequiresExactMatch("metadata.name"); ok && validPathSegment(name) {
						info.Name = name
					}
				}
			}
		}
	}
	info.LongRunning = info.Verb == string(verbWatch)
	return rq
}

// objectPath reports whether rq is a resource request with its group and
// version, which the resource's route answers even with an empty segment
// in its path (route, routeCustom).
func (rq *request) objectPath() bool {
	return rq.info.ResourceRequest && rq.info.Version != "" && (rq.core || rq.info.Group != "")
}

// methodVerb is the verb of a resource request's method, before the path
// and query refine it (list, watch, deletecollection); "" for a method
// with none.
func methodVerb(method string) verb {
	switch method {
	case http.MethodGet, http.MethodHead:
		return verbGet
	case http.MethodPost:
		return verbCreate
	case http.MethodPut:
		return verbUpdate
	case http.MethodPatch:
		return verbPatch
	case http.MethodDelete:
		return verbDelete
	}
	return ""
}

// lowerMethod is strings.ToLower(method), without allocating for the
// usual methods.
func lowerMethod(method string) string {
	switch method {
	case http.MethodGet:
		return "get"
	case http.MethodHead:
		return "head"
	case http.MethodPost:
		return "post"
	case http.MethodPut:
		return "put"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	case http.MethodOptions:
		return "options"
	}
	return strings.ToLower(method)
}

// attributes are the request's authorization attributes, from the URL
// alone (see RequestInfo).
func (rq *request) attributes() auth.Attributes {
	i := &rq.info
	return auth.Attributes{Path: i.Path, Verb: i.Verb, ResourceRequest: i.ResourceRequest,
		Group: i.Group, Version: i.Version, Resource: i.Resource, Subresource: i.Subresource,
		Namespace: i.Namespace, Name: i.Name}
}

// splitPath appends the segments of a URL path to dst, outer slashes
// trimmed. ok is false if a segment is empty ("//"): such a path addresses
// nothing, so that every object has exactly one path. One slash at each
// end is allowed.
func splitPath(dst []string, p string) (segs []string, ok bool) {
	ok = !strings.Contains(p, "//")
	t := strings.Trim(p, "/")
	if t == "" {
		return nil, ok
	}
	for {
		i := strings.IndexByte(t, '/')
		if i < 0 {
			return append(dst, t), ok
		}
		dst, t = append(dst, t[:i]), t[i+1:]
	}
}

// validPathSegment reports whether name could be a name in a URL path.
func validPathSegment(name string) bool {
	return name != "." && name != ".." && !strings.ContainsAny(name, "/%")
}

// query holds a request's query, decoded once (parseRequest): the
// ListOptions of a collection or the read of a GET, and the first value of
// each other parameter the server reads (all of dryRun's), decoded as
// url.ParseQuery does. Each verb validates the write parameters it takes.
type query struct {
	dryRun            []string
	fieldValidation   string
	fieldManager      string
	propagationPolicy string
	includeObject     string
	gracePeriod       string // gracePeriodSeconds, unparsed
	// exclude and verbose are the health endpoints' (server/health.go).
	exclude []string
	verbose bool
	// The bools by QueryBool's rule; a parameter present with an empty
	// value is true.
	force, orphanDependents bool
	// Presence, where it matters.
	timeoutSet, forceSet, orphanSet bool
	seen                            uint8 // first-value bookkeeping, by qParam

	// list and listErr are the decoded ListOptions of a request for a
	// collection (GET or DELETE without a name) or a legacy watch.
	list    rv.ListOptions
	listErr error
	// read and readErr are how to read the object of a GET.
	read    rv.Read
	readErr error
	// timeout is ?timeout=, timeoutErr the 400 of a bad one.
	timeout    time.Duration
	timeoutErr error
}

// The single-valued parameters of query other than the presence-tracked
// ones, for first-value bookkeeping.
const (
	qFieldValidation = 1 << iota
	qFieldManager
	qPropagationPolicy
	qIncludeObject
	qGracePeriod
)

// add records one pair that is not a ListOptions parameter. Kubernetes
// reads the first value of a parameter, all of a list's.
func (q *query) add(name, value string) {
	first := func(bit uint8, dst *string) {
		if q.seen&bit == 0 {
			q.seen |= bit
			*dst = value
		}
	}
	switch name {
	case "timeout":
		if !q.timeoutSet {
			q.timeoutSet = true
			if value != "" {
				q.timeout, q.timeoutErr = parseTimeout(value)
			}
		}
	case "dryRun":
		q.dryRun = append(q.dryRun, value)
	case "fieldValidation":
		first(qFieldValidation, &q.fieldValidation)
	case "fieldManager":
		first(qFieldManager, &q.fieldManager)
	case "force":
		if !q.forceSet {
			q.forceSet, q.force = true, rv.QueryBool(value)
		}
	case "propagationPolicy":
		first(qPropagationPolicy, &q.propagationPolicy)
	case "orphanDependents":
		if !q.orphanSet {
			q.orphanSet, q.orphanDependents = true, rv.QueryBool(value)
		}
	case "includeObject":
		first(qIncludeObject, &q.includeObject)
	case "gracePeriodSeconds":
		first(qGracePeriod, &q.gracePeriod)
	case "exclude":
		q.exclude = append(q.exclude, value)
	case "verbose":
		q.verbose = true
	}
}

// collectionOptions returns the decoded ListOptions of a request for a
// collection or a legacy watch; any other request has none (the zero
// value).
func collectionOptions(r *http.Request) (rv.ListOptions, error) {
	q := requestOf(r).options()
	return q.list, q.listErr
}

// getRead is how to read the object of a GET, from its resourceVersion
// alone: Kubernetes ignores the list parameters a GET does not take.
func getRead(r *http.Request) (rv.Read, error) {
	rq := requestOf(r)
	if rq.query == nil {
		return rv.ResolveGet("")
	}
	return rq.query.read, rq.query.readErr
}

// parseTimeout decodes ?timeout= (a Go duration), with Kubernetes' 400
// (k8s.io/apiserver/pkg/endpoints/filters/request_deadline.go).
func parseTimeout(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, status.NewBadRequest("invalid timeout specified in the request URL - " + err.Error())
	}
	return d, nil
}

// parseWriteOptions reads dryRun, fieldValidation, fieldManager and (for
// a patch) force, and reports every bad value in one 422 for kind, in
// Kubernetes' order (ValidatePatchOptions in
// k8s.io/apimachinery/pkg/apis/meta/v1/validation): an apply must name
// its fieldManager, other patches may not say force.
func parseWriteOptions(r *http.Request, kind negotiation.OptionsKind, apply bool) (writeOptions, error) {
	q := requestOf(r).options()
	var opts writeOptions
	manager := q.fieldManager
	var errs []status.FieldError
	switch {
	case apply && manager == "":
		errs = append(errs, status.Required("fieldManager", "is required for apply patch"))
	case !apply && kind == negotiation.PatchOptions && q.forceSet:
		errs = append(errs, status.Forbidden("force", "may not be specified for non-apply patch"))
	}
	errs = append(errs, validation.FieldManager("fieldManager", manager)...)
	opts.force = q.force
	// The options' own problems follow, in one 422.
	dry, err := negotiation.ParseDryRun(q.dryRun, kind)
	if err != nil {
		errs = append(errs, status.NotSupported("dryRun", q.dryRun, "All"))
	}
	fv, err := negotiation.ParseFieldValidation(q.fieldValidation, kind)
	if err != nil {
		errs = append(errs, status.NotSupported("fieldValidation", q.fieldValidation, "", "Ignore", "Strict", "Warn"))
	}
	if len(errs) > 0 {
		return opts, status.NewInvalid(status.GroupKind{Group: "meta.k8s.io", Kind: string(kind)}, "", errs...)
	}
	opts.DryRun, opts.FieldValidation = dry, fv
	opts.manager = manager
	if manager == "" && !apply {
		opts.manager = managedfields.ManagerFromUserAgent(r.UserAgent())
	}
	return opts, nil
}

// deleteQuery is what a delete's query says: dryRun, propagationPolicy
// and orphanDependents (nil when absent).
func deleteQuery(r *http.Request) (dryRun bool, propagation string, orphan *bool, err error) {
	q := requestOf(r).options()
	if dryRun, err = negotiation.ParseDryRun(q.dryRun, negotiation.DeleteOptions); err != nil {
		return false, "", nil, err
	}
	if q.orphanSet {
		b := q.orphanDependents
		orphan = &b
	}
	return dryRun, q.propagationPolicy, orphan, nil
}

// gracePeriodParam is the request's ?gracePeriodSeconds= (nil when
// absent), or the 400 of one that is no integer, with strconv's text as
// kube-apiserver's query decoding gives it.
func gracePeriodParam(r *http.Request) (*int64, error) {
	q := requestOf(r).options()
	if q.seen&qGracePeriod == 0 {
		return nil, nil
	}
	n, err := strconv.ParseInt(q.gracePeriod, 10, 64)
	if err != nil {
		return nil, status.NewBadRequest(err.Error())
	}
	return &n, nil
}

// includeObjectParam is the request's ?includeObject=.
func includeObjectParam(r *http.Request) string { return requestOf(r).options().includeObject }
