package server

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/tracing"
)

// Tracing, as kube-apiserver's --tracing-config-file turns it on
// (k8s.io/apiserver/pkg/endpoints/filters/traces.go): with
// Options.Hooks.Tracer set, each request that passes authentication gets
// a Server span, named and labelled as kube-apiserver names and labels
// its own (see package tracing), and the storage calls the handler makes
// with the request's context are its children. Without a Tracer the
// filter is not in the chain at all.

// monitoringGroup is Kubernetes' system:monitoring, whose members, with
// system:masters, may choose the trace of their requests.
const monitoringGroup = "system:monitoring"

// withTracing is the tracing filter, just inside authentication as in
// Kubernetes' chain, so that it knows the user who sent the traceparent.
func (s *Server) withTracing(next http.Handler) http.Handler {
	tr := s.opts.Hooks.Tracer
	if tr == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := requestOf(r)
		ctx := r.Context()
		if tp := r.Header.Get("Traceparent"); tp != "" {
			if sc, err := tracing.ParseTraceparent(tp, traceState(r.Header)); err == nil {
				ctx = tracing.ContextWithRemote(ctx, sc, s.trustsTraceOf(r))
			}
		}
		// The attributes follow the start, so that a span the sampler
		// drops costs none of them (samplers decide on the trace).
		ctx, span := tr.Start(ctx, spanName(r.Method, rq), tracing.Server)
		recording := tracing.IsRecording(span)
		if recording {
			span.SetAttributes(requestSpanAttrs(r)...)
		}
		r = r.WithContext(ctx)
		var body *countingBody
		if recording && r.Body != nil && r.Body != http.NoBody {
			body = &countingBody{ReadCloser: r.Body}
			r.Body = body
		}
		var err error
		defer func() {
			if !recording {
				span.End(nil)
				return
			}
			code := rq.rec.code
			if code == 0 {
				code = http.StatusOK
			}
			attrs := []slog.Attr{slog.Int("http.response.status_code", code)}
			if body != nil && body.n > 0 {
				attrs = append(attrs, slog.Int64("http.request.body.size", body.n))
			}
			if rq.rec.bytes > 0 {
				attrs = append(attrs, slog.Int64("http.response.body.size", rq.rec.bytes))
			}
			span.SetAttributes(attrs...)
			if code >= 500 {
				// OpenTelemetry's HTTP servers mark 5xx spans failed,
				// not 4xx ones: those are the client's.
				err = fmt.Errorf("HTTP %d %s", code, http.StatusText(code))
			}
			span.End(err)
		}()
		next.ServeHTTP(w, r)
	})
}

// countingBody counts the bytes of a request body the handler read, for
// the span's http.request.body.size, as otelhttp counts them.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

// traceState is the request's tracestate, its header lines joined as
// one list (W3C Trace Context allows several); "" if longer than the
// parser keeps, before it is copied.
func traceState(h http.Header) string {
	vs := h.Values("Tracestate")
	n := 0
	for _, v := range vs {
		n += len(v) + 1
	}
	if n > tracing.MaxTraceStateBytes+1 {
		return ""
	}
	return strings.Join(vs, ",")
}

// trustsTraceOf reports whether r's caller may make the request's span a
// child of its own: a server without an authenticator trusts every
// caller; otherwise, as in Kubernetes, the members of system:masters and
// system:monitoring (filters/traces.go, notSystemPrivilegedGroup).
func (s *Server) trustsTraceOf(r *http.Request) bool {
	if s.opts.Security.Authenticator == nil {
		return true
	}
	u, ok := auth.UserFrom(r.Context())
	return ok && (slices.Contains(u.Groups, auth.SystemPrivilegedGroup) || slices.Contains(u.Groups, monitoringGroup))
}

// spanName is Kubernetes' span name (getSpanNameFromRequestInfo): the
// method and, for a resource request, the route with the namespace and
// name as placeholders, "GET /api/v1/namespaces/{:namespace}/pods/{:name}";
// other requests are named by their method alone.
func spanName(method string, rq *request) string {
	info := &rq.info
	if !info.ResourceRequest {
		return method
	}
	var b strings.Builder
	b.WriteString(method)
	b.WriteString(" /api")
	if !rq.core {
		b.WriteString("s/")
		b.WriteString(info.Group)
	}
	b.WriteByte('/')
	b.WriteString(info.Version)
	if info.Namespace != "" {
		b.WriteString("/namespaces/{:namespace}")
	}
	b.WriteByte('/')
	b.WriteString(info.Resource)
	if info.Name != "" {
		b.WriteString("/{:name}")
	}
	if info.Subresource != "" {
		b.WriteByte('/')
		b.WriteString(info.Subresource)
	}
	return b.String()
}

// httpMethods are the methods OpenTelemetry's semantic conventions name;
// any other is "_OTHER", with the method in http.request.method_original.
var httpMethods = []string{"CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"}

// requestSpanAttrs are the attributes OpenTelemetry's net/http
// instrumentation (otelhttp, which kube-apiserver uses) gives a server
// span, with kube-apiserver's http.target.
func requestSpanAttrs(r *http.Request) []slog.Attr {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host, port := splitHostPort(r.Host)
	attrs := make([]slog.Attr, 0, 12)
	attrs = append(attrs, slog.String("server.address", host))
	if slices.Contains(httpMethods, r.Method) {
		attrs = append(attrs, slog.String("http.request.method", r.Method))
	} else {
		attrs = append(attrs, slog.String("http.request.method", "_OTHER"), slog.String("http.request.method_original", r.Method))
	}
	attrs = append(attrs, slog.String("url.scheme", scheme))
	if port > 0 {
		attrs = append(attrs, slog.Int("server.port", port))
	}
	peer, peerPort := splitHostPort(r.RemoteAddr)
	if peer != "" {
		attrs = append(attrs, slog.String("network.peer.address", peer))
		if peerPort > 0 {
			attrs = append(attrs, slog.Int("network.peer.port", peerPort))
		}
	}
	if ua := r.UserAgent(); ua != "" {
		attrs = append(attrs, slog.String("user_agent.original", ua))
	}
	client, _, _ := strings.Cut(r.Header.Get("X-Forwarded-For"), ",")
	if client = strings.TrimSpace(client); client == "" {
		client = peer
	}
	if client != "" {
		attrs = append(attrs, slog.String("client.address", client))
	}
	attrs = append(attrs, slog.String("url.path", r.URL.Path))
	if v := protocolVersion(r); v != "" {
		attrs = append(attrs, slog.String("network.protocol.version", v))
	}
	return append(attrs, slog.String("http.target", r.URL.RequestURI()))
}

// protocolVersion is "1.1" for HTTP/1.1, "2" for HTTP/2, as
// OpenTelemetry writes them.
func protocolVersion(r *http.Request) string {
	if r.ProtoMajor == 2 && r.ProtoMinor == 0 {
		return "2"
	}
	return strconv.Itoa(r.ProtoMajor) + "." + strconv.Itoa(r.ProtoMinor)
}

// splitHostPort splits "host:port"; port is -1 when absent or invalid.
func splitHostPort(hp string) (host string, port int) {
	h, p, err := net.SplitHostPort(hp)
	if err != nil {
		return hp, -1
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		return h, -1
	}
	return h, n
}
