package envelope

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// frameTests are frame streams: decoded by TestFrameReader and seeding
// FuzzFrameReader.
var frameTests = []struct {
	name    string
	in      string // hex
	want    []string
	wantErr []error // after the frames; nil means a clean io.EOF
}{
	{"empty stream", "", nil, nil},
	{"one frame", "00000003 616263", []string{"abc"}, nil},
	{"empty frame", "00000000", []string{""}, nil},
	{"three frames", "00000001 61 00000000 00000002 6263", []string{"a", "", "bc"}, nil},
	{"header cut after 1 byte", "00", nil, []error{io.ErrUnexpectedEOF}},
	{"header cut after 3 bytes", "00000001 61 000000", []string{"a"}, []error{io.ErrUnexpectedEOF}},
	{"content cut", "00000005 6162", nil, []error{io.ErrUnexpectedEOF}},
	{"content missing", "00000005", nil, []error{io.ErrUnexpectedEOF}},
	{"prefix claims 4 GiB, limit 16 MiB", "ffffffff 00", nil, []error{ErrFrameTooLarge}},
	{"prefix claims 16 MiB + 1", "01000001", nil, []error{ErrFrameTooLarge}},
}

func TestFrameReader(t *testing.T) {
	for _, tt := range frameTests {
		in := mustHex(t, tt.in)
		// The same answers whatever the read sizes.
		readers := map[string]io.Reader{
			"whole":    bytes.NewReader(in),
			"one byte": iotest.OneByteReader(bytes.NewReader(in)),
			"half":     iotest.HalfReader(bytes.NewReader(in)),
			"data+EOF": iotest.DataErrReader(bytes.NewReader(in)),
		}
		for rname, r := range readers {
			fr := NewFrameReader(r)
			var got []string
			var err error
			for {
				var f []byte
				if f, err = fr.ReadFrame(); err != nil {
					break
				}
				got = append(got, string(f))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("%s (%s): frames = %q; want %q", tt.name, rname, got, tt.want)
			}
			if tt.wantErr == nil && err != io.EOF {
				t.Errorf("%s (%s): final err = %v; want io.EOF", tt.name, rname, err)
			}
			for _, w := range tt.wantErr {
				if !errors.Is(err, w) {
					t.Errorf("%s (%s): final err = %v; want errors.Is %v", tt.name, rname, err, w)
				}
			}
			// Errors are sticky.
			if _, err2 := fr.ReadFrame(); err2 != err {
				t.Errorf("%s (%s): next ReadFrame = %v; want the same error %v", tt.name, rname, err2, err)
			}
		}
	}
}

func TestFrameReaderMaxFrameSize(t *testing.T) {
	in := AppendFrame(AppendFrame(nil, []byte("12345")), []byte("123456"))
	fr := NewFrameReaderWithOptions(bytes.NewReader(in), FrameReaderOptions{MaxFrameSize: 5})
	if f, err := fr.ReadFrame(); err != nil || string(f) != "12345" {
		t.Fatalf("frame at the limit: ReadFrame = %q, %v; want 12345", f, err)
	}
	_, err := fr.ReadFrame()
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("frame over the limit: err = %v; want ErrFrameTooLarge", err)
	}
	if !strings.Contains(err.Error(), "6 bytes, limit 5") {
		t.Errorf("err = %q; want the size and limit", err)
	}

	// Zero and negative mean the default.
	for _, max := range []int{0, -1} {
		fr := NewFrameReaderWithOptions(nil, FrameReaderOptions{MaxFrameSize: max})
		if fr.max != DefaultMaxFrameSize {
			t.Errorf("MaxFrameSize %d: limit = %d; want %d", max, fr.max, DefaultMaxFrameSize)
		}
	}
}

// A peer that announces a 16 MiB frame and sends a few bytes must not make
// the reader allocate 16 MiB.
func TestFrameReaderAllocatesWhatArrives(t *testing.T) {
	in := append(mustHex(t, "01000000"), "only a little"...)
	fr := NewFrameReader(bytes.NewReader(in))
	if _, err := fr.ReadFrame(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v; want io.ErrUnexpectedEOF", err)
	}
	if c := cap(fr.buf); c > frameGrowStep {
		t.Errorf("buffer capacity %d after 13 bytes of a 16 MiB frame; want at most %d", c, frameGrowStep)
	}

	// A frame that does arrive in full grows the buffer in steps to
	// exactly its size, and the next frame reuses it.
	const size = 300 << 10
	payload := bytes.Repeat([]byte{9}, size)
	in = AppendFrame(AppendFrame(nil, payload), payload[:10])
	fr = NewFrameReader(iotest.HalfReader(bytes.NewReader(in)))
	f, err := fr.ReadFrame()
	if err != nil || !bytes.Equal(f, payload) {
		t.Fatalf("ReadFrame of %d bytes = %d bytes, %v", size, len(f), err)
	}
	if c := cap(fr.buf); c != size {
		t.Errorf("buffer capacity %d for a %d-byte frame; want exactly the frame", c, size)
	}
	first := &f[0]
	if f, err = fr.ReadFrame(); err != nil || len(f) != 10 || &f[0] != first {
		t.Errorf("second frame did not reuse the buffer (len %d, err %v)", len(f), err)
	}
}

func TestFrameReaderPassesReadErrors(t *testing.T) {
	boom := errors.New("boom")
	fr := NewFrameReader(iotest.ErrReader(boom))
	if _, err := fr.ReadFrame(); err != boom {
		t.Errorf("err = %v; want the reader's own error", err)
	}
	// In the middle of a frame as well.
	fr = NewFrameReader(io.MultiReader(bytes.NewReader(mustHex(t, "0000000561")), iotest.ErrReader(boom)))
	if _, err := fr.ReadFrame(); err != boom {
		t.Errorf("mid-frame err = %v; want the reader's own error", err)
	}
}

func TestFrameWriter(t *testing.T) {
	var buf bytes.Buffer
	fw := NewFrameWriter(&buf)
	frames := [][]byte{[]byte("abc"), {}, nil, bytes.Repeat([]byte{1}, 70000)}
	var want []byte
	for _, f := range frames {
		if err := fw.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
		want = AppendFrame(want, f)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("FrameWriter output differs from AppendFrame")
	}
	fr := NewFrameReader(&buf)
	for i, f := range frames {
		got, err := fr.ReadFrame()
		if err != nil || !bytes.Equal(got, f) {
			t.Errorf("frame %d: got %d bytes, %v; want %d bytes", i, len(got), err, len(f))
		}
	}
	if _, err := fr.ReadFrame(); err != io.EOF {
		t.Errorf("after the last frame: err = %v; want io.EOF", err)
	}

	boom := errors.New("boom")
	if err := NewFrameWriter(errWriter{boom}).WriteFrame([]byte("x")); err != boom {
		t.Errorf("WriteFrame to a failing writer = %v; want its error", err)
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

func TestFrameLen(t *testing.T) {
	tests := []struct {
		n      int
		want   uint32
		wantOK bool
	}{
		{0, 0, true},
		{1 << 20, 1 << 20, true},
		{1<<32 - 1, 1<<32 - 1, true},
		{1 << 32, 0, false},
	}
	for _, tt := range tests {
		if got, ok := frameLen(tt.n); got != tt.want || ok != tt.wantOK {
			t.Errorf("frameLen(%d) = %d, %v; want %d, %v", tt.n, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestConsumeFrame(t *testing.T) {
	b := AppendFrame(AppendFrame(nil, []byte("ab")), nil)
	f, n, err := ConsumeFrame(b)
	if err != nil || string(f) != "ab" || n != 6 || &f[0] != &b[4] {
		t.Fatalf("ConsumeFrame = %q, %d, %v; want \"ab\" aliasing the input, 6", f, n, err)
	}
	if f, n, err = ConsumeFrame(b[n:]); err != nil || len(f) != 0 || n != 4 {
		t.Errorf("empty frame: ConsumeFrame = %q, %d, %v", f, n, err)
	}
	for _, in := range []string{"", "000000", "00000002 61"} {
		if _, _, err := ConsumeFrame(mustHex(t, in)); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("ConsumeFrame(%s) = err %v; want io.ErrUnexpectedEOF", in, err)
		}
	}
	if SizeFrame(2) != 6 {
		t.Errorf("SizeFrame(2) = %d; want 6", SizeFrame(2))
	}
}

func TestAppendFrameFunc(t *testing.T) {
	payload := AppendWatchEvent(nil, "ADDED", []byte("obj"))
	got := AppendFrameFunc([]byte("x"), func(b []byte) []byte {
		return AppendWatchEvent(b, "ADDED", []byte("obj"))
	})
	want := AppendFrame([]byte("x"), payload)
	if !bytes.Equal(got, want) {
		t.Errorf("AppendFrameFunc = %x; want %x", got, want)
	}
}
