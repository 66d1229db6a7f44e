package server

import (
	"net/http"
	"slices"
	"strings"

	"github.com/apisem/apisem/store"
)

// Subresource is a subresource a Resource serves with a handler of its
// own (Resource.Subresources), as kube-apiserver serves a Pod's log,
// binding or eviction: the server routes the request (a method the
// subresource does not serve is the router's 405), authorizes, audits
// and measures it as any, lists the subresource in discovery, and Serve
// answers it. A Serve that writes puts its object to admission itself
// (Server.AdmitMutating and AdmitValidating), as kube-apiserver admits
// an Eviction.
type Subresource struct {
	// Name is the subresource's path segment: "log", "binding".
	Name string
	// Group, Version and Kind are those of the subresource's objects, as
	// discovery lists them ("" means the resource's): policy/v1 Eviction
	// for pods/eviction, Binding for pods/binding.
	Group, Version, Kind string
	// Verbs are the verbs served, as discovery lists them: get (GET),
	// create (POST), update (PUT), patch (PATCH), delete (DELETE).
	Verbs []string
	// Path lets the path go on after the subresource's name, as a
	// proxy's does (pods/<name>/proxy/<path>).
	Path bool
	// Serve answers the request. It returns an error, best a status
	// error, only when it has written nothing; the server writes it as a
	// Status.
	Serve func(w http.ResponseWriter, r *http.Request, req SubresourceRequest) error
}

// SubresourceRequest is what Subresource.Serve is asked.
type SubresourceRequest struct {
	// Namespace and Name are the object's (which need not exist).
	Namespace, Name string
	// Verb is the request's: get, create, update, patch or delete.
	Verb string
	// Path is the rest of the path after the subresource's name, without
	// the leading slash, with Subresource.Path.
	Path string
	// Store is the resource's storage.
	Store store.Backend[Object]
	// Server is the server, whose other resources a subresource may read
	// (a Pod's eviction reads PodDisruptionBudgets).
	Server *Server
}

// servesSubresource reports whether r serves the subresource sub, of
// whichever kind: status, scale, UpdateSubresources, ObjectSubresources
// or Subresources.
func (r *Resource) servesSubresource(sub string) bool {
	return sub == "status" && r.StatusSubresource || sub == "scale" && r.Scale != nil ||
		sub != "" && (slices.Contains(r.UpdateSubresources, sub) || slices.Contains(r.ObjectSubresources, sub) || r.subresource(sub) != nil)
}

// subresource returns r's Subresource of that name, or nil.
func (r *Resource) subresource(name string) *Subresource {
	if name == "" {
		return nil // most requests: no loop
	}
	for i := range r.Subresources {
		if r.Subresources[i].Name == name {
			return &r.Subresources[i]
		}
	}
	return nil
}

// serveSubresource serves t, a request for a Subresource.
func (s *Server) serveSubresource(w http.ResponseWriter, r *http.Request, t *target) error {
	sr := t.res.def.subresource(t.sub)
	req := SubresourceRequest{Namespace: t.namespace, Name: t.name, Verb: string(t.verb), Store: t.res.store, Server: s}
	if sr.Path {
		_, req.Path, _ = strings.Cut(r.URL.Path, "/"+t.name+"/"+t.sub+"/")
	}
	return sr.Serve(w, r, req)
}

// servesVerb reports whether sr serves v.
func (sr *Subresource) servesVerb(v verb) bool { return slices.Contains(sr.Verbs, string(v)) }
