// Package envelope reads and writes the binary forms of the Kubernetes API,
// byte for byte as a Kubernetes server produces them: the protobuf envelope
// of application/vnd.kubernetes.protobuf bodies, the length-prefixed frames
// of protobuf watch streams, and the meta/v1 messages around objects
// (Status, WatchEvent, lists). Object and list metadata are package meta's,
// whose types and codecs this package uses. It works on bytes only: there
// is no scheme, no registry and no generated code.
//
// The API follows protowire's Append / Size / Consume grid: AppendX appends
// an encoding to a caller's buffer and returns it, SizeX reports how long
// that encoding is, ConsumeX decodes. Decoders never copy payloads: Raw,
// Object and list items point into the input.
//
// # The envelope
//
// An envelope is the magic "k8s\x00" followed by a runtime.Unknown message
// holding the object's type and its own protobuf bytes. A ConfigMap{} in
// group version v1 is:
//
//	6b 38 73 00                    magic "k8s\x00"
//	0a 0f                          1 typeMeta, 15 bytes
//	   0a 02 76 31                    1 apiVersion "v1"
//	   12 09 43 6f 6e 66 69 67 4d 61 70   2 kind "ConfigMap"
//	12 12                          2 raw, 18 bytes: the ConfigMap itself
//	   0a 10                          1 metadata (ObjectMeta), 16 bytes
//	      0a 00 12 00 1a 00 22 00        name, generateName, namespace, selfLink
//	      2a 00 32 00                    uid, resourceVersion
//	      38 00                          generation 0
//	      42 00                          creationTimestamp (zero: empty)
//	1a 00                          3 contentEncoding ""
//	22 00                          4 contentType ""
//
// Kubernetes writes fields in ascending number order, writes every
// non-pointer scalar and embedded message even when it is empty (hence the
// run of "xx 00" pairs), writes pointer fields only when set, and sorts map
// keys. The encoders here do the same, so their output is identical to a
// server's and any Kubernetes decoder (client-go, kubectl) accepts it.
//
// ConsumeEnvelope rejects input as Kubernetes does, with its texts: empty
// input (ErrEmptyData), a wrong prefix (ErrPrefix) and a lone prefix
// (ErrEmptyBody). Truncated input matches io.ErrUnexpectedEOF, other bad
// protobuf ErrMalformed, and a contentEncoding other than "" is refused with
// ErrContentEncoding rather than handed on undecoded. Its Envelope copies
// the type strings, one small allocation, so they outlive the input;
// ConsumeEnvelopeView returns every field as a slice of the input and
// allocates nothing, for callers done with the envelope before the input
// changes.
//
// # Streams
//
// A protobuf watch response is a sequence of frames, each a 4-byte
// big-endian length and one WatchEvent. The event is not enveloped; its
// object is:
//
//	00 00 00 38                    frame length 56
//	0a 05 41 44 44 45 44           1 type "ADDED"
//	12 2f                          2 object (RawExtension), 47 bytes
//	   0a 2d                          1 raw, 45 bytes: the envelope above
//	      6b 38 73 00 0a 0f ...
//
// FrameWriter and FrameReader handle the framing over an io.Writer and an
// io.Reader. The reader enforces a maximum frame size (16 MiB by default,
// as client-go) and allocates as bytes arrive rather than as the length
// prefix claims, so a hostile prefix cannot make it reserve memory.
//
// # Writing objects without copies
//
// The Func variants (AppendEnvelopeFunc, AppendWatchEventFunc,
// AppendMessageFunc, AppendListItemFunc, AppendFrameFunc) take a function
// that appends the nested content straight into the output, so an object
// is encoded once, in place, inside its envelope, event and frame. Length
// prefixes are reserved from a size hint and fixed up afterwards; an exact
// hint (from a Size function) means nothing is ever moved.
//
// # Your own types
//
// A type is encoded as its fields in number order: meta.AppendObjectMetadata
// for field 1, then protowire for scalars, AppendStringMap and
// AppendBytesMap for maps (with Kubernetes' nil-versus-empty rule for bytes
// values), meta.AppendTime for times, and AppendMessageFunc for nested
// messages. ConsumeField and RangeFields walk a message's fields for
// decoding, with meta.ConsumeObjectMeta, ConsumeStringMapEntry and
// ConsumeBytesMapEntry for the shared parts.
//
// # Non-goals
//
// This package does not know which types exist, convert between versions,
// apply defaults, or decide which media type to serve (package negotiation
// does). It does not decode arbitrary protobuf into Go structs and has no
// reflection: callers write a small encoder and decoder per type. It does
// not implement content encodings inside the envelope (Kubernetes defines
// none) nor CBOR or JSON.
package envelope
