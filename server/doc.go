// Package server turns resources kept in a store into a complete
// Kubernetes REST API: an http.Handler that kubectl, client-go and
// controller-runtime use as they use a kube-apiserver.
//
// # Usage
//
// Describe each resource with a Resource (names, scope, how to make an
// empty object, its Table columns, field selectors, defaulting and
// validation hooks) and pass them to New:
//
//	s, err := server.New(server.Options{Resources: []*server.Resource{gizmos}})
//	if err != nil { ... }
//	go s.ListenAndServe()               // or httptest.NewServer(s)
//	defer s.Shutdown(ctx)               // ends watches first
//
// A served type embeds TypeMeta and meta.ObjectMeta and implements
// Object (Types and DeepCopyObject); a type with a protobuf form also
// implements ProtoObject and sets Resource.DecodeProto. The package
// Example serves a new type in about fifty lines.
//
// # What every resource gets
//
// Request routing for /api and /apis paths, cluster and namespace scope,
// all-namespace lists and the legacy /watch/ paths; every verb (get, list
// with limit and continue, watch with bookmarks and streaming lists,
// create with generateName, update, patch in JSON patch, merge patch and
// (for types that declare Resource.PatchSchema) strategic merge patch, delete with
// preconditions, propagationPolicy and finalizers, deletecollection (one
// page of the list it answers with limit and continue, as a cluster does));
// server-side apply (application/apply-patch+yaml, typed by the
// resource's schema, see # Schemas) and metadata.managedFields on
// every write (package managedfields);
// every resourceVersion rule of package rv; label and field selectors;
// dryRun and fieldValidation on every write; Tables, PartialObjectMetadata
// and protobuf where the type has it; metadata.generation
// (Resource.Generation); name validation; discovery documents (aggregated
// or not, in JSON, YAML or protobuf) and OpenAPI documents
// (JSON or gnostic's protobuf, cached as a cluster's are: ETag, hashed
// immutable /openapi/v3 URLs) built from the registered resources (a group's versions in Kubernetes'
// version priority, the first preferred: v1 before v1beta2 before
// v1beta1, whatever the order they were registered in); and Kubernetes' exact Status for
// every error a client can cause.
//
// # Schemas
//
// A resource's OpenAPI schema is published in /openapi/v2 and
// /openapi/v3 (kubectl explain, client-side validation, kubectl apply's
// merge rules) and types its server-side apply, so an applied field it
// does not declare is refused, as on a cluster. Resource.Schema gives it;
// left nil, it is derived from the Go type of Resource.New's objects:
// json names, omitempty or omitzero for optional members (the others are
// required, as Kubernetes' OpenAPI generator has it), embedded structs
// promoted, pointers, slices ([]byte is base64), maps, the meta types
// as the server publishes them, time.Time, time.Duration, Kubernetes'
// intstr.IntOrString as a CustomResourceDefinition's, named structs as
// definitions named by their Go package as Kubernetes names its own
// (com.example.gizmo.v1.GizmoSpec; they may be recursive), and any value
// for interfaces and types that marshal themselves. Struct tags say what json's cannot:
//
//	doc:"The color of the gizmo."             the description
//	apisem:"enum=red|blue"                    the values a string may take
//	apisem:"optional"  apisem:"required"      overrides omitempty's rule
//	apisem:"listType=map,listMapKeys=name|protocol"
//	apisem:"listType=set"  apisem:"mapType=atomic"
//	patchStrategy:"merge" patchMergeKey:"name" (Kubernetes' own tags)
//
// apisem options are separated by commas, the values of one by "|";
// listType, listMapKeys and mapType mean what Kubernetes' +listType,
// +listMapKeys and +mapType markers mean to server-side apply. A tag
// that does not fit its member fails New. The schema documents; it does
// not validate (enum included): Resource.Validate does.
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
// # Hooks
//
// Options.Admission is asked about every write, as Kubernetes' admission
// control: Check may refuse any create or update before validation
// (package namespace refuses content in terminating namespaces with it,
// as NamespaceLifecycle does), Mutate may change an object that is
// created or updated, Validate may refuse any create, update or deletion
// of an object as it will be stored. Resource.Admit is a resource's own
// Check (package crd refuses creates while a definition terminates with
// it). Hooks warn the client with AddWarning. Resource.Delete replaces
// the store's deletion where a resource's is more (a Namespace's is
// two-phase). Store, StoreOf and
// BroadcasterOf give controllers in the same process the store and the
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
//
// # Write path
//
// Create, update (PUT), patch, server-side apply and the writes of the
// status and scale subresources go through one pipeline, in this order:
//
//  1. the new object: the body decoded (Resource.Coerce), a patch applied
//     to the current object, an apply merged into it, or a subresource's
//     view mapped onto it; on update, its resourceVersion checked
//     against the current one's;
//  2. system fields from the current object;
//  3. Resource.Default;
//  4. the one encoding of the object, from which every later step reads;
//     for a resource with a status subresource, status from where it
//     belongs (none on create, the current object's, or the status
//     write's, which changes nothing else), spliced into that encoding;
//     then Resource.Admit and Options.Admission.Check, which may refuse
//     the write;
//  5. metadata.managedFields (package managedfields; an apply recorded
//     its own in step 1);
//  6. Options.Admission.Mutate, then Resource.Prepare, which may change
//     anything, so the object is encoded again after them if they are set;
//  7. metadata.generation (Resource.Generation): one more when the
//     encoding differs from the current object's outside metadata and
//     status;
//  8. validation: Kubernetes' metadata rules, then Resource.Validate; the
//     finalizer warnings of a non-core resource;
//  9. Options.Admission.Validate;
//  10. the size check (Options.Limits.MaxObjectBytes) and the no-op check on the
//     final encoding, step 4's with the final metadata in place of its
//     own: an update equal to the current object writes nothing and
//     answers it, with its resourceVersion and no watch event;
//  11. the store; the stored version's JSON is the write's, with the
//     resourceVersion the store gave it, shared by the response and
//     the watchers; a dry run's answer is the write's JSON too.
//
// The current object's JSON is read from the store's cache, never encoded
// again. A deletion asks Resource.Admit and Options.Admission.Validate
// with the object it deletes, then deletes that version.
//
// # Hostile clients
//
// The handler bounds every request as kube-apiserver does, so that slow
// or stuck clients cannot hold memory, goroutines or connections: a
// deadline (Options.Limits.RequestTimeout, 60 s, answered with the 504 Timeout
// Status), a body read deadline, caps on the reads and writes in flight
// (400 and 200, answered with 429 and Retry-After), and write deadlines,
// which also drop a watcher whose client stops reading. Serve adds header
// and idle timeouts and a header size limit; Shutdown closes what its
// grace period did not end. LimitOptions documents each limit and its
// default; all but Serve's hold for httptest servers too.
//
// # How the packages fit
//
// Package rv decides what each request's query means; store keeps the
// objects of all resources in one revision space (one resourceVersion
// sequence, as one etcd) and answers reads, writes and list pages; a
// watch.Broadcaster per resource serves the watches; negotiation chooses
// media types, reads bodies, converts to Tables and PartialObjectMetadata,
// frames watch streams and renders errors; envelope writes the protobuf
// forms. Each stored version is encoded once per form and shared by list
// pages, responses and watch events.
//
// # Memory
//
// A list response never holds the list: compact JSON and protobuf lists
// are written from the items' cached encodings, other forms (YAML,
// indented JSON, Tables, PartialObjectMetadata) are converted one item at
// a time, and those conversions share Options.Limits.MaxListEncodingBytes. A
// response therefore holds a few of its items, whatever the list's size.
// History is bounded by time, revisions and estimated bytes
// (Options.History: Window, MaxRevisions, MaxBytes); what falls out
// of it answers 410 Gone, and it expires on a timer while the server is
// idle.
//
// # Authentication, authorization and TLS
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
//
// # Filters
//
// ServeHTTP parses each request once: its verb, group, version, resource,
// subresource, namespace, name, whether it is long-running (a watch), and
// its query, decoded in one pass. Every later stage reads that value, so
// they cannot disagree about what a request is (a watch spelled
// ?w%61tch=1 is a watch to all of them). Then the request runs through
// the filters, each a func(http.Handler) http.Handler, in Kubernetes'
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
// # Non-goals
//
// No admission webhooks (Options.Admission is in-process); the state
// lives in memory (package store) and is gone with the process. Of the
// subresources only status (Resource.StatusSubresource) and scale
// (Resource.Scale) are served; the others
// answer 404.
//
// A path with an empty segment (two slashes) is answered as
// kube-apiserver answers it where that is an error or a read: an empty
// name before a subresource (.../pods//status is 400 `name must be
// provided` for get, update and patch); an empty namespace of a built-in
// resource (/api/v1/namespaces//configmaps lists and watches every
// namespace; with a name, or a deletecollection that finds something to
// delete, it is 400 `Namespace parameter required.`); a custom
// resource's paths, read as kube-apiserver's request info reads them.
// Elsewhere it is a 404, and so is a create in an empty namespace, a 422
// on a cluster. Where two errors apply, the order of a cluster's checks
// is followed for those of the router (405, 406, 415) and of a patch's
// media type; the others' order may differ.
package server
