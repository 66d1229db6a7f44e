package envelope

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// envelopeTests are valid envelopes: decoded by TestConsumeEnvelope and
// seeding the fuzz targets.
var envelopeTests = []struct {
	name string
	in   string // hex
	want Envelope
}{
	{"ConfigMap{} in v1 (envelope layout)",
		"6b387300 0a0f0a0276311209436f6e6669674d6170 12120a10" + emptyObjectMeta + "1a002200",
		Envelope{APIVersion: "v1", Kind: "ConfigMap", Raw: []byte("\x0a\x10\x0a\x00\x12\x00\x1a\x00\x22\x00\x2a\x00\x32\x00\x38\x00\x42\x00")}},
	{"runtime.Unknown{} from the generated marshaller: raw absent (v0.37.2)",
		"6b387300 0a040a0012001a002200", Envelope{}},
	{"empty raw is present and empty",
		"6b387300 0a040a001200 1200 1a002200", Envelope{Raw: []byte{}}},
	{"only a typeMeta",
		"6b387300 0a0b 0a07617070732f7631 1200", Envelope{APIVersion: "apps/v1"}},
	{"fields in any order",
		"6b387300 1201ff 2204 6a736f6e 0a03 12014b 0a00", Envelope{Kind: "K", Raw: []byte{0xff}, ContentType: "json"}},
	{"repeated typeMeta merges, repeated raw keeps the last",
		"6b387300 0a04 0a027631 1201aa 0a03 12014b 1201bb", Envelope{APIVersion: "v1", Kind: "K", Raw: []byte{0xbb}}},
	{"unknown fields skipped: varint, fixed64, fixed32, bytes, group",
		"6b387300 2801 29 0102030405060708 2d 01020304 3200 3b 0801 3c 0a03 12014b",
		Envelope{Kind: "K"}},
	{"unknown field inside typeMeta skipped",
		"6b387300 0a06 1801 0a027631", Envelope{APIVersion: "v1"}},
	{"contentType passed through",
		"6b387300 0a00 1200 1a00 2210 6170706c69636174696f6e2f6a736f6e", Envelope{Raw: []byte{}, ContentType: "application/json"}},
}

func TestConsumeEnvelope(t *testing.T) {
	for _, tt := range envelopeTests {
		got, err := ConsumeEnvelope(mustHex(t, tt.in))
		if err != nil {
			t.Errorf("%s: ConsumeEnvelope(%s) = err %v; want nil", tt.name, tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: ConsumeEnvelope(%s) mismatch (-want +got):\n%s", tt.name, tt.in, diff)
		}
		in := mustHex(t, tt.in)
		v, err := ConsumeEnvelopeView(in)
		if err != nil {
			t.Errorf("%s: ConsumeEnvelopeView(%s) = err %v; want nil", tt.name, tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, viewStrings(v)); diff != "" {
			t.Errorf("%s: ConsumeEnvelopeView(%s) mismatch (-want +got):\n%s", tt.name, tt.in, diff)
		}
		for _, f := range [][]byte{v.APIVersion, v.Kind, v.Raw, v.ContentEncoding, v.ContentType} {
			if len(f) > 0 && !within(f, in) {
				t.Errorf("%s: ConsumeEnvelopeView(%s) returned a field that does not alias the input", tt.name, tt.in)
			}
		}
	}
}

// viewStrings converts v to an Envelope for comparisons, keeping Raw.
func viewStrings(v EnvelopeView) Envelope {
	return Envelope{APIVersion: string(v.APIVersion), Kind: string(v.Kind), Raw: v.Raw,
		ContentEncoding: string(v.ContentEncoding), ContentType: string(v.ContentType)}
}

func TestConsumeEnvelopeErrors(t *testing.T) {
	const k8sPrefixText = "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"
	tests := []struct {
		name     string
		in       string // hex
		want     []error
		wantText string // the exact text, where Kubernetes has one
	}{
		{"empty data", "", []error{ErrEmptyData}, "empty data"},
		{"prefix only", "6b387300", []error{ErrEmptyBody}, "empty body"},
		{"wrong prefix", "6b387301 0a00", []error{ErrPrefix}, k8sPrefixText},
		{"JSON body", "7b7d", []error{ErrPrefix}, k8sPrefixText},
		{"short prefix", "6b38", []error{ErrPrefix}, k8sPrefixText},
		{"short prefix, correct so far", "6b3873", []error{ErrPrefix}, k8sPrefixText},
		{"truncated length", "6b387300 0a", []error{ErrMalformed, io.ErrUnexpectedEOF}, ""},
		{"truncated typeMeta", "6b387300 0a0f0a0276", []error{ErrMalformed, io.ErrUnexpectedEOF}, ""},
		{"truncated raw", "6b387300 0a00 1205 0102", []error{ErrMalformed, io.ErrUnexpectedEOF}, ""},
		{"truncated inside typeMeta", "6b387300 0a02 0a05", []error{ErrMalformed, io.ErrUnexpectedEOF}, ""},
		{"truncated varint tag", "6b387300 80", []error{ErrMalformed, io.ErrUnexpectedEOF}, ""},
		{"field number 0", "6b387300 0200", []error{ErrMalformed}, ""},
		{"varint overflow", "6b387300 08 ffffffffffffffffff02", []error{ErrMalformed}, ""},
		{"reserved wire type 6", "6b387300 0e", []error{ErrMalformed}, ""},
		{"stray end group", "6b387300 0c", []error{ErrMalformed}, ""},
		{"unterminated group", "6b387300 0b 0800", []error{ErrMalformed, io.ErrUnexpectedEOF}, ""},
		{"typeMeta as varint", "6b387300 0801", []error{ErrMalformed}, ""},
		{"raw as fixed32", "6b387300 1501020304", []error{ErrMalformed}, ""},
		{"kind as varint", "6b387300 0a02 1001", []error{ErrMalformed}, ""},
		{"contentType as varint", "6b387300 2001", []error{ErrMalformed}, ""},
		{"contentEncoding gzip", "6b387300 0a00 1200 1a04677a6970 2200", []error{ErrContentEncoding}, ""},
	}
	for _, tt := range tests {
		in := mustHex(t, tt.in)
		_, err := ConsumeEnvelope(in)
		_, verr := ConsumeEnvelopeView(in)
		for fn, err := range map[string]error{"ConsumeEnvelope": err, "ConsumeEnvelopeView": verr} {
			if err == nil {
				t.Errorf("%s: %s(%s) = nil error; want %v", tt.name, fn, tt.in, tt.want)
				continue
			}
			for _, w := range tt.want {
				if !errors.Is(err, w) {
					t.Errorf("%s: %s(%s) = err %q; want errors.Is %q", tt.name, fn, tt.in, err, w)
				}
			}
			if tt.wantText != "" && err.Error() != tt.wantText {
				t.Errorf("%s: %s(%s) = err %q; want text %q", tt.name, fn, tt.in, err, tt.wantText)
			}
			if tt.wantText == "" && !strings.HasPrefix(err.Error(), "envelope: ") {
				t.Errorf("%s: %s(%s) = err %q; want the envelope: prefix", tt.name, fn, tt.in, err)
			}
		}
	}
}

// An unknown contentEncoding is refused, but the decoded envelope comes
// with the error so the caller can report what it was.
func TestConsumeEnvelopeContentEncoding(t *testing.T) {
	e, err := ConsumeEnvelope(mustHex(t, "6b387300 0a06 0a027631 1200 1201aa 1a04677a6970 2200"))
	if !errors.Is(err, ErrContentEncoding) {
		t.Fatalf("err = %v; want ErrContentEncoding", err)
	}
	if !strings.Contains(err.Error(), `"gzip"`) {
		t.Errorf("err = %q; want it to name the encoding", err)
	}
	want := Envelope{APIVersion: "v1", Raw: []byte{0xaa}, ContentEncoding: "gzip"}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("envelope mismatch (-want +got):\n%s", diff)
	}

	v, err := ConsumeEnvelopeView(mustHex(t, "6b387300 0a06 0a027631 1200 1201aa 1a04677a6970 2200"))
	if !errors.Is(err, ErrContentEncoding) || !strings.Contains(err.Error(), `"gzip"`) {
		t.Fatalf("view: err = %v; want ErrContentEncoding naming gzip", err)
	}
	if diff := cmp.Diff(want, viewStrings(v)); diff != "" {
		t.Errorf("view mismatch (-want +got):\n%s", diff)
	}
}

// Raw must alias the input: no copy, whatever the size.
func TestConsumeEnvelopeAliasesRaw(t *testing.T) {
	raw := bytes.Repeat([]byte{0x5a}, 300)
	b := AppendEnvelope(nil, "v1", "Secret", raw)
	e, err := ConsumeEnvelope(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Raw) != len(raw) || &e.Raw[0] != &b[len(b)-4-len(raw)] {
		t.Fatalf("Raw does not alias the input")
	}
	// The strings must not: they outlive a reused buffer.
	v, err := ConsumeEnvelopeView(b)
	if err != nil {
		t.Fatal(err)
	}
	clear(b)
	if e.APIVersion != "v1" || e.Kind != "Secret" {
		t.Errorf("after clearing the input, type = %q %q; want v1 Secret", e.APIVersion, e.Kind)
	}
	// The view's do: they are the input's bytes, cleared with it.
	if &v.Raw[0] != &e.Raw[0] || !bytes.Equal(v.APIVersion, []byte{0, 0}) || !bytes.Equal(v.Kind, make([]byte, 6)) {
		t.Errorf("view after clearing the input = %q %q; want the cleared input's bytes", v.APIVersion, v.Kind)
	}
}

// The view is the allocation-free unwrap: nothing at all, at any size.
func TestConsumeEnvelopeViewDoesNotAllocate(t *testing.T) {
	for _, size := range []int{0, 2 << 10, 1 << 20} {
		b := AppendEnvelope(nil, "apps/v1", "Deployment", make([]byte, size))
		if n := testing.AllocsPerRun(20, func() { _, _ = ConsumeEnvelopeView(b) }); n != 0 {
			t.Errorf("ConsumeEnvelopeView of a %d-byte payload: %v allocations; want 0", size, n)
		}
	}
}

func TestEnvelopeRoundTrip(t *testing.T) {
	tests := []struct {
		apiVersion, kind string
		raw              []byte
	}{
		{"", "", nil},
		{"v1", "ConfigMap", []byte{}},
		{"v1", "Status", AppendStatus(nil, &Status{Status: "Failure", Code: 500})},
		{"apps/v1", "Deployment", bytes.Repeat([]byte{1}, 127)},
		{"apps/v1", "Deployment", bytes.Repeat([]byte{2}, 128)},
		{"example.com/v1alpha1", strings.Repeat("K", 200), bytes.Repeat([]byte{3}, 70000)},
	}
	for _, tt := range tests {
		prefix := []byte("keep")
		b := AppendEnvelope(prefix, tt.apiVersion, tt.kind, tt.raw)
		if !bytes.HasPrefix(b, prefix) {
			t.Fatalf("AppendEnvelope overwrote dst")
		}
		b = b[len(prefix):]
		if got, want := len(b), SizeEnvelope(tt.apiVersion, tt.kind, len(tt.raw)); got != want {
			t.Errorf("len(AppendEnvelope(%q, %q, %d bytes)) = %d; SizeEnvelope = %d", tt.apiVersion, tt.kind, len(tt.raw), got, want)
		}
		e, err := ConsumeEnvelope(b)
		if err != nil {
			t.Fatalf("ConsumeEnvelope(AppendEnvelope(%q, %q)) = %v", tt.apiVersion, tt.kind, err)
		}
		want := Envelope{APIVersion: tt.apiVersion, Kind: tt.kind, Raw: tt.raw}
		if diff := cmp.Diff(want, e, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("round trip mismatch (-want +got):\n%s", diff)
		}
		// Every hint gives the same bytes as AppendEnvelope.
		for _, hint := range []int{-1, 0, 1, len(tt.raw), len(tt.raw) + 1, 1 << 20} {
			got := AppendEnvelopeFunc(nil, tt.apiVersion, tt.kind, hint, func(b []byte) []byte {
				return append(b, tt.raw...)
			})
			if !bytes.Equal(got, b) {
				t.Errorf("AppendEnvelopeFunc(hint %d, %d bytes) differs from AppendEnvelope", hint, len(tt.raw))
			}
		}
	}
}

// With an exact hint the payload is written where it stays: the function
// sees the final position of its bytes.
func TestAppendEnvelopeFuncExactHintDoesNotMove(t *testing.T) {
	raw := bytes.Repeat([]byte{7}, 1000)
	buf := make([]byte, 0, 2000)
	var start *byte
	b := AppendEnvelopeFunc(buf, "v1", "ConfigMap", len(raw), func(b []byte) []byte {
		b = append(b, raw...)
		start = &b[len(b)-len(raw)]
		return b
	})
	e, err := ConsumeEnvelope(b)
	if err != nil {
		t.Fatal(err)
	}
	if &e.Raw[0] != start {
		t.Errorf("payload moved after the append function wrote it")
	}
}

func TestAppendFuncShrinkPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("AppendEnvelopeFunc with a shrinking function did not panic")
		}
	}()
	AppendEnvelopeFunc(nil, "v1", "K", 0, func(b []byte) []byte { return b[:1] })
}
