package server

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/apisem/apisem/status"
)

// verb is the Kubernetes verb of a request (the spec's "API verbs").
type verb string

const (
	verbGet              verb = "get"
	verbList             verb = "list"
	verbWatch            verb = "watch"
	verbCreate           verb = "create"
	verbUpdate           verb = "update"
	verbPatch            verb = "patch"
	verbDelete           verb = "delete"
	verbDeleteCollection verb = "deletecollection"
)

// target is what a resource request addresses, parsed from its URL.
type target struct {
	res       *resource
	namespace string // "" for cluster-scoped resources and all-namespace lists
	name      string // "" for a collection
	sub       string // subresource, "" for the resource itself
	verb      verb
	// legacyWatch: the path began with /watch/ (Kubernetes' deprecated
	// watch paths), which makes a GET a watch.
	legacyWatch bool
	// noNamespace: the path's namespace is empty (namespaces//...). A
	// list or watch is of every namespace; the handlers of one object
	// answer 400 (serveTarget), and deletecollection as well if it finds
	// anything to delete.
	noNamespace bool
	// uid is the metadata.uid of an update's body (a PUT of the object,
	// its status or its Scale), the update's storage precondition, as
	// Kubernetes' registry makes it: checked on the stored object before
	// anything else, a 409 Conflict naming the storage key.
	uid string
}

// namespaceSubresources are the path segments that, after
// /namespaces/<name>/, name a subresource of the namespace rather than a
// resource inside it (Kubernetes' rule).
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// errNotFound is Kubernetes' answer for a path no route serves.
func errNotFound() *status.Error {
	return status.New(http.StatusNotFound, status.ReasonNotFound, "the server could not find the requested resource", &status.Details{})
}

// routerError is an error of kube-apiserver's router (go-restful), as
// its service error handler writes one: empty details.
func routerError(code int32, reason status.Reason, msg string) *status.Error {
	return &status.Error{Status: status.Status{
		Kind: "Status", APIVersion: "v1", Status: status.StatusFailure,
		Message: msg, Reason: reason, Details: &status.Details{}, Code: code,
	}}
}

// The media types kube-apiserver's routes for built-in resources produce
// (a collection's GET, list and watch, adds the stream types) and its
// PATCH routes consume, as go-restful's 406 and 415 list them.
const (
	routeProduces       = "application/json, application/yaml, application/vnd.kubernetes.protobuf"
	routeStreamProduces = routeProduces + ", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
)

var routePatchConsumes = []string{
	"application/json-patch+json", "application/merge-patch+json",
	"application/strategic-merge-patch+json", "application/apply-patch+yaml",
}

// routerAccepts makes the checks kube-apiserver's router makes of a
// request for a built-in resource before its handler sees it: a patch's
// Content-Type must name a patch type (415), and the Accept header must
// name a type the route produces, or */*, in one of its entries (406).
// Both compare the type without parameters, exactly, case included: so
// application/* alone is refused although the handler would take it.
func routerAccepts(h http.Header, t *target) error {
	if t.verb == verbPatch && !mediaListHas(h.Get("Content-Type"), routePatchConsumes...) {
		// An absent Content-Type is application/octet-stream to it.
		return routerError(http.StatusUnsupportedMediaType, status.ReasonUnsupportedMediaType, "415: Unsupported Media Type")
	}
	accept := h.Get("Accept")
	if accept == "" || mediaListHas(accept, "*/*", "application/json", "application/yaml", "application/vnd.kubernetes.protobuf") {
		return nil
	}
	produces := routeProduces
	if t.name == "" && (t.verb == verbList || t.verb == verbWatch) || t.legacyWatch {
		produces = routeStreamProduces
	}
	// The stream types, compared whole with entries whose parameters are
	// cut off, never match; they are only listed.
	return routerError(http.StatusNotAcceptable, status.ReasonNotAcceptable, "406: Not Acceptable\n\nAvailable representations: "+produces)
}

// mediaListHas reports whether one entry of the comma-separated list,
// its parameters cut off and spaces trimmed, is one of types exactly.
func mediaListHas(list string, types ...string) bool {
	for list != "" {
		var entry string
		entry, list, _ = strings.Cut(list, ",")
		entry, _, _ = strings.Cut(entry, ";")
		entry = strings.TrimSpace(entry)
		for _, t := range types {
			if entry == t {
				return true
			}
		}
	}
	return false
}

// errMethodNotAllowed is the 405 for a method a path does not serve, as
// kube-apiserver's router (go-restful) answers for its built-in
// resources: a fixed text and empty details, whatever the method and
// resource. (Custom resources are routed by routeCustom.)
func errMethodNotAllowed() *status.Error {
	return routerError(http.StatusMethodNotAllowed, status.ReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource")
}

// lookup returns the served resource a resource request names, or nil.
func (s *Server) lookup(rq *request) *resource {
	// The key "<group>/<version>/<plural>" is built on the stack: a map
	// index by string(bytes) does not allocate (BenchmarkHTTPGet).
	var buf [128]byte
	key := buf[:0]
	if !rq.core {
		key = append(append(key, rq.info.Group...), '/')
	}
	key = append(append(append(key, rq.info.Version...), '/'), rq.info.Resource...)
	return s.reg.Load().byPath[string(key)]
}

// route finds what a resource request addresses: the resource the
// request value names, the verb that resource serves for it, and the
// namespace of its objects. It parses nothing (parseRequest did); it
// answers 404 for what is not served and 405 for a method a path does
// not take. A custom resource is routed by routeCustom.
func (s *Server) route(method string, rq *request) (*target, error) {
	res := s.lookup(rq)
	if res == nil {
		return nil, errNotFound()
	}
	if res.def.Custom {
		return routeCustom(rq, res)
	}
	handler := res.def.subresource(rq.info.Subresource)
	if rq.tooLong && (handler == nil || !handler.Path) {
		return nil, errNotFound()
	}
	t := rq.newTarget(res)
	if rq.nsPrefix {
		// Not for a Namespace object itself, whose namespace is its name
		// only to the authorizer.
		t.namespace = rq.info.Namespace
	}
	v := verb(rq.info.Verb)
	emptyNS := false // namespaces//<resource>
	if !rq.pathOK && slices.Contains(rq.segs, "") {
		// kube-apiserver's router takes an empty segment for a path
		// parameter, so every route has such paths. Of them, these reach
		// a handler this server serves the same way: an empty name before
		// a subresource, whose get, update and patch answer that the name
		// must be provided (serveTarget), whatever the query; and an
		// empty namespace, which lists and watches every namespace, which
		// the handlers of one object and deletecollection refuse, and in
		// which a create fails validation (metadata.namespace is
		// required).
		emptyNS = rq.nsPrefix && t.namespace == ""
		switch {
		case rq.tooLong || rq.info.Resource == "" || emptyNS && t.name == "" && t.sub != "":
			return nil, errNotFound()
		case emptyNS:
			t.noNamespace = true
		case t.name != "" || t.sub == "":
			return nil, errNotFound()
		case v == verbList || v == verbWatch:
			v = verbGet
		}
	}
	collection := t.name == ""
	served := res.def.servesSubresource(t.sub)
	switch {
	case !res.def.Namespaced && (t.namespace != "" || emptyNS):
		return nil, errNotFound()
	case res.def.Namespaced && t.namespace == "" && !collection && !emptyNS:
		// /api/v1/configmaps/<name>: there is no such object path.
		return nil, errNotFound()
	case t.sub == "" && !collection && !res.def.servesAny(verbGet, verbUpdate, verbPatch, verbDelete),
		t.legacyWatch && !res.def.serves(verbWatch),
		res.def.Namespaced && t.namespace == "" && !emptyNS && !res.def.servesAny(verbList, verbWatch):
		// kube-apiserver's router has no route where the resource serves
		// no verb (an object of bindings, which serve create alone).
		return nil, errNotFound()
	case t.sub != "" && (t.legacyWatch || !served):
		// No other subresource is served; say so rather than act on the
		// parent.
		return nil, errNotFound()
	case method == http.MethodHead:
		return nil, errMethodNotAllowed()
	case handler != nil:
		if !handler.servesVerb(v) {
			return nil, errMethodNotAllowed()
		}
	case t.sub != "":
		// get, update and patch of the object's status or scale; update
		// alone of an UpdateSubresources'.
		if v != verbUpdate && (v != verbGet && v != verbPatch || slices.Contains(res.def.UpdateSubresources, t.sub)) {
			return nil, errMethodNotAllowed()
		}
	case t.legacyWatch:
		if method != http.MethodGet {
			return nil, errMethodNotAllowed()
		}
	case v == verbGet || v == verbList || v == verbWatch:
	case res.def.Namespaced && t.namespace == "" && !emptyNS:
		// All-namespaces collections are read-only.
		return nil, errMethodNotAllowed()
	case v == verbCreate && collection, v == verbDeleteCollection,
		(v == verbUpdate || v == verbPatch || v == verbDelete) && !collection:
	default:
		return nil, errMethodNotAllowed()
	}
	if t.sub == "" && !res.def.serves(v) {
		return nil, errMethodNotAllowed()
	}
	t.verb = v
	return t, nil
}

// errPassedOn is routeCustom's answer where apiextensions-apiserver's
// handler passes a request on to kube-apiserver's last handler: a path of
// the custom resource's scope that it does not serve. That is the plain
// text 404 in a group of custom resources alone, and the API's 404 in a
// group with built-in resources too (serve and serveTarget).
var errPassedOn = errors.New("server: not served by the custom resource handler")

// routeCustom routes a request for a custom resource as
// apiextensions-apiserver's handler routes it, from kube-apiserver's
// request info, which differs from built-ins' router (route):
//
//   - a path of the other scope is passed on (errPassedOn), and so is
//     every verb but list and watch without a namespace for a namespaced
//     resource (POST /apis/g/v/widgets);
//   - the verb is the method's, so HEAD is a get, a POST to an object's
//     path creates the body's object (the path's name is not read), a PUT
//     or PATCH of a collection is the 400 `name must be provided`, and a
//     method with no verb (OPTIONS) is a 405 for the verb "";
//   - under /watch/ every method watches;
//   - a subresource the definition lacks is the 404 of the object's name,
//     and a verb status or scale does not take is the 405
//     `<verb> is not supported on resources of kind "<plural.group>"`;
//   - segments after the subresource are not read.
func routeCustom(rq *request, res *resource) (*target, error) {
	t := rq.newTarget(res)
	if rq.nsPrefix {
		t.namespace = rq.info.Namespace
	}
	v := verb(rq.info.Verb)
	switch {
	case !res.def.Namespaced && t.namespace != "",
		res.def.Namespaced && t.namespace == "" && v != verbList && v != verbWatch:
		return nil, errPassedOn
	}
	switch {
	case t.sub == "status" && res.def.StatusSubresource, t.sub == "scale" && res.def.Scale != nil:
		if v != verbGet && v != verbUpdate && v != verbPatch {
			return nil, status.NewMethodNotSupported(res.gr, string(v))
		}
	case t.sub != "" && slices.Contains(res.def.UpdateSubresources, t.sub):
		if v != verbUpdate {
			return nil, status.NewMethodNotSupported(res.gr, string(v))
		}
	case t.sub != "":
		return nil, status.NewNotFound(res.gr, t.name)
	case v == verbCreate:
		t.name = ""
	case (v == verbUpdate || v == verbPatch) && t.name == "":
		return nil, status.NewBadRequest("name must be provided")
	case v == verbGet, v == verbList, v == verbWatch, v == verbUpdate, v == verbPatch,
		v == verbDelete, v == verbDeleteCollection:
	default:
		return nil, status.NewMethodNotSupported(res.gr, string(v))
	}
	t.verb = v
	return t, nil
}
