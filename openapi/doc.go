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
//
// # Schemas from Go types
//
// Package server publishes a resource's OpenAPI schema in /openapi/v2
// and /openapi/v3 (kubectl explain, client-side validation, kubectl apply's
// merge rules) and types its server-side apply, so an applied field it
// does not declare is refused with structured-merge-diff's 500 whatever
// fieldValidation says, as on a cluster. server.Resource.Schema gives
// it; left nil, it is derived from the Go type of server.Resource.New's
// objects:
// json names, omitempty or omitzero for optional members (the others are
// required, as Kubernetes' OpenAPI generator has it), embedded structs
// promoted, pointers, slices ([]byte is base64), maps, the meta types
// as the server publishes them, time.Time, time.Duration, Kubernetes'
// intstr.IntOrString as a CustomResourceDefinition's, named structs as
// definitions named by their Go package as Kubernetes names its own
// (com.example.gizmo.v1.GizmoSpec; they may be recursive), and any value
// for interfaces and types that marshal themselves. A resource whose
// type marshals itself has none: its apply takes any field, and one the
// type lacks answers as in a POST's body (fieldValidation: a warning, a
// 400 or nothing). Struct tags say what json's cannot:
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
// that does not fit its member fails server.New. The schema documents; it does
// not validate (enum included): server.Resource.Validate does.
package openapi
