package server

import (
	"net/http"
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

// errMethodNotAllowed is the 405 for a method a path does not serve.
func errMethodNotAllowed(method string, t *target) *status.Error {
	return status.NewMethodNotSupported(t.res.gr, method)
}

// route parses the path of a resource request (segments after /api/v1 or
// /apis/<group>/<version>) into a target.
func (s *Server) route(method, gv string, segs []string) (*target, error) {
	t := &target{}
	if len(segs) > 0 && segs[0] == "watch" {
		t.legacyWatch = true
		segs = segs[1:]
	}
	if len(segs) >= 2 && segs[0] == "namespaces" {
		if len(segs) > 2 && !namespaceSubresources[segs[2]] {
			t.namespace = segs[1]
			segs = segs[2:]
		}
	}
	if len(segs) == 0 || len(segs) > 3 {
		return nil, errNotFound()
	}
	res := s.reg.Load().byPath[gv+"/"+segs[0]]
	if res == nil {
		return nil, errNotFound()
	}
	t.res = res
	if len(segs) > 1 {
		t.name = segs[1]
	}
	if len(segs) > 2 {
		t.sub = segs[2]
	}
	switch {
	case !res.def.Namespaced && t.namespace != "":
		return nil, errNotFound()
	case res.def.Namespaced && t.namespace == "" && t.name != "":
		// /api/v1/configmaps/<name>: there is no such object path.
		return nil, errNotFound()
	case !t.legacyWatch &&
		(t.sub == "status" && res.def.StatusSubresource || t.sub == "scale" && res.def.Scale != nil):
		// get, update and patch of the object's status or scale.
		switch method {
		case http.MethodGet:
			t.verb = verbGet
		case http.MethodPut:
			t.verb = verbUpdate
		case http.MethodPatch:
			t.verb = verbPatch
		default:
			return nil, errMethodNotAllowed(method, t)
		}
		return t, nil
	case t.sub != "":
		// No other subresource is served; say so rather than act on the
		// parent.
		return nil, errNotFound()
	}

	collection := t.name == ""
	switch {
	case t.legacyWatch:
		if method != http.MethodGet {
			return nil, errMethodNotAllowed(method, t)
		}
		t.verb = verbWatch
	case method == http.MethodGet && collection:
		t.verb = verbList // or watch, decided by the query
	case method == http.MethodGet:
		t.verb = verbGet
	case res.def.Namespaced && t.namespace == "":
		// All-namespaces collections are read-only.
		return nil, errMethodNotAllowed(method, t)
	case method == http.MethodPost && collection:
		t.verb = verbCreate
	case method == http.MethodDelete && collection:
		t.verb = verbDeleteCollection
	case method == http.MethodPut && !collection:
		t.verb = verbUpdate
	case method == http.MethodPatch && !collection:
		t.verb = verbPatch
	case method == http.MethodDelete && !collection:
		t.verb = verbDelete
	default:
		return nil, errMethodNotAllowed(method, t)
	}
	return t, nil
}

// splitPath splits a URL path into its segments, refusing empty ones
// ("//") so that every object has exactly one path. A trailing slash is
// allowed.
func splitPath(p string) ([]string, bool) {
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return nil, true
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if s == "" {
			return nil, false
		}
	}
	return segs, true
}
