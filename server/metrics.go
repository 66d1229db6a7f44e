package server

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/apisem/apisem/metrics"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server/connlimit"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/watch"
)

// InFlight returns the numbers of read-only and mutating requests in
// flight, as the in-flight limits count them (watches and health checks
// are not counted): apiserver_current_inflight_requests.
func (s *Server) InFlight() (readOnly, mutating int) {
	return int(s.edge.readOnly.Load()), int(s.edge.mutating.Load())
}

// ObjectCounts calls fn with the number of objects of each served
// resource (apiserver_storage_objects), read from the store as of now
// without waiting for a replica to catch up; a resource whose count
// cannot be read gets -1, as Kubernetes reports a failed count.
func (s *Server) ObjectCounts(ctx context.Context, fn func(gr status.GroupResource, n int64)) {
	seen := map[status.GroupResource]bool{}
	for _, r := range s.reg.Load().resources {
		if seen[r.gr] {
			continue // another version of the same resource
		}
		seen[r.gr] = true
		fn(r.gr, objectCount(ctx, r.store))
	}
}

// objectCount counts b's objects with a one-item page: the store's
// remainingItemCount is the rest, counted in O(log n).
func objectCount(ctx context.Context, b store.Backend[Object]) int64 {
	page, err := b.List(ctx, "", store.ListOptions{Read: rv.Read{Semantics: rv.Any, Limit: 1}})
	if err != nil {
		return -1
	}
	n := int64(page.Len())
	if rem, ok := page.RemainingItemCount(); ok {
		n += rem
	}
	return n
}

// withMetrics reports each request the API answers to Options.Hooks.Metrics,
// and serves /metrics if that is an http.Handler. It is the innermost
// filter, as Kubernetes instruments its routes (InstrumentRouteFunc):
// what the authenticator, the authorizer or a user's filter refused is
// not counted. Requests for what the server does not serve are not
// counted either, as a cluster does not route them: that bounds the
// labels' values.
func (s *Server) withMetrics(next http.Handler) http.Handler {
	m := s.opts.Hooks.Metrics
	if m == nil {
		return next
	}
	page, _ := m.(http.Handler)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := requestOf(r)
		if page != nil && rq.info.Path == "/metrics" {
			page.ServeHTTP(w, r)
			return
		}
		var rm metrics.Request
		switch {
		case rq.health && len(rq.segs) == 1:
			// Only the endpoints themselves, as Kubernetes instruments
			// them (healthz.InstallPathHandler), not their checks.
			rm = metrics.Request{Subresource: rq.info.Path, Verb: metricsVerb(r, "", "", false)}
		case rq.info.ResourceRequest:
			res := s.routed(rq)
			if res == nil {
				next.ServeHTTP(w, r)
				return
			}
			rm = metrics.Request{
				Group: rq.info.Group, Version: rq.info.Version, Resource: rq.info.Resource,
				Subresource: rq.info.Subresource, Component: "apiserver",
				Scope: routeScope(r.Method, rq, res.def.Namespaced),
			}
			rm.Verb = metricsVerb(r, rm.Scope, rq.info.Subresource, rq.legacyWatch)
			if rq.info.LongRunning {
				// Labelled from the request's attributes, as Kubernetes'
				// RecordLongRunning does: a watch of one name by field
				// selector is "resource", and a /watch/ path, which has no
				// watch parameter, reports LIST (or GET).
				lm := rm
				lm.Scope = requestScope(&rq.info)
				lm.Verb = metricsVerb(r, lm.Scope, rq.info.Subresource, false)
				m.LongRunning(lm, 1)
				defer m.LongRunning(lm, -1)
			}
		default:
			next.ServeHTTP(w, r)
			return
		}
		rm.DryRun = dryRunLabel(r.URL)
		start := time.Now()
		next.ServeHTTP(w, r)
		rm.Duration = time.Since(start)
		rm.Code = rq.rec.code
		if rm.Code == 0 {
			rm.Code = http.StatusOK
		}
		rm.ResponseSize = -1
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !rq.legacyWatch {
			rm.ResponseSize = rq.rec.bytes
		}
		m.Request(rm)
	})
}

// recordRefused reports a request the in-flight limits refused (429), as
// Kubernetes' RecordDroppedRequest does: counted, not timed, labelled
// from the request alone; and as a termination.
func (s *Server) recordRefused(r *http.Request, rq *request) {
	m := s.opts.Hooks.Metrics
	if m == nil {
		return
	}
	if rm, ok := s.earlyMetric(r, rq, http.StatusTooManyRequests); ok {
		rm.DryRun = dryRunLabel(r.URL)
		m.Request(rm)
		if t, ok := m.(metrics.Terminations); ok {
			rm.DryRun = ""
			t.Terminated(rm)
		}
	}
}

// connLimits are Options.Limits.Connections, whose refusals (the 429 of
// a reserve connection) are reported as the in-flight limits' are.
func (s *Server) connLimits() connlimit.Limits {
	lim := s.opts.Limits.Connections
	if s.opts.Hooks.Metrics == nil {
		return lim
	}
	user := lim.Refused
	lim.Refused = func(r *http.Request) {
		s.recordRefused(r, requestOf(r))
		if user != nil {
			user(r)
		}
	}
	return lim
}

// recordTimeout reports a request answered with the 504 of its deadline
// as a termination.
func (s *Server) recordTimeout(r *http.Request, rq *request) {
	if t, ok := s.opts.Hooks.Metrics.(metrics.Terminations); ok {
		if rm, ok := s.earlyMetric(r, rq, http.StatusGatewayTimeout); ok {
			t.Terminated(rm)
		}
	}
}

// earlyMetric labels a request the server ends before its handler does,
// from the request alone (Kubernetes' CleanScope and cleanVerb); ok is
// false for a resource request to what the server does not serve, which
// a cluster counts and we do not, to keep the labels' values bounded.
// Kubernetes labels a non-resource request's termination with its path
// as the subresource; we leave it empty, as for the request count, for
// the same reason.
func (s *Server) earlyMetric(r *http.Request, rq *request, code int) (rm metrics.Request, ok bool) {
	rm = metrics.Request{Component: "apiserver", Code: code, Duration: -1, ResponseSize: -1}
	rm.Scope = requestScope(&rq.info)
	if rq.info.ResourceRequest {
		if s.routed(rq) == nil {
			return rm, false
		}
		rm.Group, rm.Version, rm.Resource, rm.Subresource = rq.info.Group, rq.info.Version, rq.info.Resource, rq.info.Subresource
	}
	rm.Verb = metricsVerb(r, rm.Scope, rm.Subresource, false)
	return rm, true
}

// watchEventMetric wraps a watch's encoder, whose frames are in media, so
// that each event it encodes is reported with the size of its object, as
// Kubernetes reports it; nil Options.Hooks.Metrics leaves it as it is.
func (s *Server) watchEventMetric(t *target, media negotiation.MediaType, encode func(*watch.Message[Object]) (negotiation.Event, error)) func(*watch.Message[Object]) (negotiation.Event, error) {
	m := s.opts.Hooks.Metrics
	if m == nil {
		return encode
	}
	def := t.res.def
	return func(msg *watch.Message[Object]) (negotiation.Event, error) {
		ev, err := encode(msg)
		if err == nil {
			obj := ev.Object
			if ev.Frame != nil {
				obj = negotiation.EventObject(media, ev.Frame)
			}
			m.WatchEvent(def.Group, def.Version, def.Plural, len(obj))
		}
		return ev, err
	}
}

// routed returns the resource a resource request addresses if a cluster
// would route the request's path to it (whatever its method), else nil:
// a served resource, subresource and scope, no more segments.
func (s *Server) routed(rq *request) *resource {
	res := s.lookup(rq)
	if res == nil {
		return nil
	}
	def, sub := res.def, rq.info.Subresource
	if rq.tooLong {
		// Only a subresource whose path goes on (a proxy's) is routed.
		if h := def.subresource(sub); h == nil || !h.Path {
			return nil
		}
	}
	switch {
	case sub != "" && !def.servesSubresource(sub):
		return nil
	case !def.Namespaced && rq.nsPrefix, def.Namespaced && !rq.nsPrefix && rq.name != "":
		return nil
	}
	return res
}

// routeScope is the scope label of a resource request's route, by
// Kubernetes' rule (k8s.io/apiserver/pkg/endpoints/installer.go): one
// object or a create is "resource", a namespace's collection "namespace",
// a cluster-scoped collection or a list across namespaces "cluster".
func routeScope(method string, rq *request, namespaced bool) string {
	switch {
	case rq.name != "" || method == http.MethodPost:
		return "resource"
	case namespaced && rq.nsPrefix:
		return "namespace"
	}
	return "cluster"
}

// requestScope is the scope label from the request's attributes alone
// (Kubernetes' CleanScope), which labels long-running requests and the
// in-flight limits' refusals: a name (a list or watch of one, by field
// selector, too) or a create is "resource".
func requestScope(info *RequestInfo) string {
	switch {
	case info.Name != "" || info.Verb == string(verbCreate):
		return "resource"
	case info.Namespace != "":
		return "namespace"
	case info.ResourceRequest:
		return "cluster"
	}
	return ""
}

// connectSubresources are the subresources Kubernetes reports as CONNECT.
var connectSubresources = []string{"log", "exec", "portforward", "attach", "proxy"}

// metricsVerb is Kubernetes' reported verb (metrics.go: CanonicalVerb,
// CleanVerb, cleanVerb): the upper-case method, a GET of a collection is
// LIST, a GET with ?watch (not "0" or "false") or on a /watch/ path is
// WATCH, a PATCH of content type application/apply-patch+yaml is APPLY,
// a connect subresource is CONNECT, and a method outside Kubernetes' set
// is "other".
func metricsVerb(r *http.Request, scope, sub string, legacyWatch bool) string {
	if legacyWatch {
		return "WATCH"
	}
	var v string
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		v = "GET"
		if scope != "resource" && scope != "" {
			v = "LIST"
		}
		if r.Method == http.MethodGet && watchParam(r.URL.RawQuery) {
			v = "WATCH"
		}
	case http.MethodPost:
		v = "POST"
	case http.MethodPut:
		v = "PUT"
	case http.MethodPatch:
		v = "PATCH"
		if r.Header.Get("Content-Type") == "application/apply-patch+yaml" {
			v = "APPLY"
		}
	case http.MethodDelete:
		v = "DELETE"
	case http.MethodConnect:
		v = "CONNECT"
	default:
		return "other"
	}
	if sub != "" && slices.Contains(connectSubresources, sub) {
		v = "CONNECT"
	}
	return v
}

// watchParam reports whether the first watch parameter of raw, as
// url.ParseQuery reads it, is set to something other than "0" or "false"
// (case aside), Kubernetes' test (getVerbIfWatch); it does not allocate
// for a query without one.
func watchParam(raw string) bool {
	if !strings.Contains(raw, "watch") && !strings.Contains(raw, "%") {
		return false
	}
	for raw != "" {
		var kv string
		kv, raw, _ = strings.Cut(raw, "&")
		if strings.Contains(kv, ";") {
			continue // url.ParseQuery skips such a pair
		}
		k, v, _ := strings.Cut(kv, "=")
		if k != "watch" {
			if uk, err := url.QueryUnescape(k); err != nil || uk != "watch" {
				continue
			}
		}
		v, err := url.QueryUnescape(v)
		if err != nil {
			continue
		}
		v = strings.ToLower(v) // not EqualFold, whose folding is wider
		return v != "0" && v != "false"
	}
	return false
}

// dryRunLabel is the dry_run label (Kubernetes' cleanDryRun): "" without
// the parameter, the sorted distinct values if all are valid ("All" is
// the only valid one), else "invalid".
func dryRunLabel(u *url.URL) string {
	if !strings.Contains(u.RawQuery, "dryRun") {
		return ""
	}
	vals := u.Query()["dryRun"]
	for _, v := range vals {
		if v != "All" {
			return "invalid"
		}
	}
	if len(vals) == 0 {
		return ""
	}
	return "All"
}
