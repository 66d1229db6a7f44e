// Package validation checks object metadata by Kubernetes' rules and
// reports violations in Kubernetes' words: each check returns
// status.FieldError values whose field paths and texts are those
// kube-apiserver writes, so status.NewInvalid turns them into the same 422
// a Kubernetes client would get, cause by cause.
//
// # Names and keys
//
// The string rules take a value and return Kubernetes' messages (nil when
// valid), for use in a NameFunc or in a resource's own validation:
//
//   - IsDNS1123Subdomain: most object names (ConfigMaps, custom resources);
//   - IsDNS1123Label: namespace names;
//   - IsPathSegmentName: the floor every name must pass (no "." or "..",
//     no '/' or '%');
//   - IsQualifiedName: label keys, annotation keys, finalizers
//     ("example.com/my-key");
//   - IsLabelValue: label values.
//
// A NameFunc (NameIsDNSSubdomain, NameIsDNSLabel, NameIsPathSegment) also
// accepts a metadata.generateName prefix, which may end in '-'.
//
// # Metadata
//
// Labels, Annotations, Finalizers, OwnerReferences and ManagedFields check
// one field each. ValidateCreate and ValidateUpdate check a whole
// ObjectMeta in Kubernetes' order; PrepareForUpdate first applies the
// corrections Kubernetes makes to an update (stored uid, timestamps and
// generation kept), so that what remains is a client changing an immutable
// field: `metadata.uid: Invalid value: "u2": field is immutable`.
//
// Where Kubernetes walks a map, it reports in random order; this package
// sorts by key, which is one of the orders Kubernetes may produce.
//
// # Generation and size
//
// InitialGeneration and NextGeneration give metadata.generation on create
// and update. MaxObjectBytes and CheckObjectSize reproduce the limit etcd
// sets on a stored object and the answer kube-apiserver gives past it
// (the limit on request bodies is package negotiation's, as it reads them).
//
// # Exactness
//
// The texts are Kubernetes' own at k8s.io/apimachinery v0.37, including
// its quirks (two spaces before each "or" in the example lists, "characters"
// in name limits but "bytes" in label limits, and generateName's dash
// masking). The interop module's tests compare every rule here with
// apimachinery's code, input by input.
//
// # Non-goals
//
// The package checks; it does not decide. It does not know which name
// rule or scope a resource has, does not compare resourceVersions (a
// precondition, not a validation), and does not validate spec or status.
// It depends only on package status.
package validation
