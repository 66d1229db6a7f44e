package negotiation

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/status"
	"sigs.k8s.io/yaml"
)

// GzipThreshold is the body size above which a non-watch response is
// gzip-compressed for a client that accepts gzip: 128 KiB, as Kubernetes.
const GzipThreshold = 128 << 10

// ErrNoProtobuf reports that a protobuf response was negotiated but no
// protobuf form was supplied; the endpoint should not offer protobuf.
var ErrNoProtobuf = errors.New("negotiation: no protobuf form for a protobuf response")

// Encode returns the body of a response in res's representation, from the
// object's compact JSON and its protobuf envelope (which may be nil when
// the endpoint does not offer protobuf). JSON ends with a newline, as
// Kubernetes writes it; pretty JSON is indented by two spaces and has no
// trailing newline; YAML is converted from the JSON. The inputs are not
// modified, and for protobuf the envelope itself is returned.
//
// Encode does not apply conversions: for a Result with a Target, use a
// Converter.
func (res Result) Encode(jsonBody, protobufBody []byte) ([]byte, error) {
	if res.MediaType == Protobuf {
		if protobufBody == nil {
			return nil, ErrNoProtobuf
		}
		return protobufBody, nil
	}
	return res.fromJSON(jsonBody)
}

// fromJSON renders compact JSON in res's text media type.
func (res Result) fromJSON(b []byte) ([]byte, error) {
	switch {
	case res.MediaType == YAML:
		return yaml.JSONToYAML(b)
	case res.Pretty:
		var buf bytes.Buffer
		buf.Grow(len(b) + len(b)/2)
		if err := json.Indent(&buf, bytes.TrimRight(b, " \t\r\n"), "", "  "); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	case len(b) > 0 && b[len(b)-1] == '\n':
		return b, nil
	}
	// Copy: b may be a cached encoding shared with other responses.
	return append(b[:len(b):len(b)], '\n'), nil
}

// WriteResponse writes a successful response: code, body (already in
// res's representation, e.g. from Result.Encode) and its Content-Type.
// A body larger than GzipThreshold is gzip-compressed when the request's
// Accept-Encoding allows gzip. The error is the writer's.
func WriteResponse(w http.ResponseWriter, r *http.Request, res Result, code int, body []byte) error {
	return writeBody(w, r, code, res.ContentType(), body)
}

// WriteResponseParts is WriteResponse of the body that is the parts one
// after the other, written as they are: a body made of a cached encoding
// is not copied to be joined.
func WriteResponseParts(w http.ResponseWriter, r *http.Request, res Result, code int, parts ...[]byte) error {
	return writeBody(w, r, code, res.ContentType(), parts...)
}

func writeBody(w http.ResponseWriter, r *http.Request, code int, contentType string, body ...[]byte) error {
	n := 0
	for _, p := range body {
		n += len(p)
	}
	h := w.Header()
	if n > GzipThreshold && r != nil && acceptsGzip(r.Header["Accept-Encoding"]) {
		h.Set("Content-Type", contentType)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
		h.Del("Content-Length")
		w.WriteHeader(code)
		// Level 1, as Kubernetes: large lists compress well even at the
		// fastest level, and the CPU is the server's.
		zw := newGzipWriter(w)
		defer gzipWriters.Put(zw)
		for _, p := range body {
			if _, err := zw.Write(p); err != nil {
				return err
			}
		}
		return zw.Close()
	}
	// Header.Set's three values in one allocation: the keys are in
	// canonical form already.
	v := make([]string, 3)
	v[0], v[1], v[2] = contentType, "nosniff", strconv.Itoa(n)
	h["Content-Type"], h["X-Content-Type-Options"], h["Content-Length"] = v[0:1:1], v[1:2:2], v[2:3:3]
	w.WriteHeader(code)
	for _, p := range body {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// acceptsGzip reports whether Accept-Encoding header lines allow gzip: a
// "gzip" (or legacy "x-gzip") coding without q=0. Kubernetes looks for a
// bare "gzip" only; clients send exactly that.
func acceptsGzip(lines []string) bool {
	for _, line := range lines {
		for line != "" {
			var el string
			el, line, _ = strings.Cut(line, ",")
			coding, params, _ := strings.Cut(el, ";")
			coding = strings.Trim(coding, " \t")
			if !equalLower(coding, "gzip") && !equalLower(coding, "x-gzip") {
				continue
			}
			q := 1000
			for params != "" {
				var p string
				p, params, _ = strings.Cut(params, ";")
				name, value, _ := strings.Cut(strings.Trim(p, " \t"), "=")
				if equalLower(strings.Trim(name, " \t"), "q") {
					var ok bool
					if q, ok = parseQuality(strings.Trim(value, " \t")); !ok {
						q = 0
					}
				}
			}
			if q > 0 {
				return true
			}
		}
	}
	return false
}

// WriteError writes err as a Kubernetes Status: the Status of a *status.Error
// in err's chain, or a 500 with err's text for any other error. The body is
// in the media type the request negotiates among e's media types without
// conversions (a Status is never a Table), with the pretty rules; if that
// negotiation fails too, for instance for the 406 of an unacceptable
// Accept header, it is indented JSON without a trailing newline, as
// Kubernetes writes it. The HTTP code is the Status code, and Retry-After
// is set when the Status asks for a retry.
func (e Endpoint) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	st := status.FromError(err)
	code := int(st.Code)
	if code < 100 || code > 999 {
		code = http.StatusInternalServerError
	}
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	// A Status has every form, whatever the endpoint serves: kube-apiserver
	// answers a custom resource's errors in protobuf to a protobuf client.
	errEP := Endpoint{NoTable: true, NoPartialMetadata: true}
	res, nerr := errEP.Negotiate(r)
	if nerr != nil {
		body, _ := json.MarshalIndent(&st, "", "  ")
		_ = writeBody(w, nil, code, ContentTypeJSON, body)
		return
	}
	body, _ := encodeStatus(res, &st)
	_ = writeBody(w, nil, code, res.ContentType(), body)
}

// encodeStatus encodes st in res's media type. Only YAML conversion can
// fail, and not for the JSON encoding/json writes.
func encodeStatus(res Result, st *status.Status) ([]byte, error) {
	if res.MediaType == Protobuf {
		return AppendStatusProtobuf(nil, st), nil
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	if res.MediaType == JSON && !res.Pretty {
		return append(b, '\n'), nil
	}
	return res.fromJSON(b)
}

// AppendStatusProtobuf appends st in its protobuf envelope: apiVersion v1,
// kind Status, whatever the group of the endpoint.
func AppendStatusProtobuf(b []byte, st *status.Status) []byte {
	ps := protoStatus(st)
	return envelope.AppendEnvelopeFunc(b, "v1", "Status", envelope.SizeStatus(&ps), func(b []byte) []byte {
		return envelope.AppendStatus(b, &ps)
	})
}

func protoStatus(st *status.Status) envelope.Status {
	ps := envelope.Status{
		Metadata: st.Metadata,
		Status:   st.Status,
		Message:  st.Message,
		Reason:   string(st.Reason),
		Code:     st.Code,
	}
	if d := st.Details; d != nil {
		pd := &envelope.StatusDetails{
			Name: d.Name, Group: d.Group, Kind: d.Kind, UID: d.UID,
			RetryAfterSeconds: d.RetryAfterSeconds,
		}
		for _, c := range d.Causes {
			pd.Causes = append(pd.Causes, envelope.StatusCause{Type: string(c.Type), Message: c.Message, Field: c.Field})
		}
		ps.Details = pd
	}
	return ps
}
