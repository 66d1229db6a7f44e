package audit

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// Backend receives the filter's events. ProcessEvent is called on the
// goroutine of the request, concurrently for different requests; ev is
// valid only during the call (the filter reuses it for the request's next
// stage), so a backend that keeps it must copy it. An error is logged;
// the request goes on, as with kube-apiserver's log backend.
type Backend interface {
	ProcessEvent(ev *Event) error
}

// LogBackend writes each event as one line of JSON, as kube-apiserver's
// --audit-log-path does (--audit-log-format=json, --audit-log-mode=blocking):
// the request waits for its line to be written. Writes are serialized,
// so lines never interleave. Create one with NewLogBackend.
type LogBackend struct {
	mu  sync.Mutex    // guards buf and enc, and orders the writes to w
	w   io.Writer     // where the lines go
	buf bytes.Buffer  // the line being written, reused
	enc *json.Encoder // writes to buf
}

// NewLogBackend returns a LogBackend that writes to w: a FileWriter for a
// file with rotation, os.Stdout for kube-apiserver's --audit-log-path=-.
func NewLogBackend(w io.Writer) *LogBackend {
	b := &LogBackend{w: w}
	b.enc = json.NewEncoder(&b.buf) // escapes <, > and & as kube-apiserver's encoder does
	return b
}

// ProcessEvent writes ev as one line.
func (b *LogBackend) ProcessEvent(ev *Event) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
	if err := b.enc.Encode(ev); err != nil { // Encode ends the line
		return err
	}
	_, err := b.w.Write(b.buf.Bytes())
	if b.buf.Cap() > maxKeptLine {
		b.buf = bytes.Buffer{} // do not pin the largest event
		b.enc = json.NewEncoder(&b.buf)
	}
	return err
}

// maxKeptLine is the largest line buffer a LogBackend keeps between events.
const maxKeptLine = 64 << 10
