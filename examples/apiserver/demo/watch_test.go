package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apisem/apisem/envelope"
)

// stream is an open watch response.
type stream struct {
	t      testing.TB
	resp   *http.Response
	lines  *bufio.Reader
	frames *envelope.FrameReader
	cancel context.CancelFunc
}

func openWatch(t testing.TB, base, path string, hdr ...string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &stream{t: t, resp: resp, cancel: cancel}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.kubernetes.protobuf") {
		s.frames = envelope.NewFrameReader(resp.Body)
	} else {
		s.lines = bufio.NewReader(resp.Body)
	}
	t.Cleanup(s.close)
	return s
}

func (s *stream) close() {
	s.cancel()
	s.resp.Body.Close()
}

// event is one decoded event: its type and, for JSON, its object; for
// protobuf the envelope of the object.
type event struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
	env    envelope.Envelope
}

// next reads the next event, failing the test after 10 seconds.
func (s *stream) next() event {
	s.t.Helper()
	done := make(chan struct{})
	timer := time.AfterFunc(10*time.Second, func() { s.close(); close(done) })
	defer timer.Stop()
	var e event
	if s.frames != nil {
		f, err := s.frames.ReadFrame()
		if err != nil {
			s.t.Fatalf("reading a frame: %v", err)
		}
		we, err := envelope.ConsumeWatchEvent(f)
		if err != nil {
			s.t.Fatal(err)
		}
		e.Type = we.Type
		if e.env, err = envelope.ConsumeEnvelope(append([]byte(nil), we.Object...)); err != nil {
			s.t.Fatal(err)
		}
		return e
	}
	line, err := s.lines.ReadBytes('\n')
	if err != nil {
		s.t.Fatalf("reading an event: %v (%q)", err, line)
	}
	if err := json.Unmarshal(line, &e); err != nil {
		s.t.Fatalf("event %q: %v", line, err)
	}
	return e
}

// JSON watch: one line per event, objects with kind and apiVersion,
// DELETED with the deletion's resourceVersion, selectors applied.
func TestWatchJSON(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	seed(t, base, "ns2")
	rv := field(t, must(t, 200, base, "GET", "/api/v1/namespaces/ns1/configmaps", "").body, "metadata.resourceVersion").(string)
	w := openWatch(t, base, "/api/v1/namespaces/ns1/configmaps?watch=1&resourceVersion="+rv+"&labelSelector=app%3Dx")
	if ct := w.resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	must(t, 201, base, "POST", "/api/v1/namespaces/ns1/configmaps", `{"metadata":{"name":"a","labels":{"app":"x"}}}`)
	must(t, 201, base, "POST", "/api/v1/namespaces/ns1/configmaps", `{"metadata":{"name":"other"}}`)
	must(t, 201, base, "POST", "/api/v1/namespaces/ns2/configmaps", `{"metadata":{"name":"a","labels":{"app":"x"}}}`)
	must(t, 200, base, "PATCH", "/api/v1/namespaces/ns1/configmaps/a", `{"data":{"k":"1"}}`, "Content-Type", "application/merge-patch+json")
	must(t, 200, base, "PATCH", "/api/v1/namespaces/ns1/configmaps/a", `{"metadata":{"labels":{"app":"y"}}}`, "Content-Type", "application/merge-patch+json")
	del := must(t, 200, base, "DELETE", "/api/v1/namespaces/ns1/configmaps/cm", "")
	_ = del
	for _, want := range []struct{ typ, name string }{{"ADDED", "a"}, {"MODIFIED", "a"}, {"DELETED", "a"}, {"DELETED", "cm"}} {
		e := w.next()
		if e.Type != want.typ || field(t, string(e.Object), "metadata.name") != want.name ||
			field(t, string(e.Object), "kind") != "ConfigMap" || field(t, string(e.Object), "apiVersion") != "v1" {
			t.Fatalf("event %s %s; want %s %s", e.Type, e.Object, want.typ, want.name)
		}
	}
}

// Protobuf watch: length-prefixed WatchEvent frames holding envelopes.
func TestWatchProtobuf(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	w := openWatch(t, base, "/api/v1/namespaces/ns1/configmaps?watch=1&allowWatchBookmarks=true", "Accept", "application/vnd.kubernetes.protobuf;stream=watch")
	if ct := w.resp.Header.Get("Content-Type"); ct != "application/vnd.kubernetes.protobuf;stream=watch" {
		t.Errorf("Content-Type %q", ct)
	}
	e := w.next()
	if e.Type != "ADDED" || e.env.Kind != "ConfigMap" || e.env.APIVersion != "v1" {
		t.Fatalf("first event %s %+v", e.Type, e.env)
	}
	if e = w.next(); e.Type != "BOOKMARK" {
		t.Fatalf("second event %s; want the initial-events-end BOOKMARK", e.Type)
	}
}

// A Table watch sends column definitions in its first event only.
func TestWatchTable(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	const accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	w := openWatch(t, base, "/api/v1/namespaces/ns1/configmaps?watch=1&resourceVersion=0", "Accept", accept)
	e := w.next()
	if e.Type != "ADDED" || field(t, string(e.Object), "kind") != "Table" || field(t, string(e.Object), "columnDefinitions") == nil {
		t.Fatalf("first event %s %s", e.Type, e.Object)
	}
	must(t, 201, base, "POST", "/api/v1/namespaces/ns1/configmaps", `{"metadata":{"name":"b"}}`)
	e = w.next()
	if e.Type != "ADDED" || field(t, string(e.Object), "columnDefinitions") != nil {
		t.Fatalf("second event %s %s", e.Type, e.Object)
	}
	rows := field(t, string(e.Object), "rows").([]any)
	if cells := rows[0].(map[string]any)["cells"].([]any); cells[0] != "b" || cells[1] != float64(0) || cells[2] == "" {
		t.Errorf("cells %v", cells)
	}
}

// A watch from a compacted resourceVersion gets the 410 ERROR event;
// a single-object watch checks its field selector.
func TestWatchErrors(t *testing.T) {
	s, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	must(t, 201, base, "POST", "/api/v1/namespaces/ns1/configmaps", `{"metadata":{"name":"b"}}`)
	c := s.Compact()
	w := openWatch(t, base, "/api/v1/namespaces/ns1/configmaps?watch=1&resourceVersion=1")
	e := w.next()
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (` + c.String() + `)","reason":"Expired","code":410}`
	if e.Type != "ERROR" || string(e.Object) != want {
		t.Errorf("event %s %s; want ERROR %s", e.Type, e.Object, want)
	}
	r := must(t, 400, base, "GET", "/api/v1/watch/namespaces/ns1/configmaps/b?fieldSelector=metadata.name%3Dc", "")
	if field(t, r.body, "message") != "fieldSelector metadata.name doesn't match requested name" {
		t.Errorf("mismatched single-object watch: %s", r.body)
	}
	w = openWatch(t, base, "/api/v1/watch/namespaces/ns1/configmaps/b?resourceVersion=0")
	if e := w.next(); e.Type != "ADDED" || field(t, string(e.Object), "metadata.name") != "b" {
		t.Errorf("single-object watch: %s %s", e.Type, e.Object)
	}
}

// Lists in every representation: JSON (items without kind), protobuf,
// PartialObjectMetadataList, Table with the full object, YAML.
func TestListForms(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	must(t, 201, base, "POST", "/apis/example.apisem.dev/v1/namespaces/ns1/widgets", `{"metadata":{"name":"w"},"spec":{"color":"red","size":2}}`)
	r := must(t, 200, base, "GET", "/api/v1/configmaps", "")
	item := field(t, r.body, "items").([]any)[0].(map[string]any)
	if item["kind"] != nil || field(t, r.body, "kind") != "ConfigMapList" {
		t.Errorf("core list items carry no kind: %s", r.body)
	}
	r = must(t, 200, base, "GET", "/apis/example.apisem.dev/v1/widgets", "")
	if item := field(t, r.body, "items").([]any)[0].(map[string]any); item["kind"] != "Widget" {
		t.Errorf("custom resource list items carry their kind: %s", r.body)
	}
	r = must(t, 200, base, "GET", "/api/v1/configmaps", "", "Accept", "application/vnd.kubernetes.protobuf")
	if e, err := envelope.ConsumeEnvelope([]byte(r.body)); err != nil || e.Kind != "ConfigMapList" {
		t.Errorf("protobuf list: %v %+v", err, e)
	}
	r = must(t, 200, base, "GET", "/api/v1/configmaps", "", "Accept", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io")
	if field(t, r.body, "kind") != "PartialObjectMetadataList" || field(t, r.body, "items").([]any)[0].(map[string]any)["kind"] != "PartialObjectMetadata" {
		t.Errorf("metadata list: %s", r.body)
	}
	r = must(t, 200, base, "GET", "/apis/example.apisem.dev/v1/widgets?includeObject=Object", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	row := field(t, r.body, "rows").([]any)[0].(map[string]any)
	if cells := row["cells"].([]any); cells[0] != "w" || cells[1] != "red" || cells[2] != float64(2) ||
		row["object"].(map[string]any)["kind"] != "Widget" {
		t.Errorf("widget table: %s", r.body)
	}
	r = must(t, 200, base, "GET", "/api/v1/namespaces/ns1/configmaps/cm", "", "Accept", "application/yaml")
	if !strings.HasPrefix(r.body, "apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\n") {
		t.Errorf("YAML: %s", r.body)
	}

	// The custom resource has no protobuf form, but its metadata has, as
	// for a CRD: the metadata client gets protobuf, a plain protobuf
	// request falls back to JSON or, alone, is refused.
	const widgets = "/apis/example.apisem.dev/v1/namespaces/ns1/widgets"
	r = must(t, 200, base, "GET", widgets, "", "Accept",
		"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")
	if e, err := envelope.ConsumeEnvelope([]byte(r.body)); err != nil || e.Kind != "PartialObjectMetadataList" || e.APIVersion != "meta.k8s.io/v1" {
		t.Errorf("widgets' metadata in protobuf: %v %+v", err, e)
	}
	r = must(t, 200, base, "GET", widgets+"/w", "", "Accept", "application/vnd.kubernetes.protobuf,application/json")
	if field(t, r.body, "kind") != "Widget" || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("widget for a protobuf client: %s %s", r.header.Get("Content-Type"), r.body)
	}
	// kube-apiserver 1.37 lists protobuf for a custom resource too, and
	// answers the 406 in protobuf.
	r = must(t, 406, base, "GET", widgets+"/w", "", "Accept", "application/vnd.kubernetes.protobuf")
	if e, err := envelope.ConsumeEnvelope([]byte(r.body)); err != nil || e.Kind != "Status" {
		t.Errorf("widget in protobuf: %v %q", err, r.body)
	} else if st, err := envelope.ConsumeStatus(e.Raw); err != nil ||
		st.Message != "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf" {
		t.Errorf("widget in protobuf: %v %+v", err, st)
	}
	w := openWatch(t, base, widgets+"?watch=1&resourceVersion=0", "Accept",
		"application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json")
	if e := w.next(); e.Type != "ADDED" || e.env.Kind != "PartialObjectMetadata" {
		t.Errorf("widgets' metadata watch: %s %+v", e.Type, e.env)
	}
}

// Empty lists have "items": [] in every JSON form, and responses follow
// Kubernetes' Content-Type and pretty rules
// (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters): the
// bare media type even for a Table, compact JSON ending in a newline by
// default, indented without the newline for ?pretty=true or a curl
// User-Agent.
func TestListEmptyAndPretty(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	const empty = "/api/v1/namespaces/ns1/secrets"
	if r := must(t, 200, base, "GET", empty, ""); r.body != `{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":[]}`+"\n" {
		t.Errorf("empty list: %q", r.body)
	}
	if r := must(t, 200, base, "GET", empty+"?labelSelector=a%3Db", "", "Accept", "application/yaml"); !strings.HasSuffix(r.body, "items: []\nkind: SecretList\nmetadata:\n  resourceVersion: \"3\"\n") {
		t.Errorf("empty YAML list: %q", r.body)
	}
	r := must(t, 200, base, "GET", empty, "", "Accept", "application/vnd.kubernetes.protobuf")
	if e, err := envelope.ConsumeEnvelope([]byte(r.body)); err != nil || e.Kind != "SecretList" {
		t.Errorf("empty protobuf list: %v %+v", err, e)
	}

	const table = "application/json;as=Table;v=v1;g=meta.k8s.io"
	for _, tt := range []struct {
		path, accept, agent string
		pretty              bool
	}{
		{"/api/v1/namespaces/ns1/configmaps", "", "", false},
		{"/api/v1/namespaces/ns1/configmaps?pretty=true", "", "", true},
		{"/api/v1/namespaces/ns1/configmaps?pretty=0", "", "curl/8.5.0", false}, // the query decides (kube-apiserver 1.37 answers so)
		{"/api/v1/namespaces/ns1/configmaps?pretty=", "", "curl/8.5.0", true},   // an empty value says nothing
		{"/api/v1/namespaces/ns1/configmaps", "", "Wget/1.21", true},
		{"/api/v1/namespaces/ns1/configmaps", "application/json;pretty=1", "", true},
		{"/api/v1/namespaces/ns1/configmaps", table, "", false},
		{"/api/v1/namespaces/ns1/configmaps?pretty=1", table, "", true},
		{"/api/v1/namespaces/ns1/configmaps/cm", "", "", false},
		{"/api/v1/namespaces/ns1/configmaps/cm?pretty=true", "", "", true},
		{"/api/v1/namespaces/ns1/configmaps/nope?pretty=true", "", "", true},
	} {
		hdr := []string{"User-Agent", "test"}
		if tt.agent != "" {
			hdr[1] = tt.agent
		}
		if tt.accept != "" {
			hdr = append(hdr, "Accept", tt.accept)
		}
		r := call(t, base, "GET", tt.path, "", hdr...)
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("GET %s (%s): Content-Type %q", tt.path, tt.accept, ct)
		}
		if pretty := strings.HasPrefix(r.body, "{\n  \"kind\": "); pretty != tt.pretty || pretty == strings.HasSuffix(r.body, "\n") {
			t.Errorf("GET %s (Accept %q, agent %q): pretty %v; want %v:\n%s", tt.path, tt.accept, tt.agent, pretty, tt.pretty, r.body)
		}
	}
}

// kubectl get <name> -w watches one object through its collection with
// fieldSelector=metadata.name=<name> (k8s.io/kubectl/pkg/cmd/get): only that
// object's events arrive.
func TestWatchSingleObject(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	const cms = "/api/v1/namespaces/ns1/configmaps"
	w := openWatch(t, base, cms+"?watch=1&fieldSelector=metadata.name%3Dcm&resourceVersion=0")
	must(t, 201, base, "POST", cms, `{"metadata":{"name":"other"}}`)
	must(t, 200, base, "PATCH", cms+"/other", `{"data":{"a":"1"}}`, "Content-Type", "application/merge-patch+json")
	must(t, 200, base, "PATCH", cms+"/cm", `{"data":{"a":"1"}}`, "Content-Type", "application/merge-patch+json")
	must(t, 200, base, "DELETE", cms+"/other", "")
	must(t, 200, base, "DELETE", cms+"/cm", "")
	for _, want := range []string{"ADDED", "MODIFIED", "DELETED"} {
		if e := w.next(); e.Type != want || field(t, string(e.Object), "metadata.name") != "cm" {
			t.Fatalf("event %s %s; want %s of cm", e.Type, e.Object, want)
		}
	}
}

// A watch is established before its response begins, as in Kubernetes: a
// client that has the 200 of a "Get State and Start at Any" watch and then
// writes sees its write as an event, never folded into the initial state.
// The race this rules out is narrow, so the test repeats it.
func TestWatchEstablishedBeforeResponse(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	const cms = "/api/v1/namespaces/ns1/configmaps"
	for i := range 100 {
		name := "w" + itoa(i)
		w := openWatch(t, base, cms+"?watch=1&resourceVersion=0&fieldSelector=metadata.name%3D"+name)
		must(t, 201, base, "POST", cms, `{"metadata":{"name":"`+name+`"}}`)
		must(t, 200, base, "PATCH", cms+"/"+name, `{"data":{"a":"1"}}`, "Content-Type", "application/merge-patch+json")
		for _, want := range []string{"ADDED", "MODIFIED"} {
			if e := w.next(); e.Type != want {
				t.Fatalf("round %d: event %s %s; want %s: the watch started after the client's writes", i, e.Type, e.Object, want)
			}
		}
		w.close()
	}
}

// flushRecorder is a ResponseWriter that counts flushes and remembers how
// much had been written at each.
type flushRecorder struct {
	mu      sync.Mutex
	header  http.Header
	body    bytes.Buffer
	flushed []int // body length at each flush
}

func (f *flushRecorder) Header() http.Header { return f.header }
func (f *flushRecorder) WriteHeader(int)     {}
func (f *flushRecorder) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.body.Write(b)
}
func (f *flushRecorder) Flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushed = append(f.flushed, f.body.Len())
}

// state returns the number of event lines written and the flushes so far.
func (f *flushRecorder) state() (lines int, flushed []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bytes.Count(f.body.Bytes(), []byte("\n")), slices.Clone(f.flushed)
}

// A watch flushes when nothing more is queued, as Kubernetes'
// k8s.io/apiserver/pkg/endpoints/handlers/watch.go does: events
// that are all there at once go out in one flush, and a lone event is
// flushed at once.
func TestWatchFlushesWhenNothingQueued(t *testing.T) {
	s, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	start := s.Revision()
	for i := range 50 {
		must(t, 201, base, "POST", "/api/v1/namespaces/ns1/configmaps", `{"metadata":{"name":"c`+itoa(i)+`"}}`)
	}
	// "All there at once" means dispatched: a broadcaster still reading
	// the writes would hand the replay over in parts, each rightly flushed.
	bcast := s.BroadcasterOf(s.byKind["ConfigMap"])
	eventually(t, "the broadcaster to dispatch the writes", func() bool { return bcast.Stats().Revision >= s.Revision() })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	rec := &flushRecorder{header: http.Header{}}
	go func() {
		defer close(done)
		req := httptest.NewRequestWithContext(ctx, "GET", "/api/v1/namespaces/ns1/configmaps?watch=1&resourceVersion="+start.String(), nil)
		s.ServeHTTP(rec, req)
	}()
	defer func() { cancel(); <-done }()

	eventually(t, "the 50 replayed events", func() bool { n, _ := rec.state(); return n == 50 })
	_, flushed := rec.state()
	// One flush for the headers, one for the replayed events.
	if len(flushed) != 2 || flushed[0] != 0 {
		t.Errorf("flushes at body lengths %v; want [0 <all 50 events>]", flushed)
	}
	must(t, 201, base, "POST", "/api/v1/namespaces/ns1/configmaps", `{"metadata":{"name":"late"}}`)
	eventually(t, "the live event to be flushed", func() bool {
		n, flushed := rec.state()
		return n == 51 && len(flushed) == 3
	})
}
