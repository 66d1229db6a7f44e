package envelope

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/apisem/apisem/meta"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzConsumeEnvelope: decoding arbitrary bytes never panics, Raw always
// aliases the input, and whatever decodes re-encodes to something that
// decodes to the same envelope.
func FuzzConsumeEnvelope(f *testing.F) {
	for _, tt := range envelopeTests {
		f.Add(mustHex(f, tt.in))
	}
	f.Add([]byte{})
	f.Add([]byte(Magic))
	f.Add([]byte("{}"))
	f.Add(mustHex(f, "6b387300 0a00 1200 1a04677a6970 2200"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ConsumeEnvelope(data)
		if len(e.Raw) > 0 && !within(e.Raw, data) {
			t.Fatalf("Raw does not alias the input")
		}
		// The view decodes the same, with the same error, all aliasing.
		v, verr := ConsumeEnvelopeView(data)
		if (err == nil) != (verr == nil) || err != nil && err.Error() != verr.Error() {
			t.Fatalf("ConsumeEnvelope err %v, ConsumeEnvelopeView err %v", err, verr)
		}
		if diff := cmp.Diff(e, viewStrings(v)); diff != "" {
			t.Fatalf("ConsumeEnvelope and ConsumeEnvelopeView differ (-envelope +view):\n%s", diff)
		}
		for _, f := range [][]byte{v.APIVersion, v.Kind, v.Raw, v.ContentEncoding, v.ContentType} {
			if len(f) > 0 && !within(f, data) {
				t.Fatalf("a view field does not alias the input")
			}
		}
		if err != nil {
			if errors.Is(err, ErrContentEncoding) == (e.ContentEncoding == "") {
				t.Fatalf("err %v with contentEncoding %q", err, e.ContentEncoding)
			}
			return
		}
		b := AppendEnvelope(nil, e.APIVersion, e.Kind, e.Raw)
		e2, err := ConsumeEnvelope(b)
		if err != nil {
			t.Fatalf("re-encoded envelope does not decode: %v", err)
		}
		e.ContentType = "" // AppendEnvelope always writes an empty one
		if diff := cmp.Diff(e, e2, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("re-encode round trip (-first +second):\n%s", diff)
		}
	})
}

// within reports whether sub's bytes lie inside b's.
func within(sub, b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for i := range b {
		if &b[i] == &sub[0] {
			return i+len(sub) <= len(b)
		}
	}
	return false
}

// FuzzEnvelopeRoundTrip: any type and payload survive encoding, Size is
// exact and the Func variant writes the same bytes.
func FuzzEnvelopeRoundTrip(f *testing.F) {
	f.Add("v1", "ConfigMap", mustHex(f, "0a10"+emptyObjectMeta), 0)
	f.Add("", "", []byte(nil), 0)
	f.Add("apps/v1", "Deployment", bytes.Repeat([]byte{1}, 200), 100)
	f.Fuzz(func(t *testing.T, apiVersion, kind string, raw []byte, hint int) {
		b := AppendEnvelope(nil, apiVersion, kind, raw)
		if len(b) != SizeEnvelope(apiVersion, kind, len(raw)) {
			t.Fatalf("len %d != SizeEnvelope %d", len(b), SizeEnvelope(apiVersion, kind, len(raw)))
		}
		e, err := ConsumeEnvelope(b)
		if err != nil {
			t.Fatal(err)
		}
		if e.APIVersion != apiVersion || e.Kind != kind || !bytes.Equal(e.Raw, raw) || e.ContentEncoding != "" || e.ContentType != "" {
			t.Fatalf("round trip: got %+v", e)
		}
		hint %= 1 << 20 // keep reservations small
		viaFunc := AppendEnvelopeFunc(nil, apiVersion, kind, hint, func(b []byte) []byte { return append(b, raw...) })
		if !bytes.Equal(viaFunc, b) {
			t.Fatalf("AppendEnvelopeFunc(hint %d) differs from AppendEnvelope", hint)
		}
	})
}

// FuzzFrameReader: reading a stream never panics and agrees with a simple
// in-memory reference built on ConsumeFrame, whatever the read sizes.
func FuzzFrameReader(f *testing.F) {
	for _, tt := range frameTests {
		f.Add(mustHex(f, tt.in), uint16(0), false)
	}
	f.Add(AppendFrame(AppendFrame(nil, []byte("12345")), []byte("123456")), uint16(5), true)
	f.Fuzz(func(t *testing.T, data []byte, limit uint16, oneByte bool) {
		limitBytes := int(limit)
		if limitBytes == 0 {
			limitBytes = DefaultMaxFrameSize
		}
		var r io.Reader = bytes.NewReader(data)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		fr := NewFrameReaderWithOptions(r, FrameReaderOptions{MaxFrameSize: int(limit)})

		rest := data
		for {
			got, err := fr.ReadFrame()
			want, n, werr := ConsumeFrame(rest)
			switch {
			case len(rest) == 0:
				if err != io.EOF {
					t.Fatalf("at end of input: err = %v; want io.EOF", err)
				}
				return
			case len(rest) >= frameHeaderSize && bigEndian(rest) > uint64(limitBytes):
				if !errors.Is(err, ErrFrameTooLarge) {
					t.Fatalf("oversized frame: err = %v; want ErrFrameTooLarge", err)
				}
				return
			case werr != nil:
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("truncated frame: err = %v; want io.ErrUnexpectedEOF", err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("frame = %x, %v; want %x", got, err, want)
			}
			if cap(got) > max(len(data), frameGrowStep) {
				t.Fatalf("buffer capacity %d for %d bytes of input", cap(got), len(data))
			}
			rest = rest[n:]
		}
	})
}

func bigEndian(b []byte) uint64 {
	return uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
}

// FuzzMessages: the message decoders never panic on arbitrary input, and
// what they decode re-encodes to bytes that decode to the same value.
func FuzzMessages(f *testing.F) {
	f.Add(AppendStatus(nil, &Status{Status: "Failure", Details: &StatusDetails{Causes: []StatusCause{{Field: "f"}}}, Code: 404}))
	f.Add(AppendWatchEvent(nil, "ADDED", AppendEnvelope(nil, "v1", "ConfigMap", nil)))
	f.Add(AppendListMetadata(AppendListItem(nil, mustHex(f, "0a10"+emptyObjectMeta)), &meta.ListMeta{Continue: "c"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if st, err := ConsumeStatus(data); err == nil {
			again, err := ConsumeStatus(AppendStatus(nil, &st))
			if err != nil {
				t.Fatalf("Status re-decode: %v", err)
			}
			if diff := cmp.Diff(st, again); diff != "" {
				t.Fatalf("Status round trip (-first +second):\n%s", diff)
			}
		}
		if ev, err := ConsumeWatchEvent(data); err == nil {
			again, err := ConsumeWatchEvent(AppendWatchEvent(nil, ev.Type, ev.Object))
			if err != nil || again.Type != ev.Type || !bytes.Equal(again.Object, ev.Object) || (again.Object == nil) != (ev.Object == nil) {
				t.Fatalf("WatchEvent round trip: %+v then %+v, %v", ev, again, err)
			}
		}
		var items [][]byte
		if lm, err := ConsumeList(data, func(item []byte) error { items = append(items, item); return nil }); err == nil {
			b := AppendListMetadata(nil, &lm)
			for _, it := range items {
				b = AppendListItem(b, it)
			}
			var items2 [][]byte
			lm2, err := ConsumeList(b, func(item []byte) error { items2 = append(items2, item); return nil })
			if err != nil {
				t.Fatalf("list re-decode: %v", err)
			}
			if diff := cmp.Diff(lm, lm2); diff != "" {
				t.Fatalf("list metadata round trip (-first +second):\n%s", diff)
			}
			if diff := cmp.Diff(items, items2, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("list items round trip (-first +second):\n%s", diff)
			}
		}
		_ = RangeFields(data, func(f Field) error {
			if f.Type == 2 {
				_, _, _ = ConsumeBytesMapEntry(f.Bytes)
			}
			return nil
		})
	})
}
