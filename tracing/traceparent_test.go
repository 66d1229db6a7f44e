package tracing

import (
	"errors"
	"strings"
	"testing"
)

// The rows are W3C Trace Context's ("traceparent Header Field",
// https://www.w3.org/TR/trace-context/#traceparent-header), its example
// first.
var traceparentTests = []struct {
	in    string
	ok    bool
	trace string // hex, when ok
	span  string
	flags byte
}{
	{"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", true, "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1},
	{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true, "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 0},
	{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09", true, "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 9}, // unknown flags kept
	// "a higher version ... parse the first four fields, ignore the rest"
	{"cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds", true, "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 1},
	{"cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true, "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 1},
	// version 00 has exactly four fields
	{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", false, "", "", 0},
	{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", false, "", "", 0},
	// a later version's extra fields follow a '-'
	{"cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", false, "", "", 0},
	// "Version ff is invalid"
	{"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false, "", "", 0},
	// "All bytes as zero ... is considered an invalid value"
	{"00-00000000000000000000000000000000-00f067aa0ba902b7-01", false, "", "", 0},
	{"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false, "", "", 0},
	// lower-case hexadecimal only
	{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false, "", "", 0},
	{"0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false, "", "", 0},
	{"00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01", false, "", "", 0},
	{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g", false, "", "", 0},
	// wrong lengths and separators
	{"", false, "", "", 0},
	{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1", false, "", "", 0},
	{"00-4bf92f3577b34da6a3ce929d0e0e47-3600f067aa0ba902b7-01", false, "", "", 0},
	{"00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01", false, "", "", 0},
	{" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false, "", "", 0},
}

func TestParseTraceparent(t *testing.T) {
	for _, tt := range traceparentTests {
		sc, err := ParseTraceparent(tt.in, "congo=t61rcWkgMzE")
		if !tt.ok {
			if !errors.Is(err, ErrInvalidTraceparent) {
				t.Errorf("ParseTraceparent(%q) = %+v, %v; want ErrInvalidTraceparent", tt.in, sc, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseTraceparent(%q) = err %v; want ok", tt.in, err)
			continue
		}
		got := sc.Traceparent()
		want := "00-" + tt.trace + "-" + tt.span + "-" + tt.in[53:55]
		if got != want || sc.Flags != tt.flags || sc.State != "congo=t61rcWkgMzE" {
			t.Errorf("ParseTraceparent(%q) = %s flags %d state %q; want %s flags %d", tt.in, got, sc.Flags, sc.State, want, tt.flags)
		}
	}
}

func TestParseTraceparentDropsLongState(t *testing.T) {
	long := strings.Repeat("a=b,", MaxTraceStateBytes/4+1)
	sc, err := ParseTraceparent(traceparentTests[0].in, long)
	if err != nil || sc.State != "" {
		t.Errorf("ParseTraceparent with a %d-byte tracestate = state of %d bytes, %v; want it dropped", len(long), len(sc.State), err)
	}
}

// FuzzParseTraceparent: parsing never panics, and what parses prints as
// a version-00 header that parses to the same ids.
func FuzzParseTraceparent(f *testing.F) {
	for _, tt := range traceparentTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sc, err := ParseTraceparent(in, "")
		if err != nil {
			return
		}
		again, err := ParseTraceparent(sc.Traceparent(), "")
		if err != nil || again != sc {
			t.Fatalf("ParseTraceparent(%q) = %+v; its Traceparent %q parses to %+v, %v", in, sc, sc.Traceparent(), again, err)
		}
	})
}
