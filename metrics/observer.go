package metrics

import "time"

// Observer receives the numbers a server (package server) measures, with
// the labels kube-apiserver gives them (k8s.io/apiserver/pkg/endpoints/metrics),
// so that a user can feed them to the metrics system of their choice;
// Recorder records them in process and serves /metrics in Prometheus'
// text format. The server calls the methods concurrently.
//
// If the value given as server.Options.Hooks.Metrics is also an
// http.Handler, the server serves it at /metrics, a non-resource URL
// behind the authenticator and the authorizer, as a cluster does; if it
// is also a Terminations, the requests the server ends early are counted
// there.
type Observer interface {
	// Request is called once for each request the API answered: a served
	// resource's verbs (watches included, when they end), the health
	// endpoints, and the requests the in-flight limits or the connection
	// limits refused (429).
	Request(m Request)
	// LongRunning is called with +1 when a watch begins and -1 when it
	// ends (apiserver_longrunning_requests).
	LongRunning(m Request, delta int)
	// WatchEvent is called for each event a watch sends, with its
	// encoded size in bytes (apiserver_watch_events_total and
	// apiserver_watch_events_sizes).
	WatchEvent(group, version, resource string, size int)
}

// Request is one request, labelled as kube-apiserver labels
// apiserver_request_total and its companions.
type Request struct {
	// Verb is Kubernetes' metrics verb, in upper case: GET, LIST, WATCH,
	// POST, PUT, PATCH, APPLY (a server-side apply patch), DELETE (of one
	// object or a collection), CONNECT, or "other".
	Verb string
	// DryRun is "" without ?dryRun, "All", or "invalid".
	DryRun string
	// Group, Version, Resource and Subresource are the resource's; for a
	// health endpoint Subresource is its path and the others are "".
	Group, Version, Resource, Subresource string
	// Scope is "resource" (one object, or a create), "namespace" (a
	// namespace's collection), "cluster" (a cluster-wide collection), or
	// "" for a health endpoint.
	Scope string
	// Component is "apiserver" for resource requests, "" for health.
	Component string
	// Code is the response's HTTP status code.
	Code int
	// Duration is the time the request took; negative for a request the
	// in-flight limits refused, which Kubernetes counts but does not time.
	Duration time.Duration
	// ResponseSize is the response body's size in bytes; negative where
	// Kubernetes does not observe it (it does for GET routes only: get,
	// list, and watch by ?watch).
	ResponseSize int64
}

// Terminations is what an Observer may also be, to count the requests the
// server ends early in its own defence, as kube-apiserver's
// apiserver_request_terminations_total (its RecordRequestTermination): a
// request over the in-flight limits (429), one that a reserve connection
// of the connection limits refuses (429, Limits.Connections), and one
// past its deadline (504 Timeout). The server tests
// server.Options.Hooks.Metrics for it; Recorder is one.
type Terminations interface {
	// Terminated is called once for each request ended early, labelled
	// from the request alone (Request's Code is the answer's, its
	// Duration and ResponseSize negative).
	Terminated(m Request)
}
