// Package negotiation is the HTTP face of representations: it decides what
// a client gets and how a request body is read, with the semantics of a
// Kubernetes API server ("Receiving resources as Tables", "Alternate
// representations of resources" and "Field validation" in the API
// concepts). It knows nothing of the user's types: objects reach it
// already encoded, or through functions the user supplies.
//
// # Choosing a representation
//
// An Endpoint says what one endpoint serves: its media types (JSON, YAML,
// protobuf; a type without a protobuf form does not offer it), the shape
// of its answer (a single Object, a List or a Watch stream) and whether
// the Table and PartialObjectMetadata conversions apply. Its zero value
// serves single objects in all three media types with both conversions.
// Endpoint.Negotiate reads the request's Accept header lines and returns a
// Result: the media type, the conversion Target (none, Table,
// PartialObjectMetadata or PartialObjectMetadataList, each in
// meta.k8s.io/v1 or v1beta1), whether to indent JSON, and whether the
// answer is a watch stream. When nothing is acceptable it returns
// Kubernetes' 406, which names the media types of Kubernetes' serializers
// whatever the endpoint serves (as kube-apiserver does for custom
// resources, which have no protobuf form):
//
//	only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf
//
// A watch is negotiated as a list first, as Kubernetes does: only when
// that finds a media type without a stream form (YAML) does the 406 name
// the stream forms instead.
//
// The Accept header is parsed by RFC 9110: media ranges with wildcards,
// parameters (token or quoted-string), q values, optional whitespace, type
// and subtype compared without regard to case. Parsing is one pass that
// never backtracks and stops after MaxAcceptEntries entries, so its work
// is linear in the header and bounded; malformed entries are skipped
// (ParseAccept reports them with ErrMalformedAccept, a failed negotiation
// wraps it). Negotiating kubectl's header allocates nothing.
//
// The choice follows Kubernetes: the entry with the highest q wins, then
// the more specific one, then the first in the header; within the entry,
// the first media type in server order (JSON, YAML, protobuf). No Accept
// header, or "*/*", means JSON. The parameters as, g and v ask for a
// conversion (g=meta.k8s.io, v=v1 or v1beta1 only; Table in JSON or YAML
// only), stream=watch is accepted for JSON and protobuf, pretty=1 asks for
// indented JSON, and sv never matches. JSON is also indented for
// ?pretty=true and for curl, Wget and browsers (by User-Agent). Where this
// package deliberately differs from Kubernetes:
//
//   - q=0 means "not acceptable" (RFC 9110): "application/json;q=0, */*"
//     answers YAML, where Kubernetes answers JSON.
//   - Type and subtype are compared case-insensitively.
//   - An offer the endpoint cannot fulfil is not made, so the client's next
//     choice is used instead of a later error: PartialObjectMetadataList
//     is offered only for lists and PartialObjectMetadata only for single
//     objects and watch events, and a watch never offers YAML (it has no
//     stream form). Kubernetes negotiates these and then answers 406.
//
// # Writing responses and errors
//
// Result.Encode renders an object's cached JSON or protobuf form as the
// body (JSON with a trailing newline, pretty JSON without, YAML converted
// from JSON), and WriteResponse writes it, gzip-compressed above
// GzipThreshold (128 KiB) when the client accepts gzip. Endpoint.WriteError
// renders any error as a Status: a *status.Error with its code and reason,
// any other error as a 500 carrying its text, in the negotiated media type
// (protobuf as a v1 Status envelope), with Retry-After when the Status
// asks for a retry. Lists are written without being held whole: WriteParts
// writes pieces of known size (a list's head, its items' cached
// encodings, its tail) and WriteList writes a ListBody in any text form,
// converting one item at a time to YAML or indented JSON exactly as it
// appears inside the converted list, within a Budget shared by concurrent
// requests. When the error body itself cannot be negotiated (the
// 406 of an unacceptable Accept header), it is indented JSON without a
// trailing newline, exactly as Kubernetes writes it.
//
// # Tables and metadata-only objects
//
// A Converter[T] produces the conversions for the user's type T: Tables
// with the default Name and Created At columns (Kubernetes' descriptions,
// RFC 3339 cells) or user-defined Columns, rows carrying a
// PartialObjectMetadata, the full object or nothing as includeObject asks
// (ParseIncludeObject), Table metadata copied from the list; and
// PartialObjectMetadata(List) in JSON, YAML and protobuf. It sees an
// object only through a Meta: the object's *meta.ObjectMeta plus that
// metadata already encoded in JSON and protobuf, which MetaFromJSON and
// MetaFromProtobuf read from encoded objects. Table JSON is written
// directly, byte for byte what encoding/json writes for the Table type
// (HTML-safe strings, compacted row objects), at about a third of its cost. For a watch, a WatchEncoder
// turns each event's object into a one-row Table, only the first carrying
// the column definitions, or a PartialObjectMetadata.
//
// # Watch streams
//
// NewStreamWriter starts a watch response (status and Content-Type
// flushed at once: application/json, or
// application/vnd.kubernetes.protobuf;stream=watch). Its WriteEvent and
// WriteEvents take event types and objects already encoded in the stream's
// media type, so an event encoded once serves every watcher, and write one
// JSON line or one length-prefixed protobuf WatchEvent frame per event;
// WriteError sends an ERROR event carrying a Status. WriteEvent flushes
// after each event; WriteEvents flushes once per batch, so a watch loop
// can flush only when its queue is empty, as Kubernetes does. AppendEvent
// frames an event once for all the streams of a media type, which write
// it as an Event's Frame without framing or copying it each; EventObject
// finds the object in a frame again (its size is what Kubernetes' watch
// event metrics observe).
//
// # Reading requests
//
// Endpoint.ReadBody answers Kubernetes' 415 for a Content-Type the endpoint
// does not serve and its 413 for a body over the limit (3 MiB by default),
// never reading more than one byte past the limit. ParseWriteOptions
// validates dryRun (All only) and fieldValidation (Ignore, Warn, Strict;
// default Warn; case-sensitive) into one 422 for the verb's options kind.
// Decode reads JSON and YAML bodies with sigs.k8s.io/json, the decoder
// Kubernetes uses: Strict fails with a 400 listing every unknown and
// duplicate field with its JSON path, Warn returns one warning per problem
// for WriteWarnings (Kubernetes' Warning header format and 4096-rune
// limit), Ignore drops them.
//
// # Non-goals
//
// The package does not route requests, authenticate, list or watch
// anything itself, or assemble ordinary list bodies. It does not decode
// protobuf request bodies into Go types (Decode returns ErrProtobufBody),
// implement PATCH media types, compress watch streams, or serve CBOR or
// WebSocket watches.
package negotiation
