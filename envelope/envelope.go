package envelope

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Magic is the four bytes that start every envelope: "k8s" and an encoding
// style byte, of which only 0x00 is defined.
const Magic = "k8s\x00"

// MediaType is the media type whose bodies are envelopes.
const MediaType = "application/vnd.kubernetes.protobuf"

// The first three errors carry Kubernetes' own texts, without a package
// prefix, so that a server can quote err.Error() in a Status message exactly
// as a Kubernetes server does.
var (
	// ErrEmptyData reports a zero-length input.
	ErrEmptyData = errors.New("empty data")

	// ErrPrefix reports input that does not start with Magic.
	ErrPrefix = errors.New("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]")

	// ErrEmptyBody reports input that is Magic and nothing else.
	ErrEmptyBody = errors.New("empty body")

	// ErrContentEncoding reports an envelope whose contentEncoding is not
	// one this package can undo. Only "" (no encoding) is known; Kubernetes
	// never writes anything else.
	ErrContentEncoding = errors.New("envelope: unsupported content encoding")
)

// Envelope is a decoded runtime.Unknown: the type of an object and its
// encoded bytes.
type Envelope struct {
	// APIVersion is "group/version", or "v1" for the core group.
	APIVersion string
	Kind       string

	// Raw is the object's own protobuf encoding. ConsumeEnvelope does not
	// copy it: Raw points into the decoded buffer.
	Raw []byte

	// ContentEncoding is the encoding applied to Raw; always "" in an
	// Envelope returned without error.
	ContentEncoding string

	// ContentType is the serialization of Raw; "" means protobuf.
	ContentType string
}

// Field numbers of runtime.Unknown and runtime.TypeMeta. Note that
// runtime.TypeMeta puts apiVersion first, the reverse of metav1.TypeMeta.
const (
	unknownTypeMeta        = 1
	unknownRaw             = 2
	unknownContentEncoding = 3
	unknownContentType     = 4

	typeMetaAPIVersion = 1
	typeMetaKind       = 2
)

// emptyContentFields is contentEncoding and contentType, both written as
// empty strings by Kubernetes' encoder.
const emptyContentFields = "\x1a\x00\x22\x00"

// AppendEnvelope appends Magic and a runtime.Unknown holding raw as the
// object of type apiVersion/kind, byte for byte as a Kubernetes server
// writes it: typeMeta (both strings, even empty), raw (always, even empty),
// then empty contentEncoding and contentType.
func AppendEnvelope(b []byte, apiVersion, kind string, raw []byte) []byte {
	b = appendEnvelopeHead(b, apiVersion, kind)
	b = appendBytes(b, unknownRaw, raw)
	return append(b, emptyContentFields...)
}

// AppendEnvelopeHead appends the beginning of an envelope whose raw
// payload of rawSize bytes the caller writes next, and AppendEnvelopeTail
// its end: head, payload and tail are AppendEnvelope's output. They serve
// a writer that streams a large payload, such as a list, from pieces it
// never joins.
func AppendEnvelopeHead(b []byte, apiVersion, kind string, rawSize int) []byte {
	b = appendEnvelopeHead(b, apiVersion, kind)
	b = protowire.AppendTag(b, unknownRaw, protowire.BytesType)
	return protowire.AppendVarint(b, uint64(rawSize))
}

// AppendEnvelopeTail appends the end of an envelope begun by
// AppendEnvelopeHead.
func AppendEnvelopeTail(b []byte) []byte { return append(b, emptyContentFields...) }

// AppendEnvelopeFunc is AppendEnvelope for a raw payload that appendRaw
// writes directly into b, typically an object's encoder, so the object is
// encoded once and never copied. sizeHint is the payload's expected size;
// see AppendMessageFunc for what an inexact hint costs.
func AppendEnvelopeFunc(b []byte, apiVersion, kind string, sizeHint int, appendRaw func([]byte) []byte) []byte {
	b = appendEnvelopeHead(b, apiVersion, kind)
	b = AppendMessageFunc(b, unknownRaw, sizeHint, appendRaw)
	return append(b, emptyContentFields...)
}

func appendEnvelopeHead(b []byte, apiVersion, kind string) []byte {
	b = append(b, Magic...)
	b = protowire.AppendTag(b, unknownTypeMeta, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(sizeTypeMeta(apiVersion, kind)))
	b = appendString(b, typeMetaAPIVersion, apiVersion)
	return appendString(b, typeMetaKind, kind)
}

func sizeTypeMeta(apiVersion, kind string) int {
	return sizeString(typeMetaAPIVersion, apiVersion) + sizeString(typeMetaKind, kind)
}

// SizeEnvelope reports the size of AppendEnvelope's output for a payload of
// rawSize bytes, Magic included.
func SizeEnvelope(apiVersion, kind string, rawSize int) int {
	return len(Magic) +
		sizeBytes(unknownTypeMeta, sizeTypeMeta(apiVersion, kind)) +
		sizeBytes(unknownRaw, rawSize) +
		len(emptyContentFields)
}

// ConsumeEnvelope decodes an envelope. Raw aliases b (nothing is copied,
// whatever its size), so b must not be modified while Raw is in use. The
// strings are copies, made in one small allocation, so they stay valid when
// b is reused, as FrameReader reuses its buffer. ConsumeEnvelopeView does
// the same work without that allocation.
//
// Errors: ErrEmptyData, ErrPrefix and ErrEmptyBody for the cases Kubernetes
// names; ErrMalformed for bad protobuf, also matching io.ErrUnexpectedEOF
// when the input is cut short; ErrContentEncoding, returned together with
// the decoded Envelope, when contentEncoding is not "". Unknown fields are
// skipped, and a repeated field keeps its last value, as in Kubernetes'
// generated decoders. A missing kind or apiVersion is not an error here:
// callers decide what they require.
func ConsumeEnvelope(b []byte) (Envelope, error) {
	v, err := ConsumeEnvelopeView(b)
	return v.envelope(), err
}

// EnvelopeView is an envelope decoded without copying anything: every
// field is a slice of the decoded input, like Envelope.Raw. It is valid
// only while that input is unchanged; a server unwrapping frames from a
// FrameReader must be done with it (or copy what it keeps) before the next
// ReadFrame. Compare the type without allocating as string(v.Kind) == "Pod".
type EnvelopeView struct {
	APIVersion      []byte
	Kind            []byte
	Raw             []byte
	ContentEncoding []byte
	ContentType     []byte
}

// ConsumeEnvelopeView decodes an envelope as ConsumeEnvelope does, with the
// same errors, but returns its fields as slices of b: it never allocates
// on success, whatever the payload's size.
func ConsumeEnvelopeView(b []byte) (EnvelopeView, error) {
	switch {
	case len(b) == 0:
		return EnvelopeView{}, ErrEmptyData
	case len(b) < len(Magic) || string(b[:len(Magic)]) != Magic:
		return EnvelopeView{}, ErrPrefix
	case len(b) == len(Magic):
		return EnvelopeView{}, ErrEmptyBody
	}
	b = b[len(Magic):]

	var e EnvelopeView
	for len(b) > 0 {
		num, v, n, err := consumeLenField(b, unknownContentType)
		if err != nil {
			return EnvelopeView{}, err
		}
		switch num {
		case unknownTypeMeta:
			// A repeated embedded message merges into the previous one.
			err = consumeTypeMeta(v, &e.APIVersion, &e.Kind)
		case unknownRaw:
			e.Raw = v
		case unknownContentEncoding:
			e.ContentEncoding = v
		case unknownContentType:
			e.ContentType = v
		}
		if err != nil {
			return EnvelopeView{}, err
		}
		b = b[n:]
	}
	if len(e.ContentEncoding) != 0 {
		return e, fmt.Errorf("%w %q", ErrContentEncoding, e.ContentEncoding)
	}
	return e, nil
}

// envelope returns v with its strings copied into one allocation rather
// than four: they are a few bytes each.
func (v EnvelopeView) envelope() Envelope {
	var sb strings.Builder
	sb.Grow(len(v.APIVersion) + len(v.Kind) + len(v.ContentEncoding) + len(v.ContentType))
	sb.Write(v.APIVersion)
	sb.Write(v.Kind)
	sb.Write(v.ContentEncoding)
	sb.Write(v.ContentType)
	s := sb.String()
	e := Envelope{Raw: v.Raw}
	e.APIVersion, s = s[:len(v.APIVersion)], s[len(v.APIVersion):]
	e.Kind, s = s[:len(v.Kind)], s[len(v.Kind):]
	e.ContentEncoding, e.ContentType = s[:len(v.ContentEncoding)], s[len(v.ContentEncoding):]
	return e
}

func consumeTypeMeta(b []byte, apiVersion, kind *[]byte) error {
	for len(b) > 0 {
		num, v, n, err := consumeLenField(b, typeMetaKind)
		if err != nil {
			return err
		}
		switch num {
		case typeMetaAPIVersion:
			*apiVersion = v
		case typeMetaKind:
			*kind = v
		}
		b = b[n:]
	}
	return nil
}

// consumeLenField reads one field of a message whose known fields are all
// length-delimited: Unknown and runtime.TypeMeta. It returns the field
// number, the value of a length-delimited field, and the field's size. A
// field of another wire type is skipped (num 0) unless its number is a
// known one, 1 to maxKnown, which is an error as in generated decoders.
//
// This is ConsumeEnvelope's hot path: fields with one-byte tags (all the
// known ones) skip the general ConsumeField.
func consumeLenField(b []byte, maxKnown protowire.Number) (num protowire.Number, v []byte, n int, err error) {
	if len(b) >= 2 && b[0] < 0x80 && b[0]&7 == byte(protowire.BytesType) && b[0] >= 1<<3 {
		l, m := protowire.ConsumeVarint(b[1:])
		if m > 0 && l <= uint64(len(b)-1-m) {
			end := 1 + m + int(l)
			return protowire.Number(b[0] >> 3), b[1+m : end], end, nil
		}
	}
	f, n, err := ConsumeField(b)
	if err != nil {
		return 0, nil, 0, err
	}
	if f.Type == protowire.BytesType {
		return f.Num, f.Bytes, n, nil
	}
	if f.Num <= maxKnown {
		return 0, nil, 0, f.want(protowire.BytesType)
	}
	return 0, nil, n, nil
}
