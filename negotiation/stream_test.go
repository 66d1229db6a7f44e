package negotiation

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/status"
)

// flushCounter is a ResponseWriter that counts flushes and, with mark,
// records each as a "|" in the body, so tests see where flushes fall.
type flushCounter struct {
	*httptest.ResponseRecorder
	mark    bool
	flushes int
}

func (f *flushCounter) Flush() {
	f.flushes++
	if f.mark {
		f.Body.WriteString("|")
	}
	f.ResponseRecorder.Flush()
}

func TestStreamWriterJSON(t *testing.T) {
	w := &flushCounter{ResponseRecorder: httptest.NewRecorder(), mark: true}
	sw, err := NewStreamWriter(w, Result{MediaType: JSON, Target: TargetTable})
	if err != nil {
		t.Fatal(err)
	}
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || w.flushes != 1 {
		t.Fatalf("start: %d %q, %d flushes; want 200 application/json flushed", w.Code, w.Header().Get("Content-Type"), w.flushes)
	}
	must(t, sw.WriteEvent("ADDED", []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}`+"\n")))
	must(t, sw.WriteEvents([]Event{
		{Type: "MODIFIED", Object: []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"8"}}`)},
		{Type: "BOOKMARK", Object: []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"9"}}`)},
		{Type: "DELETED", Object: nil},
	}))
	must(t, sw.WriteError(status.NewExpired("too old resource version: 1 (2)")))
	must(t, sw.WriteError(errors.New("boom")))
	want := `|{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}}
|{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"8"}}}
{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"9"}}}
{"type":"DELETED","object":null}
|{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}}
|{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"boom","code":500}}
|`
	if got := w.Body.String(); got != want {
		t.Errorf("stream =\n%s\nwant\n%s", got, want)
	}
	// Every line decodes as a metav1.WatchEvent, as client-go reads it.
	dec := json.NewDecoder(strings.NewReader(strings.ReplaceAll(want, "|", "")))
	for n := 0; ; n++ {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err == io.EOF {
			if n != 6 {
				t.Errorf("decoded %d events; want 6", n)
			}
			break
		} else if err != nil {
			t.Fatalf("event %d: %v", n, err)
		}
	}
}

func TestStreamWriterProtobuf(t *testing.T) {
	w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	sw, err := NewStreamWriter(w, Result{MediaType: Protobuf})
	if err != nil {
		t.Fatal(err)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/vnd.kubernetes.protobuf;stream=watch" {
		t.Fatalf("Content-Type = %q", ct)
	}
	obj := envelope.AppendEnvelope(nil, "v1", "ConfigMap", []byte{0x0a, 0x00})
	must(t, sw.WriteEvent("ADDED", obj))
	must(t, sw.WriteEvents([]Event{{Type: "MODIFIED", Object: obj}, {Type: "DELETED", Object: obj}}))
	gone := status.NewExpired("too old resource version: 1 (2)")
	must(t, sw.WriteError(gone))
	if w.flushes != 4 {
		t.Errorf("%d flushes; want 4 (start, event, batch, error)", w.flushes)
	}
	// Exact bytes: frame(WatchEvent) per event.
	var want []byte
	for _, typ := range []string{"ADDED", "MODIFIED", "DELETED"} {
		want = envelope.AppendFrame(want, envelope.AppendWatchEvent(nil, typ, obj))
	}
	ps := protoStatus(&gone.Status)
	want = envelope.AppendFrame(want, envelope.AppendWatchEvent(nil, "ERROR", envelope.AppendEnvelope(nil, "v1", "Status", envelope.AppendStatus(nil, &ps))))
	got := w.Body.Bytes()
	if !bytes.Equal(got, want) {
		t.Fatalf("stream = %x\nwant %x", got, want)
	}
	// And a client's frame reader sees the events.
	fr := envelope.NewFrameReader(bytes.NewReader(got))
	var types []string
	for {
		f, err := fr.ReadFrame()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ev, err := envelope.ConsumeWatchEvent(f)
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, ev.Type)
		if ev.Type == "ERROR" {
			env, err := envelope.ConsumeEnvelope(ev.Object)
			if err != nil || env.Kind != "Status" || env.APIVersion != "v1" {
				t.Errorf("ERROR object = %+v, %v", env, err)
			}
		} else if !bytes.Equal(ev.Object, obj) {
			t.Errorf("%s object = %x; want %x", ev.Type, ev.Object, obj)
		}
	}
	if strings.Join(types, ",") != "ADDED,MODIFIED,DELETED,ERROR" {
		t.Errorf("types = %v", types)
	}
}

// plainWriter is a ResponseWriter that cannot flush.
type plainWriter struct {
	h    http.Header
	code int
	body bytes.Buffer
}

func (p *plainWriter) Header() http.Header         { return p.h }
func (p *plainWriter) Write(b []byte) (int, error) { return p.body.Write(b) }
func (p *plainWriter) WriteHeader(code int)        { p.code = code }

// wrapper hides a ResponseWriter behind Unwrap, as middleware does.
type wrapper struct{ http.ResponseWriter }

func (w wrapper) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func TestStreamWriterStart(t *testing.T) {
	p := &plainWriter{h: http.Header{}}
	_, err := NewStreamWriter(p, Result{MediaType: JSON})
	if !errors.Is(err, ErrNoFlusher) || !status.IsInternalError(err) || p.code != 0 || p.body.Len() != 0 {
		t.Errorf("NewStreamWriter(no flusher) = %v, wrote %d %q; want a 500 wrapping ErrNoFlusher, nothing written", err, p.code, p.body.String())
	}
	if _, err := NewStreamWriter(wrapper{p}, Result{MediaType: JSON}); !errors.Is(err, ErrNoFlusher) {
		t.Errorf("NewStreamWriter(wrapped, no flusher) = %v", err)
	}
	rec := httptest.NewRecorder()
	if _, err := NewStreamWriter(wrapper{rec}, Result{MediaType: JSON}); err != nil || !rec.Flushed || rec.Code != 200 {
		t.Errorf("NewStreamWriter(wrapped recorder) = %v, flushed %v", err, rec.Flushed)
	}
	_, err = NewStreamWriter(httptest.NewRecorder(), Result{MediaType: YAML})
	if !status.IsNotAcceptable(err) || err.Error() != notAcceptableStream {
		t.Errorf("NewStreamWriter(YAML) = %v", err)
	}
}

// failWriter fails every Write.
type failWriter struct{ *httptest.ResponseRecorder }

var errWrite = errors.New("connection reset")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestStreamWriterWriteErrors(t *testing.T) {
	sw, err := NewStreamWriter(failWriter{httptest.NewRecorder()}, Result{MediaType: JSON})
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.WriteEvent("ADDED", []byte("{}")); !errors.Is(err, errWrite) {
		t.Errorf("WriteEvent = %v; want the writer's error", err)
	}
	if err := sw.WriteEvents([]Event{{Type: "ADDED", Object: []byte("{}")}}); !errors.Is(err, errWrite) {
		t.Errorf("WriteEvents = %v; want the writer's error", err)
	}
	if err := sw.WriteEvents([]Event{{Frame: AppendEvent(nil, JSON, "ADDED", []byte("{}"))}}); !errors.Is(err, errWrite) {
		t.Errorf("WriteEvents(frame) = %v; want the writer's error", err)
	}
	if err := sw.WriteError(errors.New("x")); !errors.Is(err, errWrite) {
		t.Errorf("WriteError = %v; want the writer's error", err)
	}
}

func TestStreamWriterBuffer(t *testing.T) {
	rec := httptest.NewRecorder()
	sw, err := NewStreamWriter(rec, Result{MediaType: JSON})
	if err != nil {
		t.Fatal(err)
	}
	must(t, sw.WriteEvent("ADDED", []byte(`{"a":1}`)))
	if sw.buf == nil {
		t.Errorf("small event buffer not kept")
	}
	big := []byte(`"` + strings.Repeat("x", maxKeptEventBuffer) + `"`)
	must(t, sw.WriteEvent("ADDED", big))
	if sw.buf != nil {
		t.Errorf("buffer of %d bytes kept after a large event", cap(sw.buf))
	}
	must(t, sw.WriteEvent("ODD\"TYPE", []byte(" ")))
	if !strings.HasSuffix(rec.Body.String(), `{"type":"ODD\"TYPE","object":null}`+"\n") {
		t.Errorf("odd type and blank object: %q", rec.Body.String()[rec.Body.Len()-40:])
	}
}

func BenchmarkStreamWriter(b *testing.B) {
	obj := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","resourceVersion":"12345"},"data":{"k":"v"}}`)
	pb := envelope.AppendEnvelope(nil, "v1", "ConfigMap", bytes.Repeat([]byte{0x0a, 0x00}, 40))
	for _, bb := range []struct {
		name string
		res  Result
		obj  []byte
	}{{"json", Result{MediaType: JSON}, obj}, {"protobuf", Result{MediaType: Protobuf}, pb}} {
		b.Run(bb.name, func(b *testing.B) {
			sw, err := NewStreamWriter(discardFlusher{}, bb.res)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = sw.WriteEvent("MODIFIED", bb.obj)
			}
		})
		// The event framed once for every stream, as a server's
		// watchers of one change write it.
		b.Run(bb.name+"-frame", func(b *testing.B) {
			sw, err := NewStreamWriter(discardFlusher{}, bb.res)
			if err != nil {
				b.Fatal(err)
			}
			evs := []Event{{Frame: AppendEvent(nil, bb.res.MediaType, "MODIFIED", bb.obj)}}
			b.ReportAllocs()
			for b.Loop() {
				_ = sw.WriteEvents(evs)
			}
		})
	}
}

type discardFlusher struct{}

func (discardFlusher) Header() http.Header         { return http.Header{} }
func (discardFlusher) Write(b []byte) (int, error) { return len(b), nil }
func (discardFlusher) WriteHeader(int)             {}
func (discardFlusher) Flush()                      {}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Frames made once with AppendEvent and written as Events' Frames are the
// bytes WriteEvents writes for the events' types and objects, among such
// events as well, flushed once per call; EventObject finds each frame's
// object in them.
func TestStreamWriterFrames(t *testing.T) {
	obj := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","annotations":{"x":"\\"object\\":"}}}`)
	for _, media := range []MediaType{JSON, Protobuf} {
		events := []Event{{Type: "ADDED", Object: obj}, {Type: "MODIFIED", Object: obj}, {Type: "DELETED", Object: []byte("{}")}}
		want := &flushCounter{ResponseRecorder: httptest.NewRecorder(), mark: true}
		sw, err := NewStreamWriter(want, Result{MediaType: media})
		if err != nil {
			t.Fatal(err)
		}
		must(t, sw.WriteEvents(events[:2]))
		must(t, sw.WriteEvents(events[2:]))

		got := &flushCounter{ResponseRecorder: httptest.NewRecorder(), mark: true}
		sw, err = NewStreamWriter(got, Result{MediaType: media})
		if err != nil {
			t.Fatal(err)
		}
		framed := make([]Event, len(events))
		for i, e := range events {
			f := AppendEvent(nil, media, e.Type, e.Object)
			if o := EventObject(media, f); !bytes.Equal(o, e.Object) {
				t.Errorf("%s: EventObject(AppendEvent(%s)) = %q; want %q", media, e.Type, o, e.Object)
			}
			framed[i] = Event{Type: "BOOKMARK", Frame: f}
		}
		// The first event by type and object, the others framed.
		must(t, sw.WriteEvents([]Event{events[0], framed[1]}))
		must(t, sw.WriteEvents(framed[2:]))
		if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) || got.flushes != want.flushes {
			t.Errorf("%s: frames wrote %q with %d flushes; events %q with %d", media, got.Body, got.flushes, want.Body, want.flushes)
		}
	}
	for _, bad := range []string{"", "{}", `{"type":"ADDED"}` + "\n", `{"type":"ADDED","object":{}}`} {
		if o := EventObject(JSON, []byte(bad)); o != nil {
			t.Errorf("EventObject(JSON, %q) = %q; want nil", bad, o)
		}
	}
	for _, bad := range [][]byte{nil, {0, 0, 0, 9, 1}, {0, 0, 0, 1, 0xff}} {
		if o := EventObject(Protobuf, bad); o != nil {
			t.Errorf("EventObject(Protobuf, %x) = %q; want nil", bad, o)
		}
	}
}
