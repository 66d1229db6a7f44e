package rv

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/apisem/apisem/status"
)

var parseTests = []struct {
	in   string
	want Version
	err  string // the strconv part of the 400, "" for success
}{
	// As k8s.io/apiserver/pkg/storage/api_object_versioner.go: "" and "0"
	// are zero, else strconv.ParseUint(s, 10, 64).
	{"", 0, ""},
	{"0", 0, ""},
	{"00", 0, ""},
	{"1", 1, ""},
	{"123", 123, ""},
	{"0123", 123, ""},
	{"18446744073709551615", math.MaxUint64, ""},
	{"abc", 0, `strconv.ParseUint: parsing "abc": invalid syntax`},
	{"18446744073709551616", 0, `strconv.ParseUint: parsing "18446744073709551616": value out of range`},
	{"-1", 0, `strconv.ParseUint: parsing "-1": invalid syntax`},
	{"+1", 0, `strconv.ParseUint: parsing "+1": invalid syntax`},
	{" 1", 0, `strconv.ParseUint: parsing " 1": invalid syntax`},
	{"1 ", 0, `strconv.ParseUint: parsing "1 ": invalid syntax`},
	{"0x1", 0, `strconv.ParseUint: parsing "0x1": invalid syntax`},
	{"1_0", 0, `strconv.ParseUint: parsing "1_0": invalid syntax`},
	{"1e3", 0, `strconv.ParseUint: parsing "1e3": invalid syntax`},
	{"١", 0, `strconv.ParseUint: parsing "١": invalid syntax`},
	{"\"", 0, `strconv.ParseUint: parsing "\"": invalid syntax`},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		got, err := Parse(tt.in)
		if tt.err == "" {
			if err != nil || got != tt.want {
				t.Errorf("Parse(%q) = %d, %v; want %d, nil", tt.in, got, err, tt.want)
			}
			continue
		}
		// The message quotes the value twice, first as a field error
		// value (strconv.Quote), then inside the strconv error.
		want := "invalid resource version: resourceVersion: Invalid value: " + strconv.Quote(tt.in) + ": " + tt.err
		checkErr(t, "Parse("+tt.in+")", err, badRequest(want))
		if !errors.Is(err, ErrInvalidVersion) {
			t.Errorf("Parse(%q) = %v; want it to wrap ErrInvalidVersion", tt.in, err)
		}
		if got != 0 {
			t.Errorf("Parse(%q) = %d with an error; want 0", tt.in, got)
		}
	}
}

func TestVersionText(t *testing.T) {
	for _, tt := range []struct {
		v    Version
		want string
	}{{0, ""}, {1, "1"}, {123, "123"}, {math.MaxUint64, "18446744073709551615"}} {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("Version(%d).String() = %q; want %q", uint64(tt.v), got, tt.want)
		}
		b, err := tt.v.AppendText([]byte("rv="))
		if err != nil || string(b) != "rv="+tt.want {
			t.Errorf("Version(%d).AppendText = %q, %v; want %q", uint64(tt.v), b, err, "rv="+tt.want)
		}
	}
}

func TestCompactedError(t *testing.T) {
	var err error = &CompactedError{Requested: 5, Compacted: 1000}
	if !errors.Is(err, ErrCompacted) {
		t.Error("CompactedError does not unwrap to ErrCompacted")
	}
	if got, want := err.Error(), "rv: revision 5 has been compacted (oldest available 1000)"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
	for _, e := range []error{ErrInvalidVersion, ErrCompacted, ErrFutureRevision} {
		if !strings.HasPrefix(e.Error(), "rv: ") {
			t.Errorf("sentinel %q lacks the rv: prefix", e)
		}
	}
}

// FuzzParse checks Parse against strconv.ParseUint and the wire round trip,
// and that a bad version is always the 400.
func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		ref, refErr := strconv.ParseUint(s, 10, 64)
		if s == "" {
			ref, refErr = 0, nil
		}
		if refErr != nil {
			ref = 0 // strconv returns the saturated value on overflow
		}
		if (err == nil) != (refErr == nil) || v != Version(ref) {
			t.Fatalf("Parse(%q) = %d, %v; strconv says %d, %v", s, v, err, ref, refErr)
		}
		if err != nil {
			var se *status.Error
			if !errors.As(err, &se) || se.Code() != 400 || !errors.Is(err, ErrInvalidVersion) ||
				!strings.HasSuffix(se.Error(), refErr.Error()) {
				t.Fatalf("Parse(%q) = %v; want the 400 ending in %q", s, err, refErr)
			}
			return
		}
		if v != 0 {
			w, err := Parse(v.String())
			if err != nil || w != v {
				t.Fatalf("Parse(%q) = %d, but Parse(%q) = %d, %v", s, v, v.String(), w, err)
			}
		}
	})
}
