package negotiation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/status"
)

// Event is one watch event for a StreamWriter: its type (ADDED, MODIFIED,
// DELETED, BOOKMARK, ERROR) and its object already encoded in the stream's
// media type: compact JSON for a JSON stream (a trailing newline is
// ignored), a protobuf envelope for a protobuf stream. Or it is Frame, the
// event AppendEvent framed for the stream's media type, which is written as
// it is: a server with many watchers of one change frames its event once
// and hands every stream the same bytes.
type Event struct {
	Type   string
	Object []byte
	// Frame, if not nil, is the whole event; Type and Object are ignored.
	// It is not modified.
	Frame []byte
}

// StreamWriter writes the events of one watch response in the framing of
// its media type, as k8s.io/apiserver/pkg/endpoints/handlers/watch.go does:
//
//   - JSON (Content-Type application/json): one event per line,
//     {"type":"ADDED","object":{...}} and a newline.
//   - protobuf (application/vnd.kubernetes.protobuf;stream=watch): one
//     frame per event, a 4-byte big-endian length and a WatchEvent whose
//     object is the envelope of the event's object.
//
// Each event is written with one Write call. WriteEvent flushes after the
// event, so a client sees it without waiting for more; WriteEvents writes a
// batch and flushes once, which is what a watch loop should use when it
// has several events queued (Kubernetes flushes only when its queue is
// empty). A StreamWriter is for one goroutine, the handler's.
type StreamWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	media MediaType
	buf   []byte // reused for every event
}

// maxKeptEventBuffer is the largest event buffer a StreamWriter keeps
// between events.
const maxKeptEventBuffer = 64 << 10

// ErrNoFlusher reports a ResponseWriter that cannot flush, on which a watch
// cannot be served.
var ErrNoFlusher = errors.New("negotiation: the ResponseWriter cannot flush")

// NewStreamWriter starts the watch response res negotiated: it writes
// status 200 and the Content-Type, and flushes them so the client's watch
// call returns before the first event. If w cannot flush (it implements
// http.Flusher neither itself nor through Unwrap), nothing is written and
// the error, a 500 wrapping ErrNoFlusher, is for WriteError. Only JSON and
// protobuf have a stream form.
func NewStreamWriter(w http.ResponseWriter, res Result) (*StreamWriter, error) {
	if !canFlush(w) {
		return nil, status.NewInternalError(fmt.Errorf("unable to start watch - can't get http.Flusher: %w", ErrNoFlusher))
	}
	if res.MediaType != JSON && res.MediaType != Protobuf {
		return nil, notAcceptable(Endpoint{Response: Watch})
	}
	res.Stream = true
	s := &StreamWriter{w: w, rc: http.NewResponseController(w), media: res.MediaType}
	h := w.Header()
	h.Set("Content-Type", res.ContentType())
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	return s, s.rc.Flush()
}

// canFlush reports whether w or a writer it wraps implements http.Flusher,
// the test http.ResponseController applies.
func canFlush(w http.ResponseWriter) bool {
	for {
		switch t := w.(type) {
		case http.Flusher:
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
}

// WriteEvent writes one event and flushes it.
func (s *StreamWriter) WriteEvent(typ string, object []byte) error {
	if err := s.write(typ, object); err != nil {
		return err
	}
	return s.rc.Flush()
}

// WriteEvents writes events in order and flushes once after the last.
func (s *StreamWriter) WriteEvents(events []Event) error {
	for _, e := range events {
		var err error
		if e.Frame != nil {
			_, err = s.w.Write(e.Frame)
		} else {
			err = s.write(e.Type, e.Object)
		}
		if err != nil {
			return err
		}
	}
	return s.rc.Flush()
}

// WriteError writes an ERROR event carrying err as a Status (the Status of
// a *status.Error in err's chain, or a 500 with err's text), and flushes.
// A stream normally ends after it.
func (s *StreamWriter) WriteError(err error) error {
	st := status.FromError(err)
	var obj []byte
	if s.media == Protobuf {
		obj = AppendStatusProtobuf(nil, &st)
	} else {
		var merr error
		if obj, merr = json.Marshal(&st); merr != nil {
			return merr
		}
	}
	return s.WriteEvent("ERROR", obj)
}

func (s *StreamWriter) write(typ string, object []byte) error {
	b := AppendEvent(s.buf[:0], s.media, typ, object)
	_, err := s.w.Write(b)
	// Keep the buffer for the next event unless one large event grew it:
	// a long-lived watch should not pin its largest event.
	if cap(b) <= maxKeptEventBuffer {
		s.buf = b
	} else {
		s.buf = nil
	}
	return err
}

// AppendEvent appends to dst the event of type typ whose object is
// encoded in media (JSON or protobuf, as for Event) framed as a
// StreamWriter of that media type writes it: a line of JSON, or a
// length-prefixed protobuf WatchEvent; an Event's Frame.
func AppendEvent(dst []byte, media MediaType, typ string, object []byte) []byte {
	if media == Protobuf {
		return envelope.AppendFrameFunc(dst, func(b []byte) []byte {
			return envelope.AppendWatchEvent(b, typ, object)
		})
	}
	return appendJSONEvent(dst, typ, object)
}

// EventObject returns the object of an event AppendEvent framed for
// media, a slice of frame (for a JSON line, without the trailing
// whitespace AppendEvent drops); nil if frame is not such an event.
func EventObject(media MediaType, frame []byte) []byte {
	if media == Protobuf {
		body, n, err := envelope.ConsumeFrame(frame)
		if err != nil || n != len(frame) {
			return nil
		}
		ev, err := envelope.ConsumeWatchEvent(body)
		if err != nil {
			return nil
		}
		return ev.Object
	}
	// {"type":"<type>","object":<object>}\n; the type has no quote.
	const head, objKey = `{"type":"`, `","object":`
	if !bytes.HasPrefix(frame, []byte(head)) || !bytes.HasSuffix(frame, []byte("}\n")) {
		return nil
	}
	i := bytes.Index(frame[len(head):], []byte(objKey))
	if i < 0 {
		return nil
	}
	return frame[len(head)+i+len(objKey) : len(frame)-2]
}

// appendJSONEvent appends a metav1.WatchEvent as one line of JSON. A nil
// object is null, as an empty RawExtension.
func appendJSONEvent(b []byte, typ string, object []byte) []byte {
	b = append(b, `{"type":`...)
	b = jsonvalue.AppendString(b, typ)
	b = append(b, `,"object":`...)
	if object = bytes.TrimRight(object, " \t\r\n"); len(object) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, object...)
	}
	return append(b, "}\n"...)
}
