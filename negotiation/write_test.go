package negotiation

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/status"
)

const notFoundJSON = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"foo\" not found","reason":"NotFound","details":{"name":"foo","kind":"pods"},"code":404}`

func TestWriteError(t *testing.T) {
	notFound := status.NewNotFound(status.GroupResource{Resource: "pods"}, "foo")
	tests := []struct {
		name    string
		ep      Endpoint
		accept  string
		agent   string
		err     error
		code    int
		ctype   string
		body    string
		headers map[string]string
	}{
		{name: "json", err: notFound, code: 404, ctype: "application/json", body: notFoundJSON + "\n"},
		{name: "wrapped", err: fmt.Errorf("get: %w", notFound), code: 404, ctype: "application/json", body: notFoundJSON + "\n"},
		{name: "kubectl table header", accept: kubectlAccept, err: notFound, code: 404, ctype: "application/json", body: notFoundJSON + "\n"},
		{name: "curl is pretty", agent: "curl/8.5.0", err: notFound, code: 404, ctype: "application/json", body: `{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "pods \"foo\" not found",
  "reason": "NotFound",
  "details": {
    "name": "foo",
    "kind": "pods"
  },
  "code": 404
}`},
		{name: "yaml", accept: "application/yaml", err: notFound, code: 404, ctype: "application/yaml", body: `apiVersion: v1
code: 404
details:
  kind: pods
  name: foo
kind: Status
message: pods "foo" not found
metadata: {}
reason: NotFound
status: Failure
`},
		{name: "foreign error", err: errors.New("disk on fire <&>"), code: 500, ctype: "application/json",
			body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"disk on fire \u003c\u0026\u003e","code":500}` + "\n"},
		{name: "retry after", err: status.NewTooLargeResourceVersion(10, 5, 1), code: 504, ctype: "application/json",
			body:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 10, current: 5","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}` + "\n",
			headers: map[string]string{"Retry-After": "1"}},
		{name: "no retry after", err: status.NewTimeout("slow", 0), code: 504, ctype: "application/json",
			body:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: slow","reason":"Timeout","details":{},"code":504}` + "\n",
			headers: map[string]string{"Retry-After": ""}},
		{name: "expired continue", err: status.NewExpired("too old").WithContinue("abc"), code: 410, ctype: "application/json",
			body: `{"kind":"Status","apiVersion":"v1","metadata":{"continue":"abc"},"status":"Failure","message":"too old","reason":"Expired","code":410}` + "\n"},
		// The 406 itself cannot be negotiated: raw indented JSON.
		{name: "406 raw", accept: "text/html", err: notAcceptable(Endpoint{}), code: 406, ctype: "application/json", body: `{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
  "reason": "NotAcceptable",
  "code": 406
}`},
		{name: "table only header", accept: "application/json;as=Table;g=meta.k8s.io;v=v1", err: status.NewBadRequest("no"), code: 400, ctype: "application/json", body: `{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "no",
  "reason": "BadRequest",
  "code": 400
}`},
		// A Status has a protobuf form whatever the type: kube-apiserver
		// 1.37 answers a custom resource's 406 in protobuf to a protobuf
		// client.
		{name: "protobuf on a JSON type", ep: Endpoint{MediaTypes: JSON}, accept: "application/vnd.kubernetes.protobuf",
			err: status.NewBadRequest("no"), code: 400, ctype: "application/vnd.kubernetes.protobuf",
			body: string(AppendStatusProtobuf(nil, &status.NewBadRequest("no").Status))},
		{name: "nothing acceptable", ep: Endpoint{MediaTypes: JSON}, accept: "text/html",
			err: status.NewBadRequest("no"), code: 400, ctype: "application/json", body: "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n  \"message\": \"no\",\n  \"reason\": \"BadRequest\",\n  \"code\": 400\n}"},
		{name: "watch endpoint errors are plain objects", ep: watchEP, accept: "application/yaml", err: status.NewBadRequest("no"), code: 400, ctype: "application/yaml",
			body: "apiVersion: v1\ncode: 400\nkind: Status\nmessage: \"no\"\nmetadata: {}\nreason: BadRequest\nstatus: Failure\n"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/api/v1/namespaces/default/pods/foo", nil)
		if tt.accept != "" {
			r.Header.Set("Accept", tt.accept)
		}
		if tt.agent != "" {
			r.Header.Set("User-Agent", tt.agent)
		}
		w := httptest.NewRecorder()
		tt.ep.WriteError(w, r, tt.err)
		if w.Code != tt.code || w.Header().Get("Content-Type") != tt.ctype || w.Body.String() != tt.body {
			t.Errorf("%s: WriteError = %d %q\n%s\nwant %d %q\n%s", tt.name, w.Code, w.Header().Get("Content-Type"), w.Body, tt.code, tt.ctype, tt.body)
		}
		for k, v := range tt.headers {
			if got := w.Header().Get(k); got != v {
				t.Errorf("%s: header %s = %q; want %q", tt.name, k, got, v)
			}
		}
	}
}

func TestWriteErrorProtobuf(t *testing.T) {
	r := httptest.NewRequest("GET", "/api/v1/pods", nil)
	r.Header.Set("Accept", clientGoProtobufAccept)
	w := httptest.NewRecorder()
	retry := status.NewGenerateNameConflict(status.GroupResource{Resource: "pods"}, "web-x7k2p", 1)
	listEP.WriteError(w, r, retry)
	if w.Code != 409 || w.Header().Get("Content-Type") != "application/vnd.kubernetes.protobuf" || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("WriteError(protobuf) = %d %q Retry-After %q", w.Code, w.Header().Get("Content-Type"), w.Header().Get("Retry-After"))
	}
	env, err := envelope.ConsumeEnvelope(w.Body.Bytes())
	if err != nil || env.APIVersion != "v1" || env.Kind != "Status" {
		t.Fatalf("ConsumeEnvelope(body) = %+v, %v; want v1 Status", env, err)
	}
	st, err := envelope.ConsumeStatus(env.Raw)
	if err != nil {
		t.Fatal(err)
	}
	want := protoStatus(&retry.Status)
	if st.Code != 409 || st.Reason != "AlreadyExists" || st.Message != retry.Status.Message || st.Status != "Failure" ||
		st.Details == nil || st.Details.RetryAfterSeconds != 1 || st.Details.Name != "web-x7k2p" || st.Details.Kind != "pods" {
		t.Errorf("decoded Status = %+v %+v; want %+v", st, st.Details, want)
	}
	// Byte for byte what the envelope encoders write.
	if exp := envelope.AppendEnvelope(nil, "v1", "Status", envelope.AppendStatus(nil, &want)); !bytes.Equal(w.Body.Bytes(), exp) {
		t.Errorf("body = %x; want %x", w.Body.Bytes(), exp)
	}
}

func TestResultEncode(t *testing.T) {
	obj := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{"k":"v"}}`)
	pb := envelope.AppendEnvelope(nil, "v1", "ConfigMap", []byte{0x0a, 0x00})
	tests := []struct {
		res  Result
		want string
		err  error
	}{
		{Result{MediaType: JSON}, string(obj) + "\n", nil},
		{Result{MediaType: JSON, Pretty: true}, "{\n  \"kind\": \"ConfigMap\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {\n    \"name\": \"a\"\n  },\n  \"data\": {\n    \"k\": \"v\"\n  }\n}", nil},
		{Result{MediaType: YAML}, "apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: a\n", nil},
		{Result{MediaType: Protobuf}, string(pb), nil},
	}
	for _, tt := range tests {
		in := append(make([]byte, 0, len(obj)+10), obj...)
		got, err := tt.res.Encode(in, pb)
		if err != nil || string(got) != tt.want {
			t.Errorf("%+v.Encode = %q, %v; want %q", tt.res, got, err, tt.want)
		}
		// The cached input is never written to, even with spare capacity.
		if string(in[:cap(in)][len(obj):len(obj)+1]) == "\n" {
			t.Errorf("%+v.Encode wrote into its input's spare capacity", tt.res)
		}
	}
	withNL := append(obj[:len(obj):len(obj)], '\n')
	if got, _ := (Result{MediaType: JSON}).Encode(withNL, nil); !bytes.Equal(got, withNL) {
		t.Errorf("Encode(JSON with newline) = %q", got)
	}
	if _, err := (Result{MediaType: Protobuf}).Encode(obj, nil); !errors.Is(err, ErrNoProtobuf) {
		t.Errorf("Encode(protobuf, nil) = %v; want ErrNoProtobuf", err)
	}
	if _, err := (Result{MediaType: JSON, Pretty: true}).Encode([]byte("{"), nil); err == nil {
		t.Errorf("Encode(pretty, bad JSON) = nil error")
	}
}

func TestWriteResponseGzip(t *testing.T) {
	big := []byte(`{"items":[` + strings.Repeat(`{"a":"b"},`, GzipThreshold/10) + `{}]}` + "\n")
	small := []byte("{}\n")
	exactly := bytes.Repeat([]byte{' '}, GzipThreshold)
	tests := []struct {
		name     string
		body     []byte
		encoding []string
		gzipped  bool
	}{
		{"big, gzip", big, []string{"gzip"}, true},
		{"big, go client", big, []string{"gzip, deflate, br"}, true},
		{"big, two lines", big, []string{"br", "x-gzip"}, true},
		{"big, gzip q=0.5", big, []string{"deflate, gzip;q=0.5"}, true},
		{"big, gzip q=0", big, []string{"gzip;q=0"}, false},
		{"big, identity", big, []string{"identity"}, false},
		{"big, none", big, nil, false},
		{"small, gzip", small, []string{"gzip"}, false},
		{"at threshold", exactly, []string{"gzip"}, false},
		{"just above", append(exactly, ' '), []string{"gzip"}, true},
	}
	// WriteResponseParts answers as WriteResponse of the parts joined:
	// the threshold is the whole body's.
	for _, parts := range []bool{false, true} {
		for _, tt := range tests {
			r := httptest.NewRequest("GET", "/api/v1/pods", nil)
			for _, e := range tt.encoding {
				r.Header.Add("Accept-Encoding", e)
			}
			w := httptest.NewRecorder()
			var err error
			if parts {
				tt.name += ", in parts"
				third := len(tt.body) / 3
				err = WriteResponseParts(w, r, Result{MediaType: JSON}, 200, tt.body[:third], nil, tt.body[third:2*third], tt.body[2*third:])
			} else {
				err = WriteResponse(w, r, Result{MediaType: JSON}, 200, tt.body)
			}
			if err != nil {
				t.Fatal(err)
			}
			got := w.Body.Bytes()
			if tt.gzipped {
				if w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Vary") != "Accept-Encoding" {
					t.Errorf("%s: headers %v; want gzip", tt.name, w.Header())
				}
				zr, err := gzip.NewReader(w.Body)
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				if got, err = io.ReadAll(zr); err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
			} else if w.Header().Get("Content-Encoding") != "" || w.Header().Get("Content-Length") != fmt.Sprint(len(tt.body)) {
				t.Errorf("%s: headers %v; want plain with Content-Length", tt.name, w.Header())
			}
			if !bytes.Equal(got, tt.body) || w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
				t.Errorf("%s: %d %q, body of %d bytes; want 200, the body", tt.name, w.Code, w.Header().Get("Content-Type"), len(got))
			}
			if w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: headers %v; want X-Content-Type-Options: nosniff", tt.name, w.Header())
			}
		}
	}
}
