package envelope

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// A frame is a 4-byte big-endian length followed by that many bytes. A
// protobuf watch stream is a sequence of frames, each holding one
// WatchEvent (not enveloped: the envelope is inside the event's object).

// frameHeaderSize is the length prefix of a frame.
const frameHeaderSize = 4

// DefaultMaxFrameSize is the largest frame a FrameReader accepts unless told
// otherwise: 16 MiB, the limit of client-go's stream decoder.
const DefaultMaxFrameSize = 16 << 20

// ErrFrameTooLarge reports a frame longer than the reader's maximum, or one
// too long for the 4-byte length prefix.
var ErrFrameTooLarge = errors.New("envelope: frame larger than the maximum allowed size")

// AppendFrame appends frame with its length prefix. It panics if frame is
// longer than a 4-byte length can describe (4 GiB); FrameWriter returns
// ErrFrameTooLarge instead.
func AppendFrame(b, frame []byte) []byte {
	n, ok := frameLen(len(frame))
	if !ok {
		panic(ErrFrameTooLarge)
	}
	b = binary.BigEndian.AppendUint32(b, n)
	return append(b, frame...)
}

// AppendFrameFunc appends a frame whose content appendFrame writes directly
// into b. The prefix has a fixed width, so the content is never moved. It
// panics like AppendFrame, and if appendFrame shortens b.
func AppendFrameFunc(b []byte, appendFrame func([]byte) []byte) []byte {
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	b = appendFrame(b)
	if len(b) < at+frameHeaderSize {
		panic("envelope: append function returned a shorter buffer than it was given")
	}
	n, ok := frameLen(len(b) - at - frameHeaderSize)
	if !ok {
		panic(ErrFrameTooLarge)
	}
	binary.BigEndian.PutUint32(b[at:], n)
	return b
}

// SizeFrame reports the size of a frame holding n bytes.
func SizeFrame(n int) int { return frameHeaderSize + n }

// ConsumeFrame reads the frame at the start of b: its content (aliasing b)
// and the bytes it occupies. A frame cut short gives io.ErrUnexpectedEOF.
func ConsumeFrame(b []byte) (frame []byte, n int, err error) {
	if len(b) < frameHeaderSize {
		return nil, 0, fmt.Errorf("envelope: frame header truncated: %w", io.ErrUnexpectedEOF)
	}
	size := uint64(binary.BigEndian.Uint32(b))
	if uint64(len(b)-frameHeaderSize) < size {
		return nil, 0, fmt.Errorf("envelope: frame truncated: %w", io.ErrUnexpectedEOF)
	}
	end := frameHeaderSize + int(size)
	return b[frameHeaderSize:end], end, nil
}

func frameLen(n int) (uint32, bool) {
	if uint64(n) > math.MaxUint32 {
		return 0, false
	}
	return uint32(n), true
}

// FrameWriter writes frames to an io.Writer. It does no buffering of its
// own: each frame is two writes, the prefix and the content, so wrap w in a
// bufio.Writer (an http.ResponseWriter already is one) when that matters.
type FrameWriter struct {
	w   io.Writer
	hdr [frameHeaderSize]byte // kept here so writing it never allocates
}

// NewFrameWriter returns a FrameWriter writing to w.
func NewFrameWriter(w io.Writer) *FrameWriter {
	return &FrameWriter{w: w}
}

// WriteFrame writes frame with its length prefix.
func (w *FrameWriter) WriteFrame(frame []byte) error {
	n, ok := frameLen(len(frame))
	if !ok {
		return fmt.Errorf("%w: %d bytes do not fit a 4-byte length", ErrFrameTooLarge, len(frame))
	}
	binary.BigEndian.PutUint32(w.hdr[:], n)
	if _, err := w.w.Write(w.hdr[:]); err != nil {
		return err
	}
	_, err := w.w.Write(frame)
	return err
}

// FrameReaderOptions configures a FrameReader. The zero value means the
// defaults.
type FrameReaderOptions struct {
	// MaxFrameSize is the largest frame content accepted, in bytes. Zero
	// or negative means DefaultMaxFrameSize.
	MaxFrameSize int
}

// FrameReader reads frames from an io.Reader.
//
// Memory follows the data, not the prefix: a frame's buffer grows in
// bounded steps as its bytes arrive, so a peer that announces a large frame
// and sends little makes the reader allocate little. The buffer is reused
// from frame to frame, and so holds on to the largest frame seen, which is
// at most MaxFrameSize.
//
// A FrameReader is not safe for concurrent use.
type FrameReader struct {
	r   io.Reader
	max int
	hdr [frameHeaderSize]byte
	buf []byte
	err error // sticky: once a read fails, the stream position is lost
}

// frameGrowStep is the first allocation for a frame that does not fit the
// current buffer; later steps double, up to the announced size.
const frameGrowStep = 64 << 10

// NewFrameReader returns a FrameReader with default options.
func NewFrameReader(r io.Reader) *FrameReader {
	return NewFrameReaderWithOptions(r, FrameReaderOptions{})
}

// NewFrameReaderWithOptions returns a FrameReader configured by opts.
func NewFrameReaderWithOptions(r io.Reader, opts FrameReaderOptions) *FrameReader {
	limit := opts.MaxFrameSize
	if limit <= 0 {
		limit = DefaultMaxFrameSize
	}
	return &FrameReader{r: r, max: limit}
}

// ReadFrame returns the next frame's content. The slice is valid until the
// next call; copy it to keep it.
//
// At the end of the stream between frames it returns io.EOF. A stream that
// ends inside a frame gives an error matching io.ErrUnexpectedEOF, and a
// frame longer than MaxFrameSize one matching ErrFrameTooLarge. After any
// error every later call returns the same error.
func (r *FrameReader) ReadFrame() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	frame, err := r.readFrame()
	if err != nil {
		r.err = err
		return nil, err
	}
	return frame, nil
}

func (r *FrameReader) readFrame() ([]byte, error) {
	if n, err := io.ReadFull(r.r, r.hdr[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("envelope: frame header truncated after %d bytes: %w", n, io.ErrUnexpectedEOF)
		}
		return nil, err // io.EOF between frames, or the reader's own error
	}
	size := uint64(binary.BigEndian.Uint32(r.hdr[:]))
	if size > uint64(r.max) {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrFrameTooLarge, size, r.max)
	}
	n := int(size)
	buf := r.buf[:0]
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = growFrame(buf, n)
		}
		m, err := io.ReadFull(r.r, buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			r.buf = buf
			return nil, fmt.Errorf("envelope: frame truncated after %d of %d bytes: %w", len(buf), n, io.ErrUnexpectedEOF)
		}
		if err != nil {
			r.buf = buf
			return nil, err
		}
	}
	r.buf = buf
	return buf, nil
}

// growFrame returns a larger buffer holding buf's bytes: double the current
// capacity, at least frameGrowStep, never more than the announced size n.
func growFrame(buf []byte, n int) []byte {
	c := min(max(2*cap(buf), frameGrowStep), n)
	nb := make([]byte, len(buf), c)
	copy(nb, buf)
	return nb
}
