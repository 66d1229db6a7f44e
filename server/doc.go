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
// resource's schema, Resource.Schema) and metadata.managedFields on
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
// every error a client can cause. Deletion, kube-apiserver's quirks kept
// for clients' sake, limits against hostile clients, memory bounds,
// authentication, the filter chain and the hooks are documented where
// they are set: ServeHTTP, LimitOptions, HistoryOptions, SecurityOptions,
// HookOptions and Admission; how the packages fit, at Server.
//
// # Write path
//
// Create, update (PUT), patch, server-side apply and the writes of the
// status and scale subresources go through one pipeline, in this order:
//
//  1. the new object: the body decoded, a patch applied to the current
//     object or an apply merged into it and the result decoded (each
//     decoding finished by Resource.Coerce), or a subresource's view
//     mapped onto it; on update, its resourceVersion checked against the
//     current one's (after the metadata.uid of a PUT's body, which is
//     the write's storage precondition, as in Kubernetes: another uid
//     is a 409 Conflict before anything else is checked); a PUT of a
//     missing object is its 404, unless its resource has
//     Resource.CreateOnUpdate (kube-apiserver's create-on-update of
//     Leases, Events, RBAC roles and bindings...): the write is then a
//     create (operation CREATE, answered 201) that ignores the body's
//     resourceVersion, and a uid in the body is the storage's 409,
//     whose "UID in object meta" is the missing object's empty one;
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
//  6. Options.Admission.Mutate, whose result Resource.Coerce finishes,
//     then Resource.Prepare, which may change anything, so the object is
//     encoded again after them if they are set;
//  7. metadata.generation (Resource.Generation): one more when the
//     encoding differs from the current object's outside metadata and
//     status;
//  8. validation: Kubernetes' metadata rules, then Resource.Validate; the
//     finalizer warnings of a non-core resource;
//  9. Options.Admission.Validate, then Resource.ToStorage, which may
//     give the object the storage keeps instead (encoded again, and
//     compared in step 10 with the current object as stored);
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
// with the object it deletes, then deletes that version. A Subresource
// or Resource.Create that writes puts its object to admission itself
// (Server.AdmitMutating, AdmitValidating), and Server.Update is a write
// the server makes through this pipeline as a client would. Admission
// hooks annotate the request's audit event with AddAuditAnnotation.
//
// # Non-goals
//
// No admission webhooks (Options.Admission is in-process); the state
// lives in memory (package store) and is gone with the process unless
// Options.Storage keeps it elsewhere (package etcdstore). The
// server serves the status (Resource.StatusSubresource) and scale
// (Resource.Scale) subresources itself, and those a Resource names
// (UpdateSubresources, ObjectSubresources, Subresources: a Pod's log or
// eviction has a handler of its own); the others answer 404. A resource
// that keeps no objects and answers a create by acting on others, as
// kube-apiserver's bindings, or with an object of its making, as its
// access reviews, sets Resource.Create.
package server
