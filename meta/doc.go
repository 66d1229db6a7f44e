// Package meta is the metadata vocabulary of apisem: Kubernetes'
// ObjectMeta, ListMeta, TypeMeta and their parts (OwnerReference,
// ManagedFieldsEntry, FieldsV1, Time, MicroTime) as plain Go types, with
// the JSON and protobuf forms Kubernetes servers write, byte for byte.
//
// Every other package speaks these types: a store keeps objects that embed
// ObjectMeta, a Status carries a ListMeta, list and watch encoders write
// them. There are no conversions between metadata types because there is
// only one of each.
//
// # Objects
//
// A type embeds TypeMeta (inlined in JSON) and ObjectMeta (as "metadata"),
// as every Kubernetes type does. The promoted Meta method makes a pointer
// to it an Object, the one-method interface through which stores and
// servers read and set metadata without knowing the type.
//
// # JSON
//
// The struct tags follow k8s.io/apimachinery's metav1 types: field names,
// order and omission are those of encoding/json on the Kubernetes types,
// so the same values encode to the same bytes. A Time is RFC 3339 in UTC
// with whole seconds and null when zero; a zero creationTimestamp is left
// out (omitzero, as since Kubernetes 1.34). A MicroTime has six fraction
// digits. FieldsV1 is inline JSON, not base64.
//
// # Protobuf
//
// AppendObjectMeta, SizeObjectMeta and ConsumeObjectMeta (and the same for
// ListMeta, Time and MicroTime) follow the Append/Size/Consume shape of
// google.golang.org/protobuf/encoding/protowire and produce what
// Kubernetes' generated marshallers (k8s.io/apimachinery
// pkg/apis/meta/v1/generated.pb.go) produce: fields in number order,
// non-pointer fields written even when zero, pointer fields only when set,
// map entries sorted by key, a Time as seconds with a zero nanos. Append
// functions do not allocate; Consume functions copy what they keep, skip
// unknown fields and wrap ErrMalformed (and io.ErrUnexpectedEOF for
// truncation). AppendObjectMetadata writes ObjectMeta as field 1, where
// every object keeps it.
//
// The wire format (tags, varints, lengths, skipping unknown fields and
// groups) is google.golang.org/protobuf/encoding/protowire's, which
// depends on nothing outside the standard library; its errors come
// wrapped in ErrMalformed.
//
// # Differences from Kubernetes
//
// A time outside years 0 to 9999 in UTC does not decode: from JSON it is
// a *time.ParseError (`parsing time "0000-01-01T00:00:00+01:00": year -1
// in UTC is outside of range [0,9999]`), which a server answers as the
// 400 of any body that does not decode; from protobuf, seconds out of
// that range wrap ErrMalformed. Kubernetes accepts such a time, in
// metadata.managedFields or an Event, and serves it as
// -0001-12-31T23:00:00Z, which Go's RFC 3339 parser rejects: one write
// would break every typed JSON client (and so informer) of the
// collection.
//
// # Non-goals
//
// No validation (name syntax, label syntax): that is the server's, with
// Kubernetes' error messages from package status. No server-side apply:
// ManagedFieldsEntry is carried, never computed. No ShardInfo in ListMeta
// (an alpha field; it is skipped on decode). No getters and setters per
// field, as metav1.Object has: the struct is the interface.
package meta
