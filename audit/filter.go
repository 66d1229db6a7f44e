package audit

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// HeaderAuditID is the header that carries a request's audit ID: a
// client (the aggregator, for an aggregated server) may send one, and
// every answer the filter sees has one.
const HeaderAuditID = "Audit-Id"

// DefaultMaxBodyBytes is the default of Options.MaxBodyBytes: the
// server's own limit of request bodies.
const DefaultMaxBodyBytes = 3 << 20

// maxSourceIPs bounds the addresses of X-Forwarded-For an event records.
const maxSourceIPs = 32

// Options configure a Filter. Policy and Backend are required; the other
// fields' zero values mean the defaults written next to them.
type Options struct {
	// Policy decides which requests are recorded, and how.
	Policy *Policy
	// Backend receives the events (NewLogBackend).
	Backend Backend
	// MaxBodyBytes bounds each body recorded: a requestObject or
	// responseObject larger than it is left out of the event. 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int
	// Now is the clock of the timestamps; nil means time.Now.
	Now func() time.Time
	// NewID returns the audit ID of a request that does not come with
	// one; nil means a random (version 4) UUID, as kube-apiserver.
	NewID func() string
	// Logger receives the backend's errors; nil means they are dropped.
	Logger *slog.Logger
}

// Filter is the audit filter: it records each request it serves as
// events of the policy's level at each stage the policy keeps, and hands
// them to the backend. Create one with New; a Filter is safe for
// concurrent use.
type Filter struct {
	opts Options
}

// New returns a Filter with opts.
func New(opts Options) (*Filter, error) {
	if opts.Policy == nil || opts.Backend == nil {
		return nil, fmt.Errorf("audit: a Filter needs a Policy and a Backend")
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = newUUID
	}
	return &Filter{opts: opts}, nil
}

// Wrap returns next with the filter around it. Give it to the server as
// server.Options.Hooks.Audit, where kube-apiserver audits: after
// authentication (the user is in the context) and before the in-flight
// limits and authorization, whose decision the server tells the filter
// (server.AuditRecorder).
func (f *Filter) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.serve(next, w, r)
	})
}

// request is one audited request: its event, reused for each stage, and
// the response writer that records the answer. One allocation for both.
type request struct {
	http.ResponseWriter
	f           *Filter
	ev          Event
	ref         ObjectReference
	conf        RequestConfig
	longRunning bool
	started     bool // the response's code is known (and ResponseStarted sent)
	// unauthenticated is a request no authenticator accepted: one event,
	// ResponseStarted with the 401, as kube-apiserver records it
	// (WithFailedAuthenticationAudit).
	unauthenticated bool

	// status and ips are where the event's responseStatus and sourceIPs
	// usually live, saving their allocations.
	status status.Status
	ips    [1]string

	reqBody     *capture // of the request's body, or nil
	reqType     string   // the request's Content-Type
	wantRefMeta bool     // objectRef takes the request object's metadata
	resp        *capture // of the response's body, or nil
}

func (f *Filter) serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(HeaderAuditID)
	if id == "" {
		id = f.opts.NewID()
	}
	w.Header().Set(HeaderAuditID, id)
	info, ok := server.RequestInfoFrom(r.Context())
	if !ok {
		next.ServeHTTP(w, r) // not under a server: nothing to decide on
		return
	}
	u, _ := auth.UserFrom(r.Context())
	conf := f.opts.Policy.Evaluate(auth.Attributes{User: u, Verb: info.Verb, ResourceRequest: info.ResourceRequest,
		Group: info.Group, Version: info.Version, Resource: info.Resource, Subresource: info.Subresource,
		Namespace: info.Namespace, Name: info.Name, Path: info.Path})
	if conf.Level.rank() == 0 {
		next.ServeHTTP(w, r)
		return
	}

	rq := &request{ResponseWriter: w, f: f, conf: conf, longRunning: info.LongRunning,
		unauthenticated: server.AuthenticationFailed(r.Context())}
	now := meta.MicroTime{Time: f.opts.Now()}
	rq.ev = Event{Kind: "Event", APIVersion: APIVersion, Level: conf.Level, AuditID: id,
		RequestURI: r.URL.RequestURI(), Verb: info.Verb,
		User:      UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra},
		UserAgent: userAgent(r), RequestReceivedTimestamp: now}
	rq.ev.SourceIPs = sourceIPs(r, rq.ips[:0])
	if info.ResourceRequest {
		rq.ref = ObjectReference{Resource: info.Resource, Namespace: info.Namespace, Name: info.Name,
			APIGroup: info.Group, APIVersion: info.Version, Subresource: info.Subresource}
		rq.ev.ObjectRef = &rq.ref
		if !rq.unauthenticated {
			rq.captureBodies(r)
		}
	}
	if rq.unauthenticated {
		next.ServeHTTP(rq, r) // its ResponseStarted is sent as the 401 is written
		return
	}
	rq.process(StageRequestReceived)

	defer func() {
		if p := recover(); p != nil {
			rq.ev.ResponseStatus = &status.Status{Code: http.StatusInternalServerError, Status: status.StatusFailure,
				Reason: status.ReasonInternalError, Message: fmt.Sprintf("APIServer panic'd: %v", p)}
			rq.finish()
			rq.process(StagePanic)
			panic(p)
		}
		if rq.ev.ResponseStatus == nil {
			// Neither a code nor a body was written: kube-apiserver
			// records the same made-up answer.
			rq.ev.ResponseStatus = &status.Status{Code: http.StatusOK, Status: status.StatusSuccess, Message: "Connection closed early"}
			if rq.longRunning {
				rq.process(StageResponseStarted)
			}
		}
		rq.finish()
		rq.process(StageResponseComplete)
	}()
	next.ServeHTTP(rq, r)
}

// process sends the event at stage s unless the policy omits s.
func (rq *request) process(s Stage) {
	if rq.conf.Omits(s) {
		return
	}
	ev := &rq.ev
	ev.Stage = s
	if s == StageRequestReceived {
		ev.StageTimestamp = ev.RequestReceivedTimestamp
	} else {
		ev.StageTimestamp = meta.MicroTime{Time: rq.f.opts.Now()}
	}
	if err := rq.f.opts.Backend.ProcessEvent(ev); err != nil && rq.f.opts.Logger != nil {
		rq.f.opts.Logger.Error("audit: the backend failed", "auditID", ev.AuditID, "stage", s, "err", err)
	}
}

// captureBodies arranges for the bodies the event records to be kept as
// they pass: the request's at Request level (and for a create or update,
// whose object's name, namespace, uid and resourceVersion kube-apiserver
// puts in objectRef, at Metadata level too), the response's at
// RequestResponse level, watches apart.
func (rq *request) captureBodies(r *http.Request) {
	level := rq.conf.Level
	hasBody := r.Body != nil && r.Body != http.NoBody
	rq.wantRefMeta = rq.ev.Verb == "create" || rq.ev.Verb == "update"
	if hasBody && (level.AtLeast(LevelRequest) || rq.wantRefMeta) {
		rq.reqType = r.Header.Get("Content-Type")
		rq.reqBody = &capture{max: rq.f.opts.MaxBodyBytes}
		r.Body = &teeBody{ReadCloser: r.Body, c: rq.reqBody}
	}
	if level.AtLeast(LevelRequestResponse) && !rq.longRunning {
		rq.resp = &capture{max: rq.f.opts.MaxBodyBytes}
	}
}

// finish puts the captured bodies in the event.
func (rq *request) finish() {
	ev := &rq.ev
	if c := rq.reqBody; c != nil && !c.over {
		obj := toJSON(c.buf.Bytes(), rq.reqType)
		if rq.wantRefMeta && obj != nil {
			rq.fillRef(obj)
		}
		if ev.Level.AtLeast(LevelRequest) && obj != nil {
			ev.RequestObject = rq.dropManagedFields(obj)
		}
	}
	if c := rq.resp; c != nil && !c.over && c.buf.Len() > 0 {
		if obj := toJSON(c.buf.Bytes(), rq.Header().Get("Content-Type")); obj != nil {
			ev.ResponseObject = rq.dropManagedFields(obj)
		}
	}
}

// fillRef completes objectRef from the request object's metadata, where
// the path left it empty, as kube-apiserver does.
func (rq *request) fillRef(obj []byte) {
	var o struct {
		Metadata struct {
			Name, Namespace, UID, ResourceVersion string
		} `json:"metadata"`
	}
	if json.Unmarshal(obj, &o) != nil {
		return
	}
	m, ref := &o.Metadata, &rq.ref
	for _, f := range []struct {
		dst *string
		src string
	}{
		{&ref.Namespace, m.Namespace}, {&ref.Name, m.Name}, {&ref.UID, m.UID}, {&ref.ResourceVersion, m.ResourceVersion},
	} {
		if *f.dst == "" {
			*f.dst = f.src
		}
	}
}

// dropManagedFields removes metadata.managedFields from obj, of items'
// and of Table rows' objects, if the policy says so. The JSON is then
// re-encoded, its members in name order.
func (rq *request) dropManagedFields(obj []byte) []byte {
	if !rq.conf.OmitManagedFields || !bytes.Contains(obj, []byte(`"managedFields"`)) {
		return obj
	}
	var v map[string]any
	if sigsjson.UnmarshalCaseSensitivePreserveInts(obj, &v) != nil {
		return obj
	}
	drop := func(o any) {
		if m, ok := o.(map[string]any); ok {
			if md, ok := m["metadata"].(map[string]any); ok {
				delete(md, "managedFields")
			}
		}
	}
	drop(v)
	for _, key := range []string{"items", "rows"} {
		l, _ := v[key].([]any)
		for _, it := range l {
			if row, ok := it.(map[string]any); ok && key == "rows" {
				it = row["object"]
			}
			drop(it)
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		return obj
	}
	return out
}

// toJSON returns body, of media type ctype, as compact JSON, or nil if it
// is neither JSON nor YAML (protobuf bodies are not recorded) or does not
// parse.
func toJSON(body []byte, ctype string) []byte {
	mt, _, err := mime.ParseMediaType(ctype)
	if err != nil {
		return nil
	}
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
	case mt == "application/yaml" || strings.HasSuffix(mt, "+yaml"):
		if body, err = yaml.YAMLToJSON(body); err != nil {
			return nil
		}
	default:
		return nil
	}
	var out bytes.Buffer
	if json.Compact(&out, body) != nil {
		return nil
	}
	return out.Bytes()
}

// processCode notes the response's code once, at its first write; a
// long-running request's ResponseStarted event is sent then.
func (rq *request) processCode(code int) {
	if rq.started {
		return
	}
	rq.started = true
	if rq.ev.ResponseStatus == nil {
		rq.ev.ResponseStatus = &rq.status
	}
	rq.ev.ResponseStatus.Code = int32(code)
	if rq.longRunning || rq.unauthenticated {
		rq.process(StageResponseStarted)
	}
}

// WriteHeader notes the code.
func (rq *request) WriteHeader(code int) {
	rq.processCode(code)
	rq.ResponseWriter.WriteHeader(code)
}

// Write notes the code (200 if none was written) and keeps the body when
// the level records it.
func (rq *request) Write(b []byte) (int, error) {
	rq.processCode(http.StatusOK)
	if rq.resp != nil {
		rq.resp.add(b)
	}
	return rq.ResponseWriter.Write(b)
}

// Flush passes flushes through, which watch streams need.
func (rq *request) Flush() {
	if f, ok := rq.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController and the server reach the writers
// below.
func (rq *request) Unwrap() http.ResponseWriter { return rq.ResponseWriter }

// AuditAnnotation adds an annotation to the event; a key keeps its first
// value, as in kube-apiserver.
func (rq *request) AuditAnnotation(key, value string) {
	if _, ok := rq.ev.Annotations[key]; ok {
		return
	}
	if rq.ev.Annotations == nil {
		rq.ev.Annotations = make(map[string]string, 2)
	}
	rq.ev.Annotations[key] = value
}

// AuditStatus records the response's Status: its status, message, reason
// and details, the bounded fields kube-apiserver copies.
func (rq *request) AuditStatus(st *status.Status) {
	code := st.Code
	if rq.ev.ResponseStatus != nil && rq.started {
		code = rq.ev.ResponseStatus.Code
	}
	rq.status = status.Status{Status: st.Status, Message: st.Message, Reason: st.Reason, Details: st.Details, Code: code}
	rq.ev.ResponseStatus = &rq.status
}

var _ server.AuditRecorder = (*request)(nil)

// capture keeps up to max bytes of a body; past that it keeps nothing
// and notes it.
type capture struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capture) add(b []byte) {
	if c.over {
		return
	}
	if c.buf.Len()+len(b) > c.max {
		c.over = true
		c.buf = bytes.Buffer{}
		return
	}
	c.buf.Write(b)
}

// teeBody is a request body that keeps what is read from it.
type teeBody struct {
	io.ReadCloser
	c *capture
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.c.add(p[:n])
	return n, err
}

// sourceIPs are the request's addresses as kube-apiserver lists them
// (k8s.io/apimachinery/pkg/util/net.SourceIPs): those of X-Forwarded-For,
// then X-Real-Ip unless already listed, then the connection's peer unless
// it is the last listed. They are appended to dst.
func sourceIPs(r *http.Request, dst []string) []string {
	fwd, real := r.Header.Get("X-Forwarded-For"), r.Header.Get("X-Real-Ip")
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if fwd == "" && real == "" {
		// The usual case: the peer alone, its text kept when canonical.
		ip, err := netip.ParseAddr(host)
		switch {
		case err != nil:
			return dst
		case !ip.Is4In6() && ip.Zone() == "" && string(ip.AppendTo(make([]byte, 0, 64))) == host:
			return append(dst, host)
		}
		return append(dst, ip.Unmap().String())
	}
	var ips []netip.Addr
	if fwd != "" {
		for part := range strings.SplitSeq(fwd, ",") {
			if ip, err := netip.ParseAddr(strings.TrimSpace(part)); err == nil && len(ips) < maxSourceIPs {
				ips = append(ips, ip.Unmap())
			}
		}
	}
	if real != "" {
		if ip, err := netip.ParseAddr(real); err == nil && !containsAddr(ips, ip.Unmap()) {
			ips = append(ips, ip.Unmap())
		}
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip = ip.Unmap(); len(ips) == 0 || ips[len(ips)-1] != ip {
			ips = append(ips, ip)
		}
	}
	for _, ip := range ips {
		dst = append(dst, ip.String())
	}
	return dst
}

func containsAddr(l []netip.Addr, a netip.Addr) bool {
	for _, x := range l {
		if x == a {
			return true
		}
	}
	return false
}

// userAgent is the request's User-Agent, cut as kube-apiserver cuts it.
func userAgent(r *http.Request) string {
	const max = 1024
	ua := r.UserAgent()
	if len(ua) > max {
		ua = ua[:max] + "...TRUNCATED"
	}
	return ua
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return meta.UUIDv4(b)
}
