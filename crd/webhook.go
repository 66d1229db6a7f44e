package crd

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	kjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/validation"
)

// webhookTimeout is how long a conversion webhook has to answer, as
// kube-apiserver gives it (the URL it calls carries ?timeout=30s).
const webhookTimeout = 30 * time.Second

// maxReviewBytes bounds the answer of a conversion webhook read into
// memory, as kube-apiserver's webhook client bounds a response body.
const maxReviewBytes = 32 << 20

// ResolveService is the default of Options.ResolveService: the address
// https://<name>.<namespace>.svc:<port>, which kube-apiserver's default
// resolver gives a webhook service where no cluster network routes it.
func ResolveService(namespace, name string, port int32) (*url.URL, error) {
	if namespace == "" || name == "" || port == 0 {
		return nil, errors.New("cannot resolve an empty service name or namespace or port")
	}
	return &url.URL{Scheme: "https", Host: net.JoinHostPort(name+"."+namespace+".svc", strconv.Itoa(int(port)))}, nil
}

// webhookConversion is spec.conversion.webhook of a definition
// (apiextensions.k8s.io/v1 WebhookConversion).
type webhookConversion struct {
	ClientConfig             *webhookClientConfig `json:"clientConfig,omitempty"`
	ConversionReviewVersions []string             `json:"conversionReviewVersions"`
}

type webhookClientConfig struct {
	URL      *string            `json:"url,omitempty"`
	Service  *webhookServiceRef `json:"service,omitempty"`
	CABundle []byte             `json:"caBundle,omitempty"`
}

type webhookServiceRef struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Path      *string `json:"path,omitempty"`
	Port      *int32  `json:"port,omitempty"`
}

// A webhook calls a definition's conversion webhook as kube-apiserver's
// webhook converter does (k8s.io/apiextensions-apiserver
// pkg/apiserver/conversion/webhook_converter.go): one ConversionReview
// per conversion, in the first version of conversionReviewVersions it
// knows (v1 or v1beta1), POSTed to the webhook's URL with ?timeout=30s,
// verified by caBundle (or the system's roots without one); the answer is
// checked as the cluster checks it, with its messages.
type webhook struct {
	kind   string
	client *http.Client
	url    string // with the timeout parameter
	review string // apiextensions.k8s.io/v1 or apiextensions.k8s.io/v1beta1
	// err is why the webhook cannot be called (a bad URL or caBundle):
	// every conversion fails with it.
	err error
}

// newWebhook returns the webhook of definition c; resolve finds the
// address of a service (ResolveService when nil).
func newWebhook(c *CustomResourceDefinition, resolve func(namespace, name string, port int32) (*url.URL, error)) *webhook {
	w := &webhook{kind: c.Spec.Names.Kind}
	var wc webhookConversion
	if cv := c.Spec.Conversion; cv != nil && len(cv.Webhook) > 0 {
		if err := json.Unmarshal(cv.Webhook, &wc); err != nil {
			w.err = err
			return w
		}
	}
	for _, v := range wc.ConversionReviewVersions {
		if v == "v1" || v == "v1beta1" {
			w.review = "apiextensions.k8s.io/" + v
			break
		}
	}
	cc := wc.ClientConfig
	if cc == nil || cc.URL == nil && cc.Service == nil {
		w.err = errors.New("webhook clientConfig was not provided")
		return w
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(cc.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cc.CABundle) {
			w.err = errors.New("unable to load root certificates: unable to parse bytes as PEM block")
			return w
		}
		tc.RootCAs = pool
	}
	var u *url.URL
	if cc.URL != nil {
		var err error
		if u, err = url.Parse(*cc.URL); err != nil {
			w.err = err
			return w
		}
	} else {
		s := cc.Service
		port := int32(443)
		if s.Port != nil {
			port = *s.Port
		}
		if resolve == nil {
			resolve = ResolveService
		}
		var err error
		if u, err = resolve(s.Namespace, s.Name, port); err != nil {
			w.err = err
			return w
		}
		if s.Path != nil {
			u.Path = *s.Path
		}
		// The certificate names the service, wherever it is reached.
		tc.ServerName = s.Name + "." + s.Namespace + ".svc"
	}
	q := u.Query()
	q.Set("timeout", "30s")
	u.RawQuery = q.Encode()
	w.url = u.String()
	w.client = &http.Client{
		Timeout: webhookTimeout,
		Transport: &http.Transport{
			TLSClientConfig: tc, Proxy: http.ProxyFromEnvironment,
			// Idle connections end on their own: nothing outlives a
			// definition's webhook for long.
			IdleConnTimeout: 30 * time.Second, MaxIdleConnsPerHost: 16,
		},
	}
	return w
}

// convert returns u, a stored object in version from (group/version),
// converted by the webhook to version to, with the metadata of u but for
// the labels and annotations the webhook gives it, as kube-apiserver
// keeps it. The errors are the cluster's: `conversion webhook for
// <group>/<from>, Kind=<Kind> failed: ...` and the like.
func (w *webhook) convert(ctx context.Context, u *server.Unstructured, from, to string) (*server.Unstructured, error) {
	gvk := from + ", Kind=" + w.kind
	failed := func(err error) error { return fmt.Errorf("conversion webhook for %s failed: %w", gvk, err) }
	if w.err != nil {
		return nil, failed(w.err)
	}
	if w.review == "" {
		return nil, errors.New("no supported conversion review versions")
	}
	// The object as the cluster sends it: typed, without resourceVersion.
	in := *u
	in.TypeMeta = meta.TypeMeta{APIVersion: from, Kind: w.kind}
	in.ResourceVersion = ""
	obj, err := json.Marshal(&in)
	if err != nil {
		return nil, err
	}
	uid := newUID()
	body, err := json.Marshal(reviewRequest{Kind: "ConversionReview", APIVersion: w.review,
		Request:  &conversionRequest{UID: uid, DesiredAPIVersion: to, Objects: []json.RawMessage{obj}},
		Response: &conversionResponse{Result: resultStatus{Metadata: struct{}{}}}})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return nil, failed(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, failed(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxReviewBytes+1))
	if err != nil {
		return nil, failed(err)
	}
	if len(b) > maxReviewBytes {
		return nil, failed(fmt.Errorf("the response of the webhook exceeds %d bytes", maxReviewBytes))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, failed(responseError(resp.StatusCode, resp.Header.Get("Content-Type"), b))
	}
	objs, err := parseReview(b, w.review, uid)
	if err != nil {
		return nil, failed(err)
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("conversion webhook for %s returned %d objects, expected 1", gvk, len(objs))
	}
	out, err := convertedObject(objs[0], u, to, w.kind)
	if err != nil {
		return nil, fmt.Errorf("conversion webhook for %s returned %w", gvk, err)
	}
	return out, nil
}

// reviewRequest is the ConversionReview sent, as the cluster writes it
// (with an empty response).
type reviewRequest struct {
	Kind       string              `json:"kind"`
	APIVersion string              `json:"apiVersion"`
	Request    *conversionRequest  `json:"request"`
	Response   *conversionResponse `json:"response"`
}

type conversionRequest struct {
	UID               string            `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

type conversionResponse struct {
	UID              string            `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	Result           resultStatus      `json:"result"`
}

type resultStatus struct {
	Metadata struct{} `json:"metadata"`
	Status   string   `json:"status,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// reviewAnswer is a ConversionReview as a webhook answers it.
type reviewAnswer struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Response   *struct {
		UID              string            `json:"uid"`
		ConvertedObjects []json.RawMessage `json:"convertedObjects"`
		Result           struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"result"`
	} `json:"response"`
}

// kindProbe is what Kubernetes' JSON decoder reads first of a body.
type kindProbe struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// parseReview returns the converted objects of b, a webhook's answer to
// a review of version review (group/version) with uid, or the cluster's
// error for it: as its REST client decodes the body into a review of
// that version (a missing kind or apiVersion is the review's; another
// version's does not convert), then as the webhook converter checks it
// (kind, apiVersion and uid in v1 only, as the cluster does).
func parseReview(b []byte, review, uid string) ([]json.RawMessage, error) {
	if len(b) == 0 {
		return nil, errors.New("0-length response with status code: 200 and content type: application/json")
	}
	var probe kindProbe
	if err := json.Unmarshal(b, &probe); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			// Not JSON: Kubernetes reads it as YAML, where a bare
			// word is a string.
			te = &json.UnmarshalTypeError{Value: "string"}
		}
		return nil, fmt.Errorf("couldn't get version/kind; json parse error: json: cannot unmarshal %s into Go value of type %s",
			te.Value, `struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }`)
	}
	// The decoder takes a missing kind or apiVersion from the review it
	// decodes into; the decoded review's own stay empty.
	kind, apiVersion := probe.Kind, probe.APIVersion
	if kind == "" {
		kind = "ConversionReview"
	}
	if apiVersion == "" {
		apiVersion = review
	}
	known := apiVersion == "apiextensions.k8s.io/v1" || apiVersion == "apiextensions.k8s.io/v1beta1"
	if !known || kind != "ConversionReview" {
		return nil, fmt.Errorf("no kind %q is registered for version %q in scheme %q", kind, apiVersion, "pkg/runtime/scheme.go:111")
	}
	if apiVersion != review {
		return nil, fmt.Errorf("converting (%s.ConversionReview) to (%s.ConversionReview): unknown conversion",
			strings.TrimPrefix(apiVersion, "apiextensions.k8s.io/"), strings.TrimPrefix(review, "apiextensions.k8s.io/"))
	}
	var a reviewAnswer
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &a); err != nil {
		return nil, err
	}
	if review == "apiextensions.k8s.io/v1" && (probe.APIVersion != review || probe.Kind != "ConversionReview") {
		gv := probe.APIVersion
		if !strings.Contains(gv, "/") {
			gv = "/" + gv // no group
		}
		return nil, fmt.Errorf("expected webhook response of %s, Kind=ConversionReview, got %s, Kind=%s", review, gv, probe.Kind)
	}
	if a.Response == nil {
		return nil, errors.New("no response provided")
	}
	if review == "apiextensions.k8s.io/v1" && a.Response.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, a.Response.UID)
	}
	if r := a.Response.Result; r.Status != "Success" {
		if r.Message != "" {
			return nil, errors.New(r.Message)
		}
		return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", r.Status)
	}
	return a.Response.ConvertedObjects, nil
}

// convertedObject checks raw, the object a webhook converted from orig,
// as the cluster checks it, and returns it with orig's metadata but for
// the labels and annotations raw has. An error completes `conversion
// webhook for <gvk> returned ...`.
func convertedObject(raw json.RawMessage, orig *server.Unstructured, to, kind string) (*server.Unstructured, error) {
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("invalid object at index 0: %v", objectError(raw, err))
	}
	av, _ := m["apiVersion"].(string)
	k, _ := m["kind"].(string)
	if k == "" {
		return nil, fmt.Errorf("invalid object at index 0: Object 'Kind' is missing in '%s'", raw)
	}
	if av != to {
		return nil, fmt.Errorf("invalid object at index 0: invalid groupVersion (expected %s, received %s)", to, groupVersionString(av))
	}
	if k != kind {
		return nil, fmt.Errorf("invalid object at index 0: invalid kind (expected %s, received %s)", kind, k)
	}
	md, hasMeta := m["metadata"]
	mm, _ := md.(map[string]any)
	str := func(k string) string { s, _ := mm[k].(string); return s }
	for _, f := range []struct{ name, want, got string }{
		{"name", orig.Name, str("name")},
		{"namespace", orig.Namespace, str("namespace")},
		{"UID", orig.UID, str("uid")},
	} {
		if f.want != f.got {
			return nil, fmt.Errorf("invalid object: must have the same %s: %s != %s", f.name, f.want, f.got)
		}
	}
	invalidMeta := func(format string, args ...any) error {
		return fmt.Errorf("invalid metadata: "+format, args...)
	}
	if !hasMeta {
		return nil, invalidMeta("missing metadata in converted object")
	}
	if mm == nil {
		return nil, invalidMeta("invalid metadata of type %s in converted object", goType(md))
	}
	out := &server.Unstructured{}
	orig.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	for _, f := range []struct {
		name string
		dst  *map[string]string
	}{{"labels", &out.Labels}, {"annotations", &out.Annotations}} {
		v, ok := mm[f.name]
		if !ok || v == nil {
			*f.dst = nil
			continue
		}
		given, isMap := v.(map[string]any)
		if !isMap {
			return nil, invalidMeta("invalid metadata.%s of type %s in converted object", f.name, goType(v))
		}
		strs := make(map[string]string, len(given))
		for k, v := range given {
			s, isStr := v.(string)
			if !isStr {
				return nil, invalidMeta("metadata.%s[%s] must be a string, but is %s in converted object", f.name, k, goType(v))
			}
			strs[k] = s
		}
		if !maps.Equal(strs, *f.dst) {
			var errs []status.FieldError
			if f.name == "labels" {
				errs = validation.Labels("metadata.labels", strs)
			} else {
				// Kubernetes' path, singular.
				errs = validation.Annotations("metadata.annotation", strs)
			}
			if len(errs) > 0 {
				return nil, invalidMeta("%s", aggregate(errs))
			}
		}
		*f.dst = strs
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	delete(m, "metadata")
	if len(m) > 0 {
		out.Content = m
	}
	return out, nil
}

// objectError is the error of decoding raw as an unstructured object.
func objectError(raw json.RawMessage, err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("Object 'Kind' is missing in '%s'", raw)
}

// groupVersionString is apiVersion as Kubernetes prints the group and
// version it parses from it.
func groupVersionString(apiVersion string) string {
	if strings.Count(apiVersion, "/") > 1 {
		return "/" // not a group version: the empty one
	}
	return apiVersion
}

// goType is the Go type Kubernetes names for a JSON value it decoded.
func goType(v any) string {
	switch v.(type) {
	case nil:
		return "<nil>"
	case []any:
		return "[]interface {}"
	case map[string]any:
		return "map[string]interface {}"
	}
	return fmt.Sprintf("%T", v)
}

// aggregate is errs as one error text, as Kubernetes' ToAggregate prints
// it: the error alone, or "[e1, e2]".
func aggregate(errs []status.FieldError) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	texts := make([]string, len(errs))
	for i, e := range errs {
		texts[i] = e.Error()
	}
	return "[" + strings.Join(texts, ", ") + "]"
}

// responseError is the error of a webhook's answer with HTTP status code
// and body b, as Kubernetes' REST client makes it: the Status the body
// holds, else its generic text for the code (with the body when it is
// text).
func responseError(code int, contentType string, b []byte) error {
	var st status.Status
	if json.Unmarshal(b, &st) == nil && st.Kind == "Status" && st.Message != "" {
		return errors.New(st.Message)
	}
	msg := "unknown"
	if strings.HasPrefix(contentType, "text/") {
		msg = strings.TrimSpace(string(b))
	}
	switch code {
	case http.StatusConflict:
		return errors.New("the server reported a conflict")
	case http.StatusNotFound:
		return errors.New("the server could not find the requested resource")
	case http.StatusBadRequest:
		return errors.New("the server rejected our request for an unknown reason")
	case http.StatusUnauthorized:
		return errors.New("the server has asked for the client to provide credentials")
	case http.StatusForbidden:
		return errors.New(msg)
	case http.StatusMethodNotAllowed:
		return errors.New("the server does not allow this method on the requested resource")
	case http.StatusUnprocessableEntity:
		return errors.New("the server rejected our request due to an error in our request")
	case http.StatusServiceUnavailable:
		return errors.New("the server is currently unable to handle the request")
	case http.StatusGatewayTimeout:
		return errors.New("the server was unable to return a response in the time allotted, but may still be processing the request")
	case http.StatusTooManyRequests:
		return errors.New("the server has received too many requests and has asked us to try again later")
	}
	if code >= 500 {
		return fmt.Errorf("an error on the server (%q) has prevented the request from succeeding", msg)
	}
	return fmt.Errorf("the server responded with the status code %d but did not return more information", code)
}

// newUID returns a random (version 4) UUID, a review's uid.
func newUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// conversionErrors checks spec.conversion of a definition as Kubernetes
// does (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation,
// validateCustomResourceConversion), with its paths, which are those of
// its internal form (spec.conversion.webhookClientConfig). old is the
// conversion of the definition updated, nil on create: a definition
// that named no review version Kubernetes knows may keep doing so. A
// caBundle that is not PEM is accepted, as Kubernetes accepts it on
// create and from a definition not yet established.
func conversionErrors(cv, old *CustomResourceConversion) []status.FieldError {
	if cv == nil {
		return nil
	}
	const p = "spec.conversion"
	var errs []status.FieldError
	switch cv.Strategy {
	case "":
		errs = append(errs, status.Required(p+".strategy", ""))
	case "None", "Webhook":
	default:
		errs = append(errs, status.NotSupported(p+".strategy", cv.Strategy, "None", "Webhook"))
	}
	wc := webhookOf(cv)
	cc := wc.ClientConfig
	if cv.Strategy != "Webhook" {
		if cc != nil {
			errs = append(errs, status.Forbidden(p+".webhookClientConfig", "should not be set when strategy is not set to Webhook"))
		}
		if len(wc.ConversionReviewVersions) > 0 {
			errs = append(errs, status.Forbidden(p+".conversionReviewVersions", "should not be set when strategy is not set to Webhook"))
		}
		return errs
	}
	switch {
	case cc == nil:
		errs = append(errs, status.Required(p+".webhookClientConfig", "required when strategy is set to Webhook"))
	case (cc.URL == nil) == (cc.Service == nil):
		errs = append(errs, status.Required(p+".webhookClientConfig", "exactly one of url or service is required"))
	case cc.URL != nil:
		errs = append(errs, webhookURLErrors(p+".webhookClientConfig.url", *cc.URL)...)
	default:
		errs = append(errs, webhookServiceErrors(p+".webhookClientConfig.service", cc.Service)...)
	}
	requireKnown := true
	if old != nil {
		// Kubernetes requires a known version only of a definition that
		// had one, or none.
		requireKnown = false
		ov := webhookOf(old).ConversionReviewVersions
		for _, v := range ov {
			requireKnown = requireKnown || v == "v1" || v == "v1beta1"
		}
		requireKnown = requireKnown || len(ov) == 0
	}
	return append(errs, reviewVersionErrors(p+".conversionReviewVersions", wc.ConversionReviewVersions, requireKnown)...)
}

// webhookOf is the webhook of cv, zero when it has none or it does not
// decode (the definition's decoding refuses that first).
func webhookOf(cv *CustomResourceConversion) webhookConversion {
	var wc webhookConversion
	if cv != nil && len(cv.Webhook) > 0 {
		json.Unmarshal(cv.Webhook, &wc)
	}
	return wc
}

// webhookURLErrors checks a webhook's url as Kubernetes does
// (k8s.io/apiserver pkg/util/webhook, ValidateWebhookURL, HTTPS only).
func webhookURLErrors(path, raw string) []status.FieldError {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return []status.FieldError{status.Required(path, "url must be a valid URL: "+err.Error()+form)}
	}
	var errs []status.FieldError
	if u.Scheme != "https" {
		errs = append(errs, status.InvalidValue(path, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		errs = append(errs, status.InvalidValue(path, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		errs = append(errs, status.InvalidValue(path, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, status.InvalidValue(path, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, status.InvalidValue(path, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// webhookServiceErrors checks a webhook's service as Kubernetes does
// (ValidateWebhookService): name, namespace, port (443 when not given),
// and a path of RFC 1123 subdomains.
func webhookServiceErrors(path string, s *webhookServiceRef) []status.FieldError {
	var errs []status.FieldError
	if s.Name == "" {
		errs = append(errs, status.Required(path+".name", ""))
	}
	if s.Namespace == "" {
		errs = append(errs, status.Required(path+".namespace", ""))
	}
	port := int32(443)
	if s.Port != nil {
		port = *s.Port
	}
	if port < 1 || port > 65535 {
		errs = append(errs, status.InvalidValue(path+".port", port, "port is not valid: must be between 1 and 65535, inclusive"))
	}
	if s.Path == nil || *s.Path == "" || *s.Path == "/" {
		return errs
	}
	p := *s.Path
	if p == "//" {
		return append(errs, status.InvalidValue(path+".path", p, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(p, "/") {
		errs = append(errs, status.InvalidValue(path+".path", p, "must start with a '/'"))
	}
	rest := strings.TrimSuffix(p[1:], "/")
	for i, seg := range strings.Split(rest, "/") {
		if seg == "" {
			errs = append(errs, status.InvalidValue(path+".path", p, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range validation.IsDNS1123Subdomain(seg) {
			errs = append(errs, status.InvalidValue(path+".path", p, fmt.Sprintf("segment[%d]: %s", i, msg)))
		}
	}
	return errs
}

// reviewVersionErrors checks conversionReviewVersions as Kubernetes
// does: given, unique DNS-1035 labels, one of them v1 or v1beta1 (when
// requireKnown).
func reviewVersionErrors(path string, vs []string, requireKnown bool) []status.FieldError {
	if len(vs) == 0 {
		return []status.FieldError{status.Required(path, "")}
	}
	var errs []status.FieldError
	seen, known := map[string]bool{}, false
	for i, v := range vs {
		ip := fmt.Sprintf("%s[%d]", path, i)
		if seen[v] {
			errs = append(errs, status.InvalidValue(ip, v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range validation.IsDNS1035Label(v) {
			errs = append(errs, status.InvalidValue(ip, v, msg))
		}
		known = known || v == "v1" || v == "v1beta1"
	}
	if requireKnown && !known {
		errs = append(errs, status.InvalidValue(path, vs, "must include at least one of v1, v1beta1"))
	}
	return errs
}

// defaultWebhookPort gives a conversion webhook's service the port 443
// when it names none, as Kubernetes' defaulting of the v1 definition
// does (the stored definition shows it).
func defaultWebhookPort(cv *CustomResourceConversion) {
	if cv == nil || len(cv.Webhook) == 0 {
		return
	}
	var m map[string]any
	if json.Unmarshal(cv.Webhook, &m) != nil {
		return
	}
	cc, _ := m["clientConfig"].(map[string]any)
	svc, _ := cc["service"].(map[string]any)
	if svc == nil || svc["port"] != nil {
		return
	}
	svc["port"] = 443
	if b, err := json.Marshal(m); err == nil {
		cv.Webhook = b
	}
}
