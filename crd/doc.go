// Package crd serves CustomResourceDefinitions the way kube-apiserver
// does: a server that has Resource among its resources and a running
// Controller accepts apiextensions.k8s.io/v1 CustomResourceDefinitions
// (POST, PUT, DELETE, or Install, or Load from files) and serves the
// custom resources they define, with their schemas, printer columns,
// selectable fields and status and scale subresources, through package
// server.
//
// # Usage
//
//	defs := crd.Resource()
//	s, err := server.New(server.Options{Resources: []*server.Resource{defs}})
//	c := crd.Start(s, defs)
//	defer c.Stop()
//	list, err := crd.Load("config/crd/bases")
//	err = c.Install(ctx, list...) // created and established: served
//
// The definitions resource publishes the OpenAPI schema of
// CustomResourceDefinition as kube-apiserver does (the definitions of
// apiextensions-apiserver's types, with their fields, types, defaults and
// list types), so that kubectl explains definitions, and kubectl apply
// computes their strategic merge patches from it.
//
// # Lifecycle
//
// The controller gives a definition the conditions Kubernetes gives it:
// NamesAccepted (False with reason PluralConflict, SingularConflict,
// ShortNamesConflict, KindConflict or ListKindConflict and a message such
// as `"widgets" is already in use` when another definition of the group
// holds a name), then Established once its served versions are served
// (server.AddResource, one server.UnstructuredResource per version,
// sharing one storage). A DELETE adds the finalizer
// customresourcecleanup.apiextensions.k8s.io and a Terminating condition;
// from then on creates of its objects are refused (403 `create not
// allowed while custom resource definition is terminating`); the
// controller deletes every object of the definition, waits for their
// finalizers, stops serving the resource and removes the finalizer, and
// the definition is gone. Watches of the resource end once they have
// sent the DELETED events of its objects.
//
// Every request to a deprecated version gets a Warning, errors included:
// the version's deprecationWarning, else Kubernetes' default
// `<group>/<version> <Kind> is deprecated; use <group>/<version> <Kind>`,
// which proposes the served, non-deprecated version of the highest
// priority among those of a higher priority (version.Compare) and
// stops after "is deprecated" when there is none.
//
// # Scale
//
// A version with the scale subresource serves <name>/scale as
// autoscaling/v1 Scale (get, update, json and merge patches, server-side
// apply; kubectl scale; a strategic merge patch is a 415, as for the
// object): spec.replicas, status.replicas and status.selector are the
// values at specReplicasPath, statusReplicasPath and labelSelectorPath;
// a write sets the value at specReplicasPath and goes through the
// object's validation, where the replicas must be integers from 0 to
// 2147483647 (`.spec.replicas: Invalid value: -1: should be a
// non-negative integer`). Its managedFields are Kubernetes': recorded on
// the Scale view and mapped to the object's specReplicasPath (an entry
// with subresource "scale"), with their conflicts. kube-apiserver 1.37
// answers most server-side applies to a custom resource's scale
// subresource with a 500 (it fails to convert the Scale as a custom
// resource); here they work as they do on a Deployment's.
//
// # Schemas
//
// Objects are handled with their version's structural schema as
// Kubernetes handles them (package crd/schema): on decoding, defaults are
// set, unknown fields are pruned and reported as the fieldValidation
// parameter asks (a Warning `unknown field "spec.foo"`, or in Strict mode
// the 400 `... strict decoding error: unknown field "spec.foo"`), and
// nulls the schema does not allow are dropped; objects read from storage
// are defaulted and pruned by the current schema too, so that a write to
// an object stored before its definition gained a default finds it there
// (its writer owns the default only if it changes it). Then the object is
// validated: a failure is a 422 whose causes carry kube-openapi's
// messages, such as `Invalid value: 11: spec.replicas in body should be
// less than or equal to 10`, with the errors of the scale paths after the
// schema's, then those of embedded resources' apiVersion and kind, then
// the duplicates in set and map lists. An update ratchets as Kubernetes'
// CRDValidationRatcheting does (schema.ValidateUpdate); the checks of the
// scale paths do not.
//
// # Versions and conversion
//
// The versions of a definition share one storage, where objects are in
// the storage version, as kube-apiserver keeps them: a write through
// another version is validated in its own, then converted to the storage
// version and pruned by that version's schema (no defaults), so that a
// member the storage version lacks is dropped, that version's required
// members too; a read defaults and prunes the stored object by the
// storage version's schema, converts it to the version asked for and
// prunes it by that version's schema, without its defaults (recorded from
// kube-apiserver 1.37: testdata/storage-version-pruning.json). The
// conversion is the definition's strategy: None rewrites the apiVersion;
// Webhook calls spec.conversion.webhook as kube-apiserver does, with a
// ConversionReview apiextensions.k8s.io/v1 (v1beta1 when that is the
// first of conversionReviewVersions it knows) holding the one object to
// convert, POSTed to clientConfig.url, or to the address of
// clientConfig.service (namespace, name, path, port 443 by default)
// that Options.ResolveService gives (by default
// https://<name>.<namespace>.svc:<port>, kube-apiserver's own resolver
// where no cluster network routes a service; the certificate is checked
// for that name), with ?timeout=30s and a 30-second timeout, verified by
// caBundle or else by the system's roots. Objects already in the version
// asked for are not sent. The answer is checked as the cluster checks it,
// with its messages: the uid (in v1), the result, the number of objects,
// their apiVersion and kind, their name, namespace and uid; of their
// metadata only labels and annotations (valid ones) are taken. A failed
// conversion of a write is the cluster's 500 without reason,
// `conversion webhook for <group>/<version>, Kind=<Kind> failed: ...`; of
// a read, the 500 of an object the storage cannot decode (InternalError
// on a get, StorageReadError on a list), as kube-apiserver 1.37 answers
// (testdata/conversion-webhook.json). A read's conversion is made once
// per stored version and version read, and shared by every answer (get,
// list, watch events, the cells of a Table row, whose latest 512 are
// kept for them), one review per object, as kube-apiserver's watch
// cache converts each object once as it decodes it (a list sends no
// review of its own there either); a failure is tried again on the next
// read, and a watch ends at an event it cannot convert (its client
// watches again from its last resourceVersion).
//
// Unlike kube-apiserver: an object written under an earlier
// storage version is read as one of the current storage version (the
// store keeps no version with objects; kube-apiserver knows each
// object's); the object of a create reaches the webhook before it has
// its uid and creationTimestamp (the store gives them); answers of
// metadata alone (Tables, PartialObjectMetadata) and label selectors see
// the stored labels and annotations, not those a webhook gives on the
// way out; a caBundle that is not PEM (which Kubernetes accepts on create,
// as here, and refuses on some updates) fails each conversion rather
// than the definition's serving.
//
// A definition's spec.conversion is checked as Kubernetes checks it, with
// its paths (spec.conversion.webhookClientConfig.url, ...) and messages:
// exactly one of an HTTPS url or a service (whose port defaults to 443),
// review versions that include v1 or v1beta1, nothing of a webhook with
// the None strategy (testdata/conversion-validation.json).
//
// # Not supported
//
// x-kubernetes-validations (CEL) rules are kept and published but
// evaluated only when Options.Rules is set (the nested module
// github.com/apisem/apisem/crd/cel does it with apiextensions-apiserver's
// own rule checks and validator): use
// Options.Resource and Options.Start, with the same Options, in place of
// Resource and Start; without Options.Rules the create or update of a definition with rules
// gets a Warning that they are not enforced (RulesNotEnforced); the metadata of an
// embedded resource is not validated (its apiVersion and kind are), nor
// are the defaults of resources' metadata. Where Kubernetes prints a Go
// structure as a bad value (spec.versions), the versions' names are
// printed instead.
//
// # Definitions
//
// A definition is checked as Kubernetes checks it, with its messages:
// names, versions, scale paths, printer columns, selectable fields, and
// schemas, which must be structural (every value typed, no type under
// allOf, anyOf, oneOf or not, metadata restricted to name and
// generateName, ...), with valid patterns, list and map types and map
// keys, and defaults that are pruned and valid. Kubernetes checks a
// definition in its internal form, where what every version has alike
// (one version's, often) is the definition's: the errors of a schema, the
// subresources, the printer columns or the selectable fields all versions
// share are at spec.validation.openAPIV3Schema, spec.subresources,
// spec.additionalPrinterColumns and spec.selectableFields, those of
// versions that differ at spec.versions[i].
//
// # Printer columns
//
// A column's jsonPath is kubectl's JSONPath (package jsonpath: filters
// such as .status.conditions[?(@.type=="Ready")].status, wildcards,
// recursive descent, unions, slices), evaluated as a cluster's table
// convertor does: the first value found makes the cell, by the column's
// type; nothing found, or an evaluation error, is a null cell. As in
// Kubernetes, a definition only needs each path to start with '.'; a
// path that does not parse is accepted, and the Table then shows the
// columns before it only.
package crd
