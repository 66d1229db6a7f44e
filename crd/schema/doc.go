// Package schema handles custom resources with the structural OpenAPI v3
// schema of their CustomResourceDefinition, as k8s.io/apiextensions-apiserver's
// pkg/apiserver/schema and the packages below it (pruning, defaulting,
// listtype, validation, ratcheting) do: it defaults, prunes and validates
// objects, and checks the schemas that definitions hold. Package crd
// serves the definitions and their resources with it; this package knows
// nothing of definitions, servers or storage, and works on objects as
// decoded JSON: map[string]any, []any, string, int64 (integers that fit),
// float64, bool and nil, as server.Unstructured holds them. An object here
// is a custom resource's members other than apiVersion, kind and
// metadata, which the server handles itself.
//
// # Decoding: defaults and pruning
//
// Kubernetes decodes a custom resource by setting the schema's defaults
// (Default), then dropping the members the schema does not know, and the
// nulls it neither allows nor defaults (Prune), whose paths it reports
// as unknown fields: a Warning `unknown field "spec.foo"`, or under
// fieldValidation=Strict a 400. It does the same to objects read from
// storage, so that an object stored before its definition gained a
// default reads with it; Tree.Settled tells, without copying, the stored
// objects that need nothing, as every object written under the current
// schema does. A Tree, made once from a schema, defaults and prunes
// objects without copying its schemas; Default and Prune make one for
// one object.
//
// # Validation
//
// Compile makes a Validator, which checks objects against type,
// properties, required, enum, pattern, minLength/maxLength,
// minItems/maxItems, uniqueItems, minimum/maximum (exclusive too),
// multipleOf, minProperties/maxProperties, format (the string formats
// Kubernetes checks: byte, date, date-time, duration, ipv4, ipv6, cidr,
// mac, hostname, uuid, ...), nullable, items, additionalProperties,
// x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields,
// x-kubernetes-embedded-resource, and allOf, anyOf, oneOf and not as
// kube-openapi evaluates them (`"spec" must validate one and only one
// schema (oneOf). Found none valid`, with the errors of the alternative it
// finds closest). Errors carry kube-openapi's messages with Kubernetes'
// field paths, such as `spec.replicas: Invalid value: 11: spec.replicas in
// body should be less than or equal to 10`. The errors of embedded
// resources' apiVersion and kind are returned apart, and the duplicates
// of x-kubernetes-list-type set and map lists (`spec.ports[1]: Duplicate
// value: {"name":"http"}`) by ListErrors, because Kubernetes reports them
// after other checks of its own (a definition's scale paths). Validate
// and ValidateUpdate do all of it in one call.
//
// # Ratcheting
//
// An update ratchets, as Kubernetes' CRDValidationRatcheting (KEP-4008,
// on by default since 1.30) does: the errors of members the update left
// as they were are dropped, so that an object stored under an older,
// looser schema can still be updated in its other members (see
// ValidateUpdate for how members are correlated with the old object's and
// compared). An unchanged value's junctor errors ratchet with the value's,
// but an alternative's members are checked without ratcheting, as
// Kubernetes checks them; the duplicates of lists ratchet as a whole:
// none are reported when the old object had one.
//
// # Definitions' schemas
//
// Check finds what Kubernetes refuses in the schema of a definition
// being written, with its messages and paths: the schema must be
// structural (every value typed, no type under allOf, anyOf, oneOf or
// not, metadata restricted to name and generateName, ...), with valid
// patterns, list and map types and map keys, and defaults that are
// pruned and valid. CheckSelectableFields checks the selectable fields
// of a version against its schema.
//
// # Validation rules
//
// x-kubernetes-validations (CEL) rules are kept in JSONSchemaProps, and
// are checked and evaluated by a RuleCompiler, which this package does
// not have: the nested module github.com/apisem/apisem/crd/cel implements
// one with apiextensions-apiserver's own code, which this module does not
// depend on.
//
// # Not supported
//
// The metadata of an embedded resource is not validated (its apiVersion
// and kind are), nor are the defaults of resources' metadata. Kubernetes
// visits an object's properties in Go map order, so the order of errors
// in different properties varies there from one request to the next;
// here properties are visited sorted.
package schema
