package server

import (
	"net/http"

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
}

// namespaceSubresources are the path segments that, after
// /namespaces/<name>/, name a subresource of the namespace rather than a
// resource inside it (Kubernetes' rule).
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// errNotFound is Kubernetes' answer for a path no route serves.
func errNotFound() *status.Error {
	return &status.Error{Status: status.Status{
		Kind: "Status", APIVersion: "v1", Status: status.StatusFailure,
		Message: "the server could not find the requested resource",
		Reason:  status.ReasonNotFound, Details: &status.Details{}, Code: http.StatusNotFound,
	}}
}

// errMethodNotAllowed is the 405 for a method a path does not serve, as
// kube-apiserver's router (go-restful) answers for its built-in
// resources: a fixed text and empty details, whatever the method and
// resource. (Custom resources' handler answers these requests with a
// mixture of 400, 404 and 415 that follows from its own parsing; the
// server answers them as it answers built-ins.)
func errMethodNotAllowed() *status.Error {
	return &status.Error{Status: status.Status{
		Kind: "Status", APIVersion: "v1", Status: status.StatusFailure,
		Message: "the server does not allow this method on the requested resource",
		Reason:  status.ReasonMethodNotAllowed, Details: &status.Details{}, Code: http.StatusMethodNotAllowed,
	}}
}

// route finds what a resource request addresses: the resource the
// request value names, the verb that resource serves for it, and the
// namespace of its objects. It parses nothing (parseRequest did); it
// answers 404 for what is not served and 405 for a method a path does
// not take.
func (s *Server) route(method string, rq *request) (*target, error) {
	if rq.tooLong {
		return nil, errNotFound()
	}
	// The key "<group>/<version>/<plural>" is built on the stack: a map
	// index by string(bytes) does not allocate (BenchmarkHTTPGet).
	var buf [128]byte
	key := buf[:0]
	if !rq.core {
		key = append(append(key, rq.info.Group...), '/')
	}
	key = append(append(append(key, rq.info.Version...), '/'), rq.info.Resource...)
	res := s.reg.Load().byPath[string(key)]
	if res == nil {
		return nil, errNotFound()
	}
	t := &target{res: res, name: rq.name, sub: rq.info.Subresource, legacyWatch: rq.legacyWatch}
	if rq.nsPrefix {
		// Not for a Namespace object itself, whose namespace is its name
		// only to the authorizer.
		t.namespace = rq.info.Namespace
	}
	v := verb(rq.info.Verb)
	collection := t.name == ""
	served := t.sub == "status" && res.def.StatusSubresource || t.sub == "scale" && res.def.Scale != nil
	switch {
	case !res.def.Namespaced && t.namespace != "":
		return nil, errNotFound()
	case res.def.Namespaced && t.namespace == "" && !collection:
		// /api/v1/configmaps/<name>: there is no such object path.
		return nil, errNotFound()
	case t.sub != "" && (t.legacyWatch || !served):
		// No other subresource is served; say so rather than act on the
		// parent.
		return nil, errNotFound()
	case method == http.MethodHead:
		return nil, errMethodNotAllowed()
	case t.sub != "":
		// get, update and patch of the object's status or scale.
		if v != verbGet && v != verbUpdate && v != verbPatch {
			return nil, errMethodNotAllowed()
		}
	case t.legacyWatch:
		if method != http.MethodGet {
			return nil, errMethodNotAllowed()
		}
	case v == verbGet || v == verbList || v == verbWatch:
	case res.def.Namespaced && t.namespace == "":
		// All-namespaces collections are read-only.
		return nil, errMethodNotAllowed()
	case v == verbCreate && collection, v == verbDeleteCollection,
		(v == verbUpdate || v == verbPatch || v == verbDelete) && !collection:
	default:
		return nil, errMethodNotAllowed()
	}
	t.verb = v
	return t, nil
}
