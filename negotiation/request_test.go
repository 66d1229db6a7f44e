package negotiation

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/apisem/apisem/status"
	"github.com/google/go-cmp/cmp"
)

const unsupportedAll = "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"

func TestBodyMediaType(t *testing.T) {
	tests := []struct {
		ep   Endpoint
		ct   string
		want MediaType
		err  string
	}{
		{ct: "", want: JSON},
		{ct: "application/json", want: JSON},
		{ct: "application/json; charset=utf-8", want: JSON},
		{ct: "Application/JSON", want: JSON},
		{ct: "application/yaml", want: YAML},
		{ct: "application/vnd.kubernetes.protobuf", want: Protobuf},
		{ct: "text/plain", err: unsupportedAll},
		{ct: "application/json-patch+json", err: unsupportedAll},
		{ct: "application/x-yaml", err: unsupportedAll},
		{ct: "application/json;", want: JSON},
		{ct: "application/json; charset", err: unsupportedAll}, // mime.ParseMediaType refuses it
		{ct: "json", err: unsupportedAll},
		// kube-apiserver 1.37 names protobuf in a custom resource's 415 too.
		{ep: jsonListEP, ct: "application/vnd.kubernetes.protobuf", err: unsupportedAll},
		{ep: Endpoint{MediaTypes: Protobuf}, ct: "", want: Protobuf},
		{ep: Endpoint{MediaTypes: Protobuf}, ct: "application/json", err: unsupportedAll},
	}
	for _, tt := range tests {
		got, err := tt.ep.BodyMediaType(tt.ct)
		if tt.err != "" {
			if !status.IsUnsupportedMediaType(err) || err.Error() != tt.err || status.CodeForError(err) != 415 {
				t.Errorf("BodyMediaType(%q) = %v, %v; want 415 %q", tt.ct, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("BodyMediaType(%q) = %v, %v; want %v", tt.ct, got, err, tt.want)
		}
	}
}

// parsedBodyMediaType is BodyMediaType of an Endpoint{} by
// mime.ParseMediaType alone, the naive reference of its fast path for
// bare media types (FuzzRequestParsers); 0 for a 415.
func parsedBodyMediaType(contentType string) MediaType {
	if contentType == "" {
		return JSON
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return 0
	}
	switch mt {
	case ContentTypeJSON:
		return JSON
	case ContentTypeYAML:
		return YAML
	case ContentTypeProtobuf:
		return Protobuf
	}
	return 0
}

// BenchmarkBodyMediaType reads the Content-Type of a body: as clients send
// it (bare), and with a parameter, which takes the parse.
func BenchmarkBodyMediaType(b *testing.B) {
	for _, ct := range []string{"application/json", "application/json; charset=utf-8"} {
		b.Run(ct, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (Endpoint{}).BodyMediaType(ct); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadBody reads a create's body of 300 bytes with its
// Content-Length, as net/http hands it over.
func BenchmarkReadBody(b *testing.B) {
	body := strings.Repeat("x", 300)
	var rd strings.Reader
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Content-Type", "application/json")
	r.ContentLength = int64(len(body))
	r.Body = io.NopCloser(&rd)
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		if _, _, err := (Endpoint{}).ReadBody(r); err != nil {
			b.Fatal(err)
		}
	}
}

// countingReader counts the bytes read from it, and notes its Close.
type countingReader struct {
	r      io.Reader
	n      int
	closed bool
}

func (c *countingReader) Close() error {
	c.closed = true
	return nil
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

type errReader struct{}

var errRead = errors.New("connection reset by peer")

func (errReader) Read([]byte) (int, error) { return 0, errRead }

func TestReadBody(t *testing.T) {
	const limit3MiB = "Request entity too large: limit is 3145728"
	tests := []struct {
		name      string
		ep        Endpoint
		size      int
		chunked   bool // unknown Content-Length
		ct        string
		wantErr   string
		maxRead   int // upper bound on bytes read, if > 0
		wantMedia MediaType
	}{
		{name: "small", size: 100, wantMedia: JSON},
		{name: "at the limit", size: DefaultMaxBodyBytes, wantMedia: JSON},
		{name: "at the limit, chunked", size: DefaultMaxBodyBytes, chunked: true, wantMedia: JSON},
		{name: "over the limit", size: DefaultMaxBodyBytes + 1, wantErr: limit3MiB, maxRead: -1},
		{name: "over the limit, chunked", size: 10 << 20, chunked: true, wantErr: limit3MiB, maxRead: DefaultMaxBodyBytes + 1},
		{name: "custom limit", ep: Endpoint{MaxBodyBytes: 10}, size: 11, chunked: true, wantErr: "Request entity too large: limit is 10", maxRead: 11},
		{name: "no limit", ep: Endpoint{MaxBodyBytes: -1}, size: 5 << 20, chunked: true, wantMedia: JSON},
		{name: "yaml", size: 10, ct: "application/yaml", wantMedia: YAML},
		{name: "bad content type is not read", size: 10, ct: "text/plain", wantErr: unsupportedAll, maxRead: -1},
		{name: "empty", size: 0, wantMedia: JSON},
	}
	for _, tt := range tests {
		body := strings.Repeat("x", tt.size)
		cr := &countingReader{r: strings.NewReader(body)}
		r := httptest.NewRequest("POST", "/api/v1/namespaces/default/configmaps", nil)
		r.Body = cr
		r.ContentLength = int64(tt.size)
		if tt.chunked {
			r.ContentLength = -1
		}
		if tt.ct != "" {
			r.Header.Set("Content-Type", tt.ct)
		}
		got, media, err := tt.ep.ReadBody(r)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: ReadBody = %v; want %q", tt.name, err, tt.wantErr)
			}
			if tt.maxRead < 0 && cr.n > 0 || tt.maxRead > 0 && cr.n > tt.maxRead {
				t.Errorf("%s: read %d bytes; want at most %d", tt.name, cr.n, max(tt.maxRead, 0))
			}
			if cr.closed {
				t.Errorf("%s: the refused body was closed; the server closes it", tt.name)
			}
			continue
		}
		if err != nil || string(got) != body || media != tt.wantMedia {
			t.Errorf("%s: ReadBody = %d bytes, %v, %v; want %d bytes, %v", tt.name, len(got), media, err, tt.size, tt.wantMedia)
		}
		// Read whole, it is closed, so that net/http need not drain it.
		if !cr.closed {
			t.Errorf("%s: the body read whole was not closed", tt.name)
		}
	}

	r := httptest.NewRequest("POST", "/x", errReader{})
	r.ContentLength = -1
	_, _, err := Endpoint{}.ReadBody(r)
	if !status.IsBadRequest(err) || !errors.Is(err, errRead) {
		t.Errorf("ReadBody(failing reader) = %v; want 400 wrapping the read error", err)
	}

	w := httptest.NewRecorder()
	r = httptest.NewRequest("POST", "/x", strings.NewReader(strings.Repeat("x", 100)))
	r.ContentLength = -1
	r.Body = http.MaxBytesReader(w, r.Body, 50)
	_, _, err = Endpoint{}.ReadBody(r)
	if !status.IsRequestEntityTooLarge(err) || err.Error() != "Request entity too large: limit is 50" {
		t.Errorf("ReadBody(MaxBytesReader) = %v; want 413 limit 50", err)
	}

	r = httptest.NewRequest("POST", "/x", nil)
	if b, m, err := (Endpoint{}).ReadBody(r); err != nil || len(b) != 0 || m != JSON {
		t.Errorf("ReadBody(no body) = %q, %v, %v", b, m, err)
	}
	if st := status.FromError(status.NewRequestBodyTooLarge(DefaultMaxBodyBytes)); st.Code != 413 || st.Reason != status.ReasonRequestEntityTooLarge {
		t.Errorf("413 status = %+v", st)
	}
}

func TestParseOptions(t *testing.T) {
	fv := func(kind, v string) string {
		return kind + `.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "` + v + `": supported values: "", "Ignore", "Strict", "Warn"`
	}
	dr := func(kind, v string) string {
		return kind + `.meta.k8s.io "" is invalid: dryRun: Unsupported value: ` + v + `: supported values: "All"`
	}
	tests := []struct {
		query string
		kind  OptionsKind
		want  WriteOptions
		err   string
	}{
		{query: "", kind: CreateOptions, want: WriteOptions{}},
		{query: "fieldValidation=Strict", kind: CreateOptions, want: WriteOptions{FieldValidation: FieldValidationStrict}},
		{query: "fieldValidation=Ignore", kind: UpdateOptions, want: WriteOptions{FieldValidation: FieldValidationIgnore}},
		{query: "fieldValidation=Warn", kind: PatchOptions, want: WriteOptions{FieldValidation: FieldValidationWarn}},
		{query: "fieldValidation=", kind: CreateOptions, want: WriteOptions{}},
		{query: "fieldValidation=Strict&fieldValidation=bad", kind: CreateOptions, want: WriteOptions{FieldValidation: FieldValidationStrict}},
		{query: "dryRun=All", kind: CreateOptions, want: WriteOptions{DryRun: true}},
		{query: "dryRun=All&dryRun=All", kind: UpdateOptions, want: WriteOptions{DryRun: true}},
		{query: "dryRun=All&fieldValidation=Strict", kind: PatchOptions, want: WriteOptions{DryRun: true, FieldValidation: FieldValidationStrict}},
		{query: "dryRun=All&fieldValidation=strict", kind: DeleteOptions, want: WriteOptions{DryRun: true}}, // DeleteOptions has no fieldValidation
		{query: "fieldValidation=strict", kind: CreateOptions, err: fv("CreateOptions", "strict")},
		{query: "fieldValidation=strict", kind: UpdateOptions, err: fv("UpdateOptions", "strict")},
		{query: "fieldValidation=WARN", kind: PatchOptions, err: fv("PatchOptions", "WARN")},
		{query: "dryRun=foo", kind: CreateOptions, err: dr("CreateOptions", `["foo"]`)},
		{query: "dryRun=All&dryRun=foo", kind: DeleteOptions, err: dr("DeleteOptions", `["All","foo"]`)},
		{query: "dryRun=", kind: UpdateOptions, err: dr("UpdateOptions", `[""]`)},
		{query: "dryRun=all&fieldValidation=strict", kind: CreateOptions,
			err: `CreateOptions.meta.k8s.io "" is invalid: [dryRun: Unsupported value: ["all"]: supported values: "All", fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"]`},
	}
	for _, tt := range tests {
		q, err := url.ParseQuery(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseWriteOptions(q, tt.kind)
		if tt.err != "" {
			if !status.IsInvalid(err) || err.Error() != tt.err || status.CodeForError(err) != 422 {
				t.Errorf("ParseWriteOptions(%q, %s) = %v; want 422 %q", tt.query, tt.kind, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseWriteOptions(%q, %s) = %+v, %v; want %+v", tt.query, tt.kind, got, err, tt.want)
		}
	}

	// The single-parameter parsers give the same errors, with causes.
	_, err := ParseFieldValidation("strict", CreateOptions)
	var se *status.Error
	if !errors.As(err, &se) || err.Error() != fv("CreateOptions", "strict") ||
		se.Status.Details == nil || se.Status.Details.Kind != "CreateOptions" || se.Status.Details.Group != "meta.k8s.io" ||
		len(se.Status.Details.Causes) != 1 || se.Status.Details.Causes[0] != (status.Cause{Type: status.CauseTypeFieldValueNotSupported, Field: "fieldValidation",
		Message: `Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"`}) {
		t.Errorf("ParseFieldValidation(strict) = %v (%+v)", err, se)
	}
	if v, err := ParseFieldValidation("", CreateOptions); err != nil || v != FieldValidationWarn {
		t.Errorf("ParseFieldValidation(\"\") = %v, %v", v, err)
	}
	if _, err := ParseDryRun([]string{"foo"}, UpdateOptions); err == nil || err.Error() != dr("UpdateOptions", `["foo"]`) {
		t.Errorf("ParseDryRun(foo) = %v", err)
	}
	if d, err := ParseDryRun(nil, UpdateOptions); err != nil || d {
		t.Errorf("ParseDryRun(nil) = %v, %v", d, err)
	}
	if d, err := ParseDryRun([]string{"All"}, UpdateOptions); err != nil || !d {
		t.Errorf("ParseDryRun(All) = %v, %v", d, err)
	}
	for v, want := range map[FieldValidation]string{FieldValidationWarn: "Warn", FieldValidationIgnore: "Ignore", FieldValidationStrict: "Strict", 7: "FieldValidation(7)"} {
		if v.String() != want {
			t.Errorf("%d.String() = %q; want %q", v, v.String(), want)
		}
	}
}

// testDeployment is enough of a Deployment for field paths.
type testDeployment struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	Metadata   struct {
		Name   string            `json:"name,omitempty"`
		Labels map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Spec struct {
		Replicas *int32 `json:"replicas,omitempty"`
		Template struct {
			Spec struct {
				Containers []struct {
					Name  string `json:"name"`
					Image string `json:"image"`
				} `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

var deployOpts = DecodeOptions{Kind: "Deployment", Version: "v1"}

func TestDecode(t *testing.T) {
	const prefix = `Deployment in version "v1" cannot be handled as a Deployment: `
	tests := []struct {
		name     string
		media    MediaType
		body     string
		fv       FieldValidation
		err      string
		warnings []string
		name2    string // metadata.name after decoding
	}{
		{name: "clean", media: JSON, body: `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web"}}`, fv: FieldValidationStrict, name2: "web"},
		{name: "strict, the issue's example", media: JSON, fv: FieldValidationStrict,
			body: `{"spec":{"foo":1},"metadata":{"name":"a","name":"b"}}`,
			err:  prefix + `strict decoding error: unknown field "spec.foo", duplicate field "metadata.name"`},
		{name: "strict, deep path", media: JSON, fv: FieldValidationStrict,
			body: `{"spec":{"replica":3,"template":{"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","imagee":"y"}]}}}}`,
			err:  prefix + `strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[1].imagee"`},
		{name: "strict, case-sensitive names", media: JSON, fv: FieldValidationStrict,
			body: `{"Metadata":{"name":"a"}}`, err: prefix + `strict decoding error: unknown field "Metadata"`},
		{name: "strict, duplicate map key", media: JSON, fv: FieldValidationStrict,
			body: `{"metadata":{"labels":{"a":"1","a":"2"}}}`, err: prefix + `strict decoding error: duplicate field "metadata.labels.a"`},
		{name: "warn", media: JSON, fv: FieldValidationWarn,
			body:     `{"spec":{"foo":1},"metadata":{"name":"a","name":"b"}}`,
			warnings: []string{`unknown field "spec.foo"`, `duplicate field "metadata.name"`}, name2: "b"},
		{name: "ignore", media: JSON, fv: FieldValidationIgnore,
			body: `{"spec":{"foo":1},"metadata":{"name":"a","name":"b"}}`, name2: "b"},
		{name: "yaml strict", media: YAML, fv: FieldValidationStrict,
			body: "metadata:\n  name: a\n  name: b\nspec:\n  foo: 1\n",
			err:  prefix + "strict decoding error: yaml: unmarshal errors:\n  line 3: key \"name\" already set in map, unknown field \"spec.foo\""},
		{name: "yaml warn", media: YAML, fv: FieldValidationWarn,
			body:     "metadata:\n  name: a\n  name: b\n  labels:\n    x: \"1\"\n    x: \"2\"\nspec:\n  foo: 1\n",
			warnings: []string{`line 3: key "name" already set in map`, `line 6: key "x" already set in map`, `unknown field "spec.foo"`}, name2: "b"},
		{name: "yaml ignore", media: YAML, fv: FieldValidationIgnore, body: "metadata:\n  name: a\n  name: b\nspec:\n  foo: 1\n", name2: "b"},
		{name: "yaml clean", media: YAML, fv: FieldValidationStrict, body: "metadata:\n  name: web\n", name2: "web"},
		{name: "json syntax", media: JSON, body: `{"metadata":`,
			err: `the object provided is unrecognized (must be of type Deployment): couldn't get version/kind; json parse error: unexpected end of JSON input ({"metadata":)`},
		{name: "json syntax, long", media: JSON, body: `{"metadata":{"name":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"`,
			err: `the object provided is unrecognized (must be of type Deployment): couldn't get version/kind; json parse error: unexpected end of JSON input ({"metadata":{"name":"aaaaaaaaa ...)`},
		{name: "not JSON", media: JSON, body: `k8s`,
			err: `the object provided is unrecognized (must be of type Deployment): couldn't get version/kind; json parse error: invalid character 'k' looking for beginning of value (6b3873)`},
		{name: "empty", media: JSON, body: ``,
			err: `the object provided is unrecognized (must be of type Deployment): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)`},
		{name: "wrong type", media: JSON, fv: FieldValidationIgnore, body: `{"metadata":{"name":1}}`,
			err: prefix + `json: cannot unmarshal number into Go struct field .metadata.name of type string`},
		{name: "yaml syntax", media: YAML, body: "metadata: [\n",
			err: `the object provided is unrecognized (must be of type Deployment): yaml: line 1: did not find expected node content (6d657461646174613a205b0a)`},
	}
	for _, tt := range tests {
		var d testDeployment
		opts := deployOpts
		opts.FieldValidation = tt.fv
		warnings, err := Decode([]byte(tt.body), tt.media, &d, opts)
		if tt.err != "" {
			if !status.IsBadRequest(err) || err.Error() != tt.err {
				t.Errorf("%s: Decode = %v\nwant 400 %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(warnings, tt.warnings) || d.Metadata.Name != tt.name2 {
			t.Errorf("%s: Decode = %q, %v, name %q; want %q, name %q", tt.name, warnings, err, d.Metadata.Name, tt.warnings, tt.name2)
		}
	}
}

func TestDecodeDetails(t *testing.T) {
	var d testDeployment
	opts := deployOpts
	opts.FieldValidation = FieldValidationStrict
	_, err := Decode([]byte(`{"a":1,"b":2}`), JSON, &d, opts)
	var sde *StrictDecodingError
	if !errors.As(err, &sde) || len(sde.Errors) != 2 || sde.Errors[0].Error() != `unknown field "a"` {
		t.Errorf("Decode(strict) = %v; want a *StrictDecodingError with 2 errors", err)
	}
	// Into unstructured content: integers stay integers, duplicates are
	// still found.
	var m map[string]any
	w, err := Decode([]byte(`{"n":12345678901234567,"n":1,"f":1.5}`), JSON, &m, DecodeOptions{Kind: "Widget", Version: "v1"})
	if err != nil || !cmp.Equal(w, []string{`duplicate field "n"`}) || m["n"] != int64(1) || m["f"] != 1.5 {
		t.Errorf("Decode(map) = %v, %v, %#v", w, err, m)
	}
	if _, err := Decode([]byte("k8s\x00"), Protobuf, &m, opts); !errors.Is(err, ErrProtobufBody) {
		t.Errorf("Decode(protobuf) = %v; want ErrProtobufBody", err)
	}
	if _, err := Decode([]byte("{}"), MediaType(0), &m, opts); !status.IsUnsupportedMediaType(err) {
		t.Errorf("Decode(no media type) = %v; want 415", err)
	}
	// All unknown fields are found, up to sigs.k8s.io/json's 100.
	var b strings.Builder
	b.WriteString("{")
	for i := range 150 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"f` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString("}")
	w, err = Decode([]byte(b.String()), JSON, &d, deployOpts)
	if err != nil || len(w) != 100 || w[99] != `unknown field "f99"` {
		t.Errorf("Decode(150 unknown fields) = %d warnings, %v", len(w), err)
	}
}

func TestWriteWarnings(t *testing.T) {
	h := http.Header{}
	WriteWarnings(h, []string{`unknown field "spec.foo"`, `duplicate field "metadata.name"`, `unknown field "spec.foo"`, "", "back\\slash", "tab\there", "new\nline", "bad \xff utf8"})
	want := []string{
		`299 - "unknown field \"spec.foo\""`,
		`299 - "duplicate field \"metadata.name\""`,
		`299 - "back\\slash"`,
		"299 - \"tab\there\"",
		`299 - "new line"`,
	}
	if got := h.Values("Warning"); !cmp.Equal(got, want) {
		t.Errorf("Warning headers = %q; want %q", got, want)
	}

	// Over 4096 runes in total: each is cut to 256 runes and those that
	// still do not fit are left out.
	h = http.Header{}
	var texts []string
	for i := range 20 {
		texts = append(texts, strconv.Itoa(i%10)+strings.Repeat("é", 299)+strconv.Itoa(i)) // 300+ runes, distinct
	}
	WriteWarnings(h, texts)
	got := h.Values("Warning")
	if len(got) != MaxWarningRunes/TruncatedWarningRunes {
		t.Fatalf("%d Warning headers; want %d", len(got), MaxWarningRunes/TruncatedWarningRunes)
	}
	for i, v := range got {
		if want := `299 - "` + strconv.Itoa(i%10) + strings.Repeat("é", 255) + `"`; v != want {
			t.Errorf("warning %d = %q; want %q", i, v, want)
		}
	}

	// Exactly at the limit: nothing is truncated.
	h = http.Header{}
	WriteWarnings(h, []string{strings.Repeat("a", 4000), strings.Repeat("b", 96)})
	if got := h.Values("Warning"); len(got) != 2 || len(got[0]) != 4000+8 {
		t.Errorf("at the limit: %d headers", len(got))
	}

	// Many duplicates are found too.
	h = http.Header{}
	many := make([]string, 200)
	for i := range many {
		many[i] = "w" + strconv.Itoa(i%3)
	}
	WriteWarnings(h, many)
	if got := h.Values("Warning"); len(got) != 3 {
		t.Errorf("200 texts of 3 kinds: %d headers; want 3", len(got))
	}
}

// FuzzDecode checks that decoding never panics, that every failure is a
// 400, and that the three field-validation modes agree: Strict fails with a
// *StrictDecodingError exactly when Warn warns, and Ignore succeeds
// exactly when Warn does.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"spec":{"foo":1},"metadata":{"name":"a","name":"b"}}`), false)
	f.Add([]byte(`{"spec":{"template":{"spec":{"containers":[{"imagee":"x"}]}}}}`), false)
	f.Add([]byte(`{"metadata":{"labels":{"a":"1","a":"2"}}}`), false)
	f.Add([]byte("metadata:\n  name: a\n  name: b\nspec:\n  foo: 1\n"), true)
	f.Add([]byte("a: &x [1]\nb: *x\n"), true)
	f.Add([]byte(`{"metadata":`), false)
	f.Fuzz(func(t *testing.T, body []byte, isYAML bool) {
		if len(body) > 4096 {
			return // YAML's cost is not ours to fuzz; keep each input cheap
		}
		media := JSON
		if isYAML {
			media = YAML
		}
		run := func(fv FieldValidation) ([]string, error) {
			var d testDeployment
			opts := deployOpts
			opts.FieldValidation = fv
			w, err := Decode(body, media, &d, opts)
			if err != nil && (!status.IsBadRequest(err) || w != nil) {
				t.Fatalf("Decode(%q, %v) = %q, %v; want a 400 and no warnings", body, fv, w, err)
			}
			return w, err
		}
		warn, werr := run(FieldValidationWarn)
		_, serr := run(FieldValidationStrict)
		_, ierr := run(FieldValidationIgnore)
		var sde *StrictDecodingError
		if (werr == nil && len(warn) > 0) != errors.As(serr, &sde) {
			t.Fatalf("Decode(%q): warn %q, %v but strict %v", body, warn, werr, serr)
		}
		if (werr == nil) != (ierr == nil) {
			t.Fatalf("Decode(%q): warn error %v but ignore error %v", body, werr, ierr)
		}
		if warn != nil {
			WriteWarnings(http.Header{}, warn)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","labels":{"app":"web","tier":"front"}},"spec":{"replicas":3,"template":{"spec":{"containers":[`)
	for i := range 5 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"name":"c` + strconv.Itoa(i) + `","image":"registry.example/app:v1.2.3"}`)
	}
	sb.WriteString(`]}}}}`)
	clean := []byte(sb.String())
	unknown := []byte(strings.Replace(sb.String(), `"image"`, `"imagee"`, 2))
	for _, bb := range []struct {
		name string
		body []byte
		fv   FieldValidation
	}{
		{"ignore", clean, FieldValidationIgnore},
		{"strict", clean, FieldValidationStrict},
		{"warn/2-unknown", unknown, FieldValidationWarn},
	} {
		b.Run(bb.name, func(b *testing.B) {
			opts := deployOpts
			opts.FieldValidation = bb.fv
			b.SetBytes(int64(len(bb.body)))
			b.ReportAllocs()
			for b.Loop() {
				var d testDeployment
				if _, err := Decode(bb.body, JSON, &d, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
