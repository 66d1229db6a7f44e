// Package api holds the resource types the example server serves: core v1
// ConfigMap, Secret, Namespace and Event, and Widget of the custom group
// example.apisem.dev/v1, with everything the server needs to know about
// each (Resource): names for URLs and discovery, scope, JSON and protobuf
// forms, Table columns, strategic merge patch strategy, defaulting and
// validation.
//
// # Wire forms
//
// JSON follows Kubernetes' Go types field by field: the same key order and
// omission rules (k8s.io/api/core/v1/types.go), so that encoding/json
// writes the bytes a Kubernetes server writes; every type embeds
// meta.TypeMeta and meta.ObjectMeta. Protobuf uses package meta's codec
// for metadata and times and package envelope's writers and readers for
// the rest, with the field numbers of Kubernetes'
// generated.proto files and the emission rules of its generated
// marshallers (always-written
// scalars, sorted map keys, nil-versus-empty bytes, whole-second times), so
// client-go's generated decoders read it. Widget, like a custom resource,
// has no protobuf form.
//
// Stored objects carry no kind or apiVersion: the server adds them when it
// writes a single object or a watch event, and leaves them out of list
// items of core types, as Kubernetes does (a custom resource's list items
// keep them).
//
// # Non-goals
//
// These are example types, not a copy of k8s.io/api: only the fields of
// the four kinds are modelled.
//
// # Validation
//
// ConfigMaps, Secrets and Events are checked with the rules of Kubernetes'
// registry (ValidateConfigMap, ValidateSecret, and ValidateEventCreate for
// the core v1 API in k8s.io/kubernetes pkg/apis/core/validation), written
// anew here, with the same causes: field paths, types and messages, in the
// same order. Secrets get what their type asks (kubernetes.io/tls needs
// tls.crt and tls.key, a docker config must decode as a JSON object,
// basic-auth a username or password, ssh-auth a private key, a service
// account token its account's annotation), and a TLS Secret whose
// certificate and key do not pair is stored with Kubernetes' warning.
// builtin's TestExampleAPIDifferential compares the answers with
// Kubernetes' own code. Where a request breaks more than one rule the
// answers may still differ in two ways: map keys are reported sorted
// (Kubernetes reports them in its maps' random order), and the server
// checks an Event's metadata along with its rules, where Kubernetes
// checks the metadata only once the Event's own rules pass.
package api
