package negotiation

import (
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/apisem/apisem/status"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// BodyMediaType returns the media type of a request body from its
// Content-Type header: parameters are ignored, case does not matter, and
// an empty header means JSON. A media type e does not serve is Kubernetes'
// 415:
//
//	the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf
func (e Endpoint) BodyMediaType(contentType string) (MediaType, error) {
	served := e.mediaTypes()
	if contentType == "" {
		for _, m := range []MediaType{JSON, YAML, Protobuf} {
			if served&m != 0 {
				return m, nil
			}
		}
	}
	// A bare media type, as clients send it, is its own parse; only
	// another spelling (parameters, case, spaces) is parsed, which costs
	// mime.ParseMediaType's map of parameters (BenchmarkBodyMediaType).
	mt := contentType
	if mt != ContentTypeJSON && mt != ContentTypeYAML && mt != ContentTypeProtobuf {
		var err error
		if mt, _, err = mime.ParseMediaType(contentType); err != nil {
			mt = ""
		}
	}
	var m MediaType
	switch mt {
	case ContentTypeJSON:
		m = JSON
	case ContentTypeYAML:
		m = YAML
	case ContentTypeProtobuf:
		m = Protobuf
	}
	if m&served != 0 {
		return m, nil
	}
	// Kubernetes names its serializers' media types, whatever the
	// endpoint serves (protobuf for custom resources too).
	return 0, status.NewUnsupportedBodyMediaType(ContentTypeJSON, ContentTypeYAML, ContentTypeProtobuf)
}

func (e Endpoint) maxBodyBytes() int64 {
	if e.MaxBodyBytes == 0 {
		return DefaultMaxBodyBytes
	}
	return e.MaxBodyBytes
}

// ReadBody checks the Content-Type of r's body (BodyMediaType) and reads
// the body, at most e's limit: a larger body is Kubernetes' 413
//
//	Request entity too large: limit is 3145728
//
// returned without reading past the limit (at once when Content-Length
// announces it). A failure to read the body is a 400 wrapping the read
// error. The Content-Type is checked first so a body of the wrong type is
// never read. A body read whole is closed (see ReadBodyBytes).
func (e Endpoint) ReadBody(r *http.Request) ([]byte, MediaType, error) {
	m, err := e.BodyMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, 0, err
	}
	b, err := ReadBodyBytes(r, e.maxBodyBytes())
	if err != nil {
		return nil, 0, err
	}
	return b, m, nil
}

// ReadBodyBytes reads r's body of at most limit bytes (a negative limit
// means none), with ReadBody's rules but no Content-Type check: for
// bodies whose type the caller checks itself, such as patches. A body read
// whole is closed; one refused is left to the server, which closes it.
func ReadBodyBytes(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return []byte{}, nil
	}
	if limit >= 0 && r.ContentLength > limit {
		return nil, status.NewRequestBodyTooLarge(limit)
	}
	size := int64(512)
	if r.ContentLength > 0 {
		// Size the buffer from the announced length, but not beyond
		// maxBodyPrealloc: a client announcing megabytes and sending
		// bytes must not make the server reserve megabytes.
		size = min(r.ContentLength+1, maxBodyPrealloc)
	}
	max := int64(-1)
	if limit >= 0 {
		// One byte more than the limit tells a body at the limit from a
		// larger one.
		max = limit + 1
	}
	b, err := readAll(r.Body, int(size), max)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, status.NewRequestBodyTooLarge(mbe.Limit)
		}
		return nil, status.NewBadRequest("unable to read the request body: " + err.Error()).Wrap(err)
	}
	if limit >= 0 && int64(len(b)) > limit {
		return nil, status.NewRequestBodyTooLarge(limit)
	}
	// Read to its end, the body is closed: net/http would otherwise
	// drain it before the response (io.CopyN of what is left, which is
	// nothing: an io.LimitReader and a read per request).
	_ = r.Body.Close()
	return b, nil
}

// maxBodyPrealloc is the most ReadBody reserves before the bytes arrive.
const maxBodyPrealloc = 64 << 10

// readAll is io.ReadAll starting from a buffer of capacity size, reading
// at most max bytes (a negative max means no limit): io.LimitReader's
// work without its allocation.
func readAll(r io.Reader, size int, max int64) ([]byte, error) {
	b := make([]byte, 0, size)
	for {
		p := b[len(b):cap(b)]
		if max >= 0 {
			left := max - int64(len(b))
			if left <= 0 {
				return b, nil
			}
			if left < int64(len(p)) {
				p = p[:left]
			}
		}
		n, err := r.Read(p)
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// FieldValidation is the fieldValidation query parameter of create, update
// and patch: what to do with unknown and duplicate fields in a body.
type FieldValidation uint8

const (
	// FieldValidationWarn (the default) decodes and sends one Warning
	// header per unknown or duplicate field.
	FieldValidationWarn FieldValidation = iota
	// FieldValidationIgnore decodes silently: unknown fields are
	// dropped, and of duplicate fields the last wins.
	FieldValidationIgnore
	// FieldValidationStrict fails the request with a 400 listing every
	// unknown and duplicate field.
	FieldValidationStrict
)

func (v FieldValidation) String() string {
	switch v {
	case FieldValidationWarn:
		return "Warn"
	case FieldValidationIgnore:
		return "Ignore"
	case FieldValidationStrict:
		return "Strict"
	}
	return "FieldValidation(" + strconv.Itoa(int(v)) + ")"
}

// OptionsKind names the options of a verb in 422 messages, e.g.
// `CreateOptions.meta.k8s.io "" is invalid: ...`.
type OptionsKind string

// The options kinds of the write verbs.
const (
	CreateOptions OptionsKind = "CreateOptions"
	UpdateOptions OptionsKind = "UpdateOptions"
	PatchOptions  OptionsKind = "PatchOptions"
	DeleteOptions OptionsKind = "DeleteOptions"
)

// WriteOptions are the query parameters every write verb shares.
type WriteOptions struct {
	// DryRun is set by dryRun=All: validate, but do not persist.
	DryRun          bool
	FieldValidation FieldValidation
}

// ParseWriteOptions reads dryRun and (except for DeleteOptions, which has
// none) fieldValidation from a request's query, and reports every bad
// value in one 422 Invalid for kind, as Kubernetes validates its options:
//
//	CreateOptions.meta.k8s.io "" is invalid: [dryRun: Unsupported value: ["foo"]: supported values: "All", fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"]
func ParseWriteOptions(query url.Values, kind OptionsKind) (WriteOptions, error) {
	var opts WriteOptions
	var errs []status.FieldError
	var ok bool
	if opts.DryRun, ok = dryRun(query["dryRun"]); !ok {
		errs = append(errs, dryRunError(query["dryRun"]))
	}
	if kind != DeleteOptions {
		// Kubernetes decodes a string option from its first value.
		v := query.Get("fieldValidation")
		if opts.FieldValidation, ok = fieldValidation(v); !ok {
			errs = append(errs, fieldValidationError(v))
		}
	}
	if errs != nil {
		return WriteOptions{}, optionsInvalid(kind, errs...)
	}
	return opts, nil
}

// ParseDryRun parses the values of the dryRun query parameter: none, or
// every one "All". Anything else is the 422 of kind:
//
//	CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["foo"]: supported values: "All"
func ParseDryRun(values []string, kind OptionsKind) (bool, error) {
	d, ok := dryRun(values)
	if !ok {
		return false, optionsInvalid(kind, dryRunError(values))
	}
	return d, nil
}

// ParseFieldValidation parses the fieldValidation query parameter:
// "Ignore", "Warn", "Strict" (case-sensitive), or "" for Warn. Anything
// else is the 422 of kind:
//
//	CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"
func ParseFieldValidation(value string, kind OptionsKind) (FieldValidation, error) {
	v, ok := fieldValidation(value)
	if !ok {
		return 0, optionsInvalid(kind, fieldValidationError(value))
	}
	return v, nil
}

func dryRun(values []string) (bool, bool) {
	for _, v := range values {
		if v != "All" {
			return false, false
		}
	}
	return len(values) > 0, true
}

func dryRunError(values []string) status.FieldError {
	return status.NotSupported("dryRun", values, "All")
}

func fieldValidation(value string) (FieldValidation, bool) {
	switch value {
	case "", "Warn":
		return FieldValidationWarn, true
	case "Ignore":
		return FieldValidationIgnore, true
	case "Strict":
		return FieldValidationStrict, true
	}
	return 0, false
}

func fieldValidationError(value string) status.FieldError {
	return status.NotSupported("fieldValidation", value, "", "Ignore", "Strict", "Warn")
}

func optionsInvalid(kind OptionsKind, errs ...status.FieldError) *status.Error {
	return status.NewInvalid(status.GroupKind{Group: "meta.k8s.io", Kind: string(kind)}, "", errs...)
}

// DecodeOptions say how to decode a request body.
type DecodeOptions struct {
	// Kind and Version name the type decoded into, for error messages
	// (`ConfigMap in version "v1" cannot be handled as a ConfigMap: ...`).
	Kind, Version string
	// FieldValidation is what to do with unknown and duplicate fields;
	// the zero value is Warn.
	FieldValidation FieldValidation
	// Coerce, when set, is called with v once it is decoded, in every
	// mode, and with the problems strict decoding found (none in Ignore
	// mode); the problems it returns replace them. A custom resource's
	// schema prunes unknown fields here and reports them, as Kubernetes
	// does, as `unknown field "spec.foo"` errors.
	Coerce func(v any, strict []error) []error
}

// ErrProtobufBody reports a protobuf body given to Decode: protobuf is
// decoded by the caller's own code, without field validation, as in
// Kubernetes (its protobuf decoder is never strict).
var ErrProtobufBody = errors.New("negotiation: protobuf bodies are decoded by the caller")

// StrictDecodingError lists the unknown and duplicate fields of a body, in
// document order, each an error whose text is `unknown field "<path>"` or
// `duplicate field "<path>"` with a JSON path such as
// spec.template.spec.containers[0].imagee. For YAML bodies, duplicate keys
// come first, as one error listing their lines.
type StrictDecodingError struct {
	Errors []error
}

// Error returns "strict decoding error: " and the errors joined by ", ",
// Kubernetes' text.
func (e *StrictDecodingError) Error() string {
	var b strings.Builder
	b.WriteString("strict decoding error: ")
	for i, err := range e.Errors {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

// StrictUnmarshaler is implemented by a type that decodes its own JSON
// (a json.Unmarshaler) and can still report what strict decoding
// reports: sigs.k8s.io/json hands such a type the raw bytes, so its
// duplicate and unknown fields would go unnoticed. In the Strict and Warn
// modes Decode calls UnmarshalJSONStrict instead of UnmarshalJSON; strict
// holds the problems (errors whose text is like `unknown field
// "spec.foo"`), err a failure to decode at all.
type StrictUnmarshaler interface {
	UnmarshalJSONStrict(data []byte) (strict []error, err error)
}

// FastUnmarshaler is implemented by a type with a decoder of the JSON it
// commonly receives that is faster than the reflective one (for the
// plain shapes of its common creates, say). Called on the zero value,
// UnmarshalJSONFast either decodes data as sigs.k8s.io/json's strict
// decoder does, finding nothing strict to report, and returns true, or
// returns false and leaves the value as it was: Decode then decodes data
// as it decodes any type, and its result and errors are the ones given.
type FastUnmarshaler interface {
	UnmarshalJSONFast(data []byte) bool
}

// Decode decodes a JSON or YAML body into v (a pointer) as a Kubernetes
// API server decodes create and update bodies: field names are
// case-sensitive, integers in interface values stay int64, and unknown
// and duplicate fields are handled by opts.FieldValidation:
//
//   - Strict: a 400 BadRequest wrapping a *StrictDecodingError, e.g.
//     `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec.foo", duplicate field "metadata.name"`.
//   - Warn: v is decoded and the problems are returned as warnings, one
//     per unknown or duplicate field (for WriteWarnings).
//   - Ignore: v is decoded; unknown fields are dropped and of duplicate
//     fields the last wins.
//
// A body that is not valid JSON or YAML, or does not fit v, is a 400
// whose message quotes the decoder. All problems are found, up to the 100
// sigs.k8s.io/json reports. Protobuf bodies return ErrProtobufBody.
func Decode(body []byte, media MediaType, v any, opts DecodeOptions) (warnings []string, err error) {
	data := body
	var strictErrs []error
	switch media {
	case JSON:
	case YAML:
		if opts.FieldValidation == FieldValidationIgnore {
			data, err = yaml.YAMLToJSON(body)
		} else {
			// The strict conversion fails on duplicate keys, which
			// the plain one silently resolves: try the strict one
			// first and convert again only when it fails.
			var serr error
			if data, serr = yaml.YAMLToJSONStrict(body); serr != nil {
				if data, err = yaml.YAMLToJSON(body); err == nil {
					strictErrs = append(strictErrs, serr)
				}
			}
		}
		if err != nil {
			return nil, unrecognizedBody(opts.Kind, body, err)
		}
	case Protobuf:
		return nil, ErrProtobufBody
	default:
		return nil, status.NewUnsupportedBodyMediaType(ContentTypeJSON, ContentTypeYAML)
	}

	if fu, ok := v.(FastUnmarshaler); ok && fu.UnmarshalJSONFast(data) {
		// Decoded as below, with nothing strict to report.
	} else if opts.FieldValidation == FieldValidationIgnore {
		err = kjson.UnmarshalCaseSensitivePreserveInts(data, v)
	} else {
		var jsonErrs []error
		if su, ok := v.(StrictUnmarshaler); ok {
			jsonErrs, err = su.UnmarshalJSONStrict(data)
		} else {
			jsonErrs, err = kjson.UnmarshalStrict(data, v)
		}
		strictErrs = append(strictErrs, jsonErrs...)
	}
	if err != nil {
		if syntax, _ := kjson.SyntaxErrorOffset(err); syntax {
			// Kubernetes fails here reading kind and apiVersion, before
			// it knows the body's type.
			return nil, unrecognizedBody(opts.Kind, body, errors.New("couldn't get version/kind; json parse error: "+err.Error()))
		}
		return nil, cannotHandle(opts, err)
	}
	if opts.Coerce != nil {
		strictErrs = opts.Coerce(v, strictErrs)
	}
	if len(strictErrs) == 0 || opts.FieldValidation == FieldValidationIgnore {
		return nil, nil
	}
	if opts.FieldValidation == FieldValidationStrict {
		return nil, cannotHandle(opts, &StrictDecodingError{Errors: strictErrs})
	}
	for _, e := range strictErrs {
		warnings = append(warnings, strictWarnings(e)...)
	}
	return warnings, nil
}

// yamlErrorsPrefix starts the error sigs.k8s.io/yaml returns for duplicate
// keys, followed by one "\n  line N: ..." per key.
const yamlErrorsPrefix = "yaml: unmarshal errors:\n  "

// strictWarnings splits a strict error into warnings: Kubernetes warns
// once per line of a YAML duplicate-key error.
func strictWarnings(err error) []string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, yamlErrorsPrefix); ok {
		return strings.Split(rest, "\n  ")
	}
	return []string{msg}
}

func cannotHandle(opts DecodeOptions, err error) *status.Error {
	return status.NewBadRequest(opts.Kind + " in version " + strconv.Quote(opts.Version) +
		" cannot be handled as a " + opts.Kind + ": " + err.Error()).Wrap(err)
}

// unrecognizedBody is Kubernetes' 400 for a body it could not even read
// the type of, with a summary of the body's first 30 bytes.
func unrecognizedBody(kind string, body []byte, err error) *status.Error {
	return status.NewBadRequest("the object provided is unrecognized (must be of type " + kind + "): " +
		err.Error() + " (" + summarizeBody(body) + ")").Wrap(err)
}

func summarizeBody(b []byte) string {
	const max = 30
	switch {
	case len(b) == 0:
		return "<empty>"
	case b[0] == '{':
		if len(b) > max {
			return string(b[:max]) + " ..."
		}
		return string(b)
	case len(b) > max:
		return hex.EncodeToString(b[:max]) + " ..."
	}
	return hex.EncodeToString(b)
}
