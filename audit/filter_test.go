package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/audit"
	"github.com/apisem/apisem/server"
)

// newAudited returns a server of ConfigMaps, anonymous users allowed
// everything, audited under policy into the returned buffer; filters
// run inside the audit filter, as the handler's own code would.
func newAudited(t *testing.T, policy string, maxBody int, filters ...func(http.Handler) http.Handler) (*server.Server, *syncBuffer) {
	t.Helper()
	p, err := audit.ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\n" + policy))
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	f, err := audit.New(audit.Options{Policy: p, Backend: audit.NewLogBackend(log), MaxBodyBytes: maxBody,
		Now:   func() time.Time { return time.Date(2026, 11, 27, 10, 0, 0, 123456789, time.UTC) },
		NewID: func() string { return "id" }})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Options{
		Resources: []*server.Resource{configMaps},
		Security:  referenceSecurity(),
		Hooks:     server.HookOptions{Audit: f.Wrap, Filters: filters},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return s, log
}

func serve(s *server.Server, method, path, ctype, body string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

func events(t *testing.T, log *syncBuffer) []audit.Event {
	t.Helper()
	var out []audit.Event
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if line == "" {
			continue
		}
		var ev audit.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		out = append(out, ev)
	}
	return out
}

// Bodies are recorded as JSON at Request level and above (YAML
// converted, protobuf left out), within MaxBodyBytes; the response's at
// RequestResponse level, without managedFields when the policy says so.
func TestFilterBodies(t *testing.T) {
	const cms = "/api/v1/namespaces/default/configmaps"
	const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`
	tests := []struct {
		name, policy      string
		maxBody           int
		ctype, body       string
		wantReq, wantResp string // "" for none
	}{
		{"Metadata: no bodies", "rules: [{level: Metadata}]", 0, "application/json", cm, "", ""},
		{"Request: the request's", "rules: [{level: Request}]", 0, "application/json", cm, cm, ""},
		{"compact JSON", "rules: [{level: Request}]", 0, "application/json", "{\n  \"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}}", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, ""},
		{"YAML as JSON", "rules: [{level: Request}]", 0, "application/yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, ""},
		{"over MaxBodyBytes", "rules: [{level: Request}]", 10, "application/json", cm, "", ""},
		{"RequestResponse: both", "rules: [{level: RequestResponse}]", 0, "application/json", cm, cm, `"managedFields"`},
		{"omitManagedFields", "omitManagedFields: true\nrules: [{level: RequestResponse}]", 0, "application/json", cm, cm, `"data":{"k":"v"}`},
	}
	for _, tc := range tests {
		s, log := newAudited(t, tc.policy, tc.maxBody)
		if w := serve(s, "POST", cms, tc.ctype, tc.body); w.Code != 201 {
			t.Fatalf("%s: %d %s", tc.name, w.Code, w.Body)
		}
		evs := events(t, log)
		if len(evs) != 2 {
			t.Fatalf("%s: %d events", tc.name, len(evs))
		}
		ev := evs[1]
		if string(ev.RequestObject) != tc.wantReq {
			t.Errorf("%s: requestObject %s, want %s", tc.name, ev.RequestObject, tc.wantReq)
		}
		switch resp := string(ev.ResponseObject); {
		case tc.wantResp == "" && resp != "":
			t.Errorf("%s: responseObject %s, want none", tc.name, resp)
		case tc.wantResp != "" && !strings.Contains(resp, tc.wantResp):
			t.Errorf("%s: responseObject %s, want it with %s", tc.name, resp, tc.wantResp)
		case strings.Contains(tc.policy, "omitManagedFields") && strings.Contains(resp, "managedFields"):
			t.Errorf("%s: responseObject %s has managedFields", tc.name, resp)
		}
		// The request object names the object, at every level, when it
		// was within MaxBodyBytes.
		if want := map[bool]string{true: "a", false: ""}[tc.maxBody == 0]; ev.ObjectRef == nil || ev.ObjectRef.Name != want {
			t.Errorf("%s: objectRef %+v, want the name a", tc.name, ev.ObjectRef)
		}
	}
}

// A handler that panics is recorded at the Panic stage, and the panic
// goes on up; a handler that writes nothing is recorded as kube-apiserver
// records it.
func TestFilterPanicAndNoAnswer(t *testing.T) {
	boom := func(http.Handler) http.Handler {
		return http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	}
	s, log := newAudited(t, "rules: [{level: Metadata}]", 0, boom)
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want boom", p)
			}
		}()
		serve(s, "GET", "/api/v1/namespaces/default/configmaps/a", "", "")
	}()
	evs := events(t, log)
	if len(evs) != 2 || evs[1].Stage != audit.StagePanic || evs[1].ResponseStatus == nil ||
		evs[1].ResponseStatus.Message != "APIServer panic'd: boom" || evs[1].ResponseStatus.Code != 500 ||
		evs[1].ResponseStatus.Reason != "InternalError" {
		t.Errorf("panic events: %+v", evs)
	}

	silent := func(http.Handler) http.Handler {
		return http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	}
	s, log = newAudited(t, "rules: [{level: Metadata}]", 0, silent)
	serve(s, "GET", "/api/v1/namespaces/default/configmaps?watch=1", "", "")
	evs = events(t, log)
	var stages []string
	for _, ev := range evs {
		stages = append(stages, string(ev.Stage))
		if ev.Stage != audit.StageRequestReceived && (ev.ResponseStatus == nil || ev.ResponseStatus.Message != "Connection closed early") {
			t.Errorf("%s: status %+v", ev.Stage, ev.ResponseStatus)
		}
	}
	if got := strings.Join(stages, ","); got != "RequestReceived,ResponseStarted,ResponseComplete" {
		t.Errorf("a watch that answers nothing: stages %s", got)
	}
}

// Level None records nothing; every answer has an Audit-Id, the client's
// if it sent one.
func TestFilterNoneAndAuditID(t *testing.T) {
	s, log := newAudited(t, "rules: [{level: None, verbs: [list]}, {level: Metadata}]", 0)
	w := serve(s, "GET", "/api/v1/namespaces/default/configmaps", "", "")
	if w.Code != 200 || w.Header().Get("Audit-Id") != "id" || log.String() != "" {
		t.Errorf("level None: %d, Audit-Id %q, log %q", w.Code, w.Header().Get("Audit-Id"), log)
	}
	w = serve(s, "GET", "/version", "", "", "Audit-ID", "from-the-aggregator")
	evs := events(t, log)
	if w.Header().Get("Audit-Id") != "from-the-aggregator" || len(evs) != 2 || evs[0].AuditID != "from-the-aggregator" {
		t.Errorf("the client's Audit-ID: header %q, events %+v", w.Header().Get("Audit-Id"), evs)
	}
}

// Source IPs and user agents as kube-apiserver records them.
func TestFilterSourceIPsAndUserAgent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		want   string
	}{
		{"the peer", nil, "192.0.2.1"},
		{"forwarded", []string{"X-Forwarded-For", "10.0.0.1, bad, 10.0.0.2"}, "10.0.0.1,10.0.0.2,192.0.2.1"},
		{"the peer is not repeated", []string{"X-Forwarded-For", "10.0.0.1, 192.0.2.1"}, "10.0.0.1,192.0.2.1"},
		{"real IP", []string{"X-Real-Ip", "10.0.0.3"}, "10.0.0.3,192.0.2.1"},
		{"real IP already forwarded", []string{"X-Forwarded-For", "10.0.0.3", "X-Real-Ip", "10.0.0.3"}, "10.0.0.3,192.0.2.1"},
		{"IPv6 and a mapped IPv4", []string{"X-Forwarded-For", "::1, ::ffff:10.0.0.4"}, "::1,10.0.0.4,192.0.2.1"},
	} {
		s, log := newAudited(t, "rules: [{level: Metadata}]", 0)
		serve(s, "GET", "/version", "", "", tc.header...)
		evs := events(t, log)
		if got := strings.Join(evs[0].SourceIPs, ","); got != tc.want {
			t.Errorf("%s: sourceIPs %s, want %s", tc.name, got, tc.want)
		}
	}
	s, log := newAudited(t, "rules: [{level: Metadata}]", 0)
	serve(s, "GET", "/version", "", "", "User-Agent", strings.Repeat("x", 1100))
	if ua := events(t, log)[0].UserAgent; ua != strings.Repeat("x", 1024)+"...TRUNCATED" {
		t.Errorf("a long User-Agent: %d bytes, ends %q", len(ua), ua[len(ua)-20:])
	}
}

// Only the first value of an annotation counts, as in kube-apiserver.
func TestFilterAnnotationFirstWins(t *testing.T) {
	again := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := findRecorder(w)
			rec.AuditAnnotation(server.AnnotationDecision, "changed")
			rec.AuditAnnotation("example.com/mine", "x")
			next.ServeHTTP(w, r)
		})
	}
	s, log := newAudited(t, "rules: [{level: Metadata}]", 0, again)
	serve(s, "GET", "/version", "", "")
	ann := events(t, log)[1].Annotations
	if ann[server.AnnotationDecision] != "allow" || ann["example.com/mine"] != "x" {
		t.Errorf("annotations %v", ann)
	}
}

func findRecorder(w http.ResponseWriter) server.AuditRecorder {
	for {
		if r, ok := w.(server.AuditRecorder); ok {
			return r
		}
		w = w.(interface{ Unwrap() http.ResponseWriter }).Unwrap()
	}
}

// The backend gets complete lines, one per event, concurrently.
func TestLogBackendLines(t *testing.T) {
	var buf bytes.Buffer
	b := audit.NewLogBackend(&buf)
	ev := &audit.Event{Kind: "Event", APIVersion: audit.APIVersion, Level: audit.LevelMetadata, AuditID: "x",
		Stage: audit.StageResponseComplete, RequestURI: "/a?b=1&c=<d>", Verb: "get"}
	if err := b.ProcessEvent(ev); err != nil {
		t.Fatal(err)
	}
	const want = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"x","stage":"ResponseComplete","requestURI":"/a?b=1\u0026c=\u003cd\u003e","verb":"get","user":{},"requestReceivedTimestamp":null,"stageTimestamp":null}` + "\n"
	if buf.String() != want {
		t.Errorf("line\n%s\nwant\n%s", buf.String(), want)
	}
}

// Events from concurrent requests come out as whole lines.
func TestLogBackendConcurrent(t *testing.T) {
	s, log := newAudited(t, "rules: [{level: Metadata}]", 0)
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 20 {
				serve(s, "GET", "/api/v1/namespaces/default/configmaps", "", "")
			}
		}()
	}
	for range 8 {
		<-done
	}
	if evs := events(t, log); len(evs) != 8*20*2 {
		t.Errorf("%d events, want %d", len(evs), 8*20*2)
	}
}
