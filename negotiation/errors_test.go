package negotiation

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/status"
)

// TestErrorBodies renders every error this package produces through
// WriteError and checks the whole Status body a client receives.
func TestErrorBodies(t *testing.T) {
	mustErr := func(_ any, err error) error {
		if err == nil {
			t.Fatal("expected an error")
		}
		return err
	}
	q := func(s string) url.Values {
		v, err := url.ParseQuery(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	var d testDeployment
	strictOpts := deployOpts
	strictOpts.FieldValidation = FieldValidationStrict
	bigBody := httptest.NewRequest("POST", "/x", strings.NewReader("{}"))
	bigBody.ContentLength = DefaultMaxBodyBytes + 1
	tests := []struct {
		name string
		err  error
		code int
		body string
	}{
		{"406", mustErr(listEP.NegotiateAccept("text/html")), 406,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"NotAcceptable","code":406}`},
		{"406 watch", mustErr(watchEP.NegotiateAccept("application/yaml")), 406,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch","reason":"NotAcceptable","code":406}`},
		{"415", mustErr(Endpoint{}.BodyMediaType("text/plain")), 415,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"UnsupportedMediaType","code":415}`},
		{"413", func() error { _, _, err := Endpoint{}.ReadBody(bigBody); return err }(), 413,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}`},
		{"422 fieldValidation", mustErr(ParseWriteOptions(q("fieldValidation=strict"), CreateOptions)), 422,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"CreateOptions","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"","field":"fieldValidation"}]},"code":422}`},
		{"422 dryRun", mustErr(ParseWriteOptions(q("dryRun=foo"), UpdateOptions)), 422,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"UpdateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"foo\"]: supported values: \"All\"","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"UpdateOptions","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: [\"foo\"]: supported values: \"All\"","field":"dryRun"}]},"code":422}`},
		{"400 strict", mustErr(Decode([]byte(`{"spec":{"foo":1},"metadata":{"name":"a","name":"b"}}`), JSON, &d, strictOpts)), 400,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.foo\", duplicate field \"metadata.name\"","reason":"BadRequest","code":400}`},
		{"400 includeObject", mustErr(ParseIncludeObject("foo")), 400,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unable to convert to Table as requested: includeObject: Invalid value: \"foo\": must be 'Metadata', 'Object', 'None', or empty","reason":"BadRequest","code":400}`},
		{"500 no flusher", mustErr(NewStreamWriter(&plainWriter{h: http.Header{}}, Result{MediaType: JSON})), 500,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: unable to start watch - can't get http.Flusher: negotiation: the ResponseWriter cannot flush","reason":"InternalError","details":{"causes":[{"message":"unable to start watch - can't get http.Flusher: negotiation: the ResponseWriter cannot flush"}]},"code":500}`},
		{"406 Table in protobuf", mustErr(testConverter.EncodeList(Result{MediaType: Protobuf, Target: TargetTable}, IncludeMetadata, meta.ListMeta{}, nil)), 406,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"object *v1.Table does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message","reason":"NotAcceptable","code":406}`},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("POST", "/api/v1/namespaces/default/configmaps", nil)
		r.Header.Set("Accept", clientGoJSONAccept)
		w := httptest.NewRecorder()
		Endpoint{}.WriteError(w, r, tt.err)
		if w.Code != tt.code || w.Body.String() != tt.body+"\n" {
			t.Errorf("%s: %d\n%s\nwant %d\n%s", tt.name, w.Code, w.Body, tt.code, tt.body)
		}
	}
}

// FuzzRequestParsers feeds one string to every other parser of request
// input: none may panic, and their errors are Status errors.
func FuzzRequestParsers(f *testing.F) {
	for _, s := range []string{"gzip", "gzip;q=0, br", "pretty=true&limit=5", "pr%65tty=1", "%zz=1",
		"application/json; charset=utf-8", "Object", "dryRun=All&fieldValidation=Strict",
		`{"metadata":{"name":"a","creationTimestamp":"2024-01-02T03:04:05Z"}}`, "k8s\x00\x0a\x02\x0a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		acceptsGzip([]string{s})
		got := queryValue(s, "pretty")
		if v, err := url.ParseQuery(s); err == nil && got != v.Get("pretty") {
			t.Fatalf("queryValue(%q) = %q; url.Values.Get = %q", s, got, v.Get("pretty"))
		}
		mt, err := (Endpoint{}).BodyMediaType(s)
		if err != nil && !status.IsUnsupportedMediaType(err) {
			t.Fatalf("BodyMediaType(%q) = %v", s, err)
		}
		if want := parsedBodyMediaType(s); mt != want {
			t.Fatalf("BodyMediaType(%q) = %v; mime.ParseMediaType reads %v", s, mt, want)
		}
		if _, err := ParseIncludeObject(s); err != nil && !status.IsBadRequest(err) {
			t.Fatalf("ParseIncludeObject(%q) = %v", s, err)
		}
		if v, err := url.ParseQuery(s); err == nil {
			if _, err := ParseWriteOptions(v, PatchOptions); err != nil && !status.IsInvalid(err) {
				t.Fatalf("ParseWriteOptions(%q) = %v", s, err)
			}
		}
		_, _ = MetaFromJSON([]byte(s))
		_, _ = MetaFromProtobuf([]byte(s))
		WriteWarnings(http.Header{}, []string{s, s + s})
	})
}
