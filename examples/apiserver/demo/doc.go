// Package server is the example Kubernetes-compatible API server: it
// composes apisem's packages into an http.Handler that serves core v1
// Namespaces, ConfigMaps, Secrets and Events and the custom resource
// widgets.example.apisem.dev/v1 (package api) so that kubectl and
// client-go use it as they use a kube-apiserver.
//
// # Usage
//
//	s, err := server.New(server.Options{})
//	if err != nil { ... }
//	ts := httptest.NewServer(s)          // or s.ListenAndServe()
//	defer ts.Close()
//	defer s.Shutdown(context.Background()) // ends watches first
//	cfg := &rest.Config{Host: ts.URL}    // client-go
//
// New takes well under a millisecond for an empty server, so a test can
// start one per case.
//
// # What it serves
//
// Discovery (/api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>,
// /version) in the unaggregated form client-go falls back to; an OpenAPI v3
// document (/openapi/v3) of the operations and their query parameters,
// without schemas, which is what kubectl create and apply look at before
// they leave field validation to the server; and every
// verb on every resource: get, list (limit and continue, label and field
// selectors, every resourceVersion rule of package rv), watch (JSON and
// protobuf streams, bookmarks, streaming lists, selectors, single-object
// watches through /watch/ paths or fieldSelector=metadata.name=), create
// (generateName), update, patch (JSON patch, merge patch, and strategic
// merge patch for the core types), delete (finalizers, preconditions) and
// deletecollection; dryRun and fieldValidation on every write; Tables and
// PartialObjectMetadata on every read (in protobuf too for the custom
// resource, which otherwise is JSON and YAML only, as a CRD). Every client
// error is a Kubernetes Status. Server-side apply answers 415.
//
// Deleting a namespace is two-phase, as in Kubernetes: the namespace turns
// Terminating, a controller goroutine deletes its contents, waits for
// objects held by finalizers, then removes the namespace.
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
// # Non-goals
//
// No authentication, authorization, admission webhooks, server-side apply,
// OpenAPI schemas (so no kubectl explain), aggregated discovery, event
// expiry or persistence: the state lives in memory and is gone with the
// process. Subresources (status, scale, finalize) are not served and
// answer 404.
package demo
