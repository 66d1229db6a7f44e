package tracing

import (
	"encoding/hex"
	"errors"
	"strings"
)

// SpanContext identifies a span across processes: W3C Trace Context's
// traceparent, with its tracestate.
type SpanContext struct {
	TraceID [16]byte
	SpanID  [8]byte
	// Flags are the trace flags; bit 0 (Sampled) says the caller records
	// the trace.
	Flags byte
	// State is the tracestate header, kept as it came (at most
	// MaxTraceStateBytes), for the adapter to parse.
	State string
}

// Sampled is the trace flag that says the caller records the trace.
const Sampled byte = 0x01

// MaxTraceStateBytes bounds the tracestate kept. W3C Trace Context asks
// a receiver to pass on at least 512 characters of it; a longer one is
// dropped whole rather than cut inside a member.
const MaxTraceStateBytes = 8 << 10

// ErrInvalidTraceparent says a traceparent header is not W3C Trace
// Context's: the request is then traced as if it had none, as the
// specification requires.
var ErrInvalidTraceparent = errors.New("tracing: invalid traceparent")

// ParseTraceparent parses a traceparent header and keeps tracestate with
// it (W3C Trace Context, "traceparent Header Field"): version-traceid-
// parentid-flags in lower-case hexadecimal. Version 00 must have exactly
// those four fields; a later version may have more after a '-', which are
// ignored, as the specification asks of a version-00 parser. Version ff,
// an all-zero trace or span id, upper-case hexadecimal, or any other
// deviation is ErrInvalidTraceparent. A tracestate longer than
// MaxTraceStateBytes is dropped.
func ParseTraceparent(traceparent, tracestate string) (SpanContext, error) {
	var sc SpanContext
	const n = 2 + 1 + 32 + 1 + 16 + 1 + 2 // 55
	s := traceparent
	if len(s) < n || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return sc, ErrInvalidTraceparent
	}
	var ver [1]byte
	if !lowerHex(ver[:], s[0:2]) || ver[0] == 0xff {
		return sc, ErrInvalidTraceparent
	}
	if len(s) > n && (ver[0] == 0 || s[n] != '-') {
		return sc, ErrInvalidTraceparent
	}
	var flags [1]byte
	if !lowerHex(sc.TraceID[:], s[3:35]) || !lowerHex(sc.SpanID[:], s[36:52]) || !lowerHex(flags[:], s[53:55]) {
		return sc, ErrInvalidTraceparent
	}
	if sc.TraceID == [16]byte{} || sc.SpanID == [8]byte{} {
		return sc, ErrInvalidTraceparent
	}
	sc.Flags = flags[0]
	if len(tracestate) <= MaxTraceStateBytes {
		sc.State = tracestate
	}
	return sc, nil
}

// lowerHex decodes s, lower-case hexadecimal of len(dst) bytes, into dst.
func lowerHex(dst []byte, s string) bool {
	if strings.ContainsFunc(s, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') }) {
		return false
	}
	_, err := hex.Decode(dst, []byte(s))
	return err == nil
}

// Traceparent returns sc as a version-00 traceparent header.
func (sc SpanContext) Traceparent() string {
	b := make([]byte, 0, 55)
	b = append(b, "00-"...)
	b = hex.AppendEncode(b, sc.TraceID[:])
	b = append(b, '-')
	b = hex.AppendEncode(b, sc.SpanID[:])
	b = append(b, '-')
	b = hex.AppendEncode(b, []byte{sc.Flags})
	return string(b)
}
