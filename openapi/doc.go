// Package openapi holds Schema, the OpenAPI schema of a served type, and
// the names of the definitions every server publishes beside the
// resources' own (ObjectMetaSchema, TimeSchema, ...).
//
// Package server writes these schemas into /openapi/v2 and /openapi/v3,
// where kubectl explain reads them, and types server-side apply with
// them; it derives one from a resource's Go type when the resource gives
// none. The package is the vocabulary alone, as k8s.io/kube-openapi's
// spec package is to a kube-apiserver: it depends on the standard library
// only.
package openapi
