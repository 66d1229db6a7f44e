// Package negotiation is the HTTP face of representations: it decides what
// a client gets and how a request body is read, with the semantics of a
// Kubernetes API server ("Receiving resources as Tables", "Alternate
// representations of resources" and "Field validation" in the API
// concepts).
//
// # Choosing a response representation
//
// An Endpoint says what one endpoint serves: its media types (JSON, YAML,
// protobuf; a type without a protobuf form does not offer it), the shape
// of its answer (a single Object, a List or a Watch stream) and whether
// the Table and PartialObjectMetadata conversions apply. Its zero value
// serves single objects in all three media types with both conversions.
// Endpoint.Negotiate reads the request's Accept header lines and returns a
// Result: the media type, the conversion Target (none, Table,
// PartialObjectMetadata, PartialObjectMetadataList, each in meta.k8s.io/v1
// or v1beta1), whether to indent JSON, and whether the answer is a watch
// stream. When nothing is acceptable it returns Kubernetes' 406:
//
//	only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf
//
// The Accept header is parsed by RFC 9110: media ranges with wildcards,
// parameters (token or quoted-string), q values, optional whitespace, type
// and subtype compared without regard to case. Parsing is a single pass
// that never backtracks and stops after MaxAcceptEntries entries, so its
// work is linear in the header and bounded; malformed entries are skipped
// (ParseAccept reports them with ErrMalformedAccept). Negotiating
// kubectl's header allocates nothing.
//
// The choice follows Kubernetes: the entry with the highest q wins, then
// the more specific one, then the first in the header; within the entry
// the first media type in server order (JSON, YAML, protobuf). No Accept
// header, or "*/*", means JSON. The parameters as, g and v ask for a
// conversion (g=meta.k8s.io, v=v1 or v1beta1 only; Table in JSON or YAML
// only), stream=watch is accepted for JSON and protobuf, pretty=1 asks for
// indented JSON, and sv never matches. Where this package deliberately
// differs from Kubernetes:
//
//   - q=0 means "not acceptable" (RFC 9110): application/json;q=0, */*
//     answers YAML, where Kubernetes answers JSON.
//   - Type and subtype are compared case-insensitively.
//   - An offer the endpoint cannot fulfil is not made, so the client's next
//     choice is used instead of a later error: PartialObjectMetadataList
//     is offered only for lists and PartialObjectMetadata only for single
//     objects and watch events, and a watch never offers YAML (it has no
//     stream form). Kubernetes negotiates these and then answers 406.
//
// # Non-goals
//
// The package does not route requests, authenticate, or know the user's
// types: objects reach it already encoded, or as the plain values of their
// metadata. It does not decode protobuf request bodies into Go types, does
// not implement PATCH media types, and does not serve CBOR or WebSocket
// watches.
package negotiation
