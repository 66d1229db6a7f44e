package audit

import (
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
	mu  sync.Mutex // guards buf, and orders the writes to w
	w   io.Writer
	buf []byte // the line being written, reused
}

// NewLogBackend returns a LogBackend that writes to w: a FileWriter for a
// file with rotation, os.Stdout for kube-apiserver's --audit-log-path=-.
func NewLogBackend(w io.Writer) *LogBackend {
	return &LogBackend{w: w}
}

// ProcessEvent writes ev as one line, its JSON as encoding/json (and
// kube-apiserver) writes it.
func (b *LogBackend) ProcessEvent(ev *Event) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	line := append(appendEvent(b.buf[:0], ev), '\n')
	_, err := b.w.Write(line)
	if cap(line) <= maxKeptLine {
		b.buf = line
	} else {
		b.buf = nil // do not pin the largest event
	}
	return err
}

// maxKeptLine is the largest line buffer a LogBackend keeps between events.
const maxKeptLine = 64 << 10
