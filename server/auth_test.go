package server_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/auth/certs"
	"github.com/apisem/apisem/server"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// frontProxyPKI is the certificates of a simulated aggregator: the
// server's serving certificate, the front proxy's CA and client
// certificates, and a client CA.
type frontProxyPKI struct {
	servingCA, proxyCA, clientCA *certs.CA
	serving                      tls.Certificate
	proxy, otherName, rogue      tls.Certificate
	alice                        tls.Certificate
}

func newFrontProxyPKI(t *testing.T) *frontProxyPKI {
	t.Helper()
	ca := func(name string) *certs.CA {
		c, err := certs.NewCA(name)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	issue := func(c tls.Certificate, err error) tls.Certificate {
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	p := &frontProxyPKI{servingCA: ca("serving-ca"), proxyCA: ca("front-proxy-ca"), clientCA: ca("client-ca")}
	p.serving = issue(p.servingCA.IssueServing("127.0.0.1"))
	p.proxy = issue(p.proxyCA.IssueClient("front-proxy-client"))
	p.otherName = issue(p.proxyCA.IssueClient("not-the-aggregator"))
	p.rogue = issue(ca("front-proxy-ca").IssueClient("front-proxy-client"))
	p.alice = issue(p.clientCA.IssueClient("alice", "dev"))
	return p
}

// authnFor is the authenticator of an aggregated API server behind the
// test PKI's front proxy.
func (p *frontProxyPKI) authnFor(anonymous bool) auth.Authenticator {
	return auth.Chain{
		RequestHeader: &auth.RequestHeader{CA: p.proxyCA.Pool(), AllowedNames: []string{"front-proxy-client"}},
		ClientCert:    &auth.ClientCert{CA: p.clientCA.Pool()},
		Anonymous:     anonymous,
	}
}

// serveTLS serves opts over HTTPS on a loopback port, with the test
// PKI's serving certificate and both client CAs, and returns the base URL.
func serveTLS(t *testing.T, p *frontProxyPKI, opts server.Options) string {
	t.Helper()
	clientCAs := p.proxyCA.Pool()
	clientCAs.AddCert(p.clientCA.Cert)
	opts.Security.TLS = certs.ServerConfig(p.serving, clientCAs)
	if opts.Resources == nil {
		opts.Resources = []*server.Resource{gizmos}
	}
	s, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return "https://" + l.Addr().String()
}

// clientWith returns an HTTP/2 client that trusts the serving CA and
// presents cert (none if nil) whatever CAs the server names, as a hostile
// client would.
func clientWith(t *testing.T, p *frontProxyPKI, cert *tls.Certificate) *http.Client {
	tr := &http.Transport{
		ForceAttemptHTTP2: true,
		TLSClientConfig: &tls.Config{
			RootCAs: p.servingCA.Pool(),
			GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
				if cert == nil {
					return &tls.Certificate{}, nil
				}
				return cert, nil
			},
		},
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

type authReply struct {
	code  int
	body  string
	proto int
}

func authCall(t *testing.T, c *http.Client, method, url string, header http.Header, body string) authReply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		if method == http.MethodPatch {
			req.Header.Set("Content-Type", "application/merge-patch+json")
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return authReply{resp.StatusCode, string(b), resp.ProtoMajor}
}

// recorder is an authorizer that records what it is asked and answers
// with decide.
type recorder struct {
	mu     sync.Mutex
	asked  []auth.Attributes
	decide func(auth.Attributes) (auth.Decision, string, error)
}

func (r *recorder) Authorize(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
	r.mu.Lock()
	r.asked = append(r.asked, a)
	r.mu.Unlock()
	if r.decide == nil {
		return auth.DecisionAllow, "", nil
	}
	return r.decide(a)
}

func (r *recorder) take() []auth.Attributes {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.asked
	r.asked = nil
	return a
}

// TestFrontProxy: only the front proxy's certificate may assert a user
// in headers; the same headers with another certificate or none are not
// believed.
func TestFrontProxy(t *testing.T) {
	p := newFrontProxyPKI(t)
	bobHeaders := http.Header{
		"X-Remote-User":         {"bob"},
		"X-Remote-Group":        {"system:masters", "dev"},
		"X-Remote-Extra-Scopes": {"view"},
	}
	anonymous := auth.User{Name: auth.Anonymous, Groups: []string{auth.AllUnauthenticated}}
	tests := []struct {
		name      string
		anonymous bool
		cert      *tls.Certificate
		want      int
		user      *auth.User // what the authorizer and the handler see
	}{
		{"the aggregator's certificate", false, &p.proxy, 200,
			&auth.User{Name: "bob", Groups: []string{"system:masters", "dev", auth.AllAuthenticated}, Extra: map[string][]string{"scopes": {"view"}}}},
		{"a certificate of the proxy CA with another name", false, &p.otherName, 401, nil},
		{"a certificate of another CA with the aggregator's name", false, &p.rogue, 401, nil},
		{"no certificate", false, nil, 401, nil},
		{"no certificate, anonymous allowed", true, nil, 200, &anonymous},
		{"a client certificate: its own user, headers ignored", false, &p.alice, 200,
			&auth.User{Name: "alice", Groups: []string{"dev", auth.AllAuthenticated}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			var seen []auth.User // users in the handlers' contexts
			var mu sync.Mutex
			base := serveTLS(t, p, server.Options{

				Admission: server.Admission{Mutate: func(ctx context.Context, _ server.Attributes, _, _ server.Object) error {
					u, _ := auth.UserFrom(ctx)
					mu.Lock()
					seen = append(seen, u)
					mu.Unlock()
					return nil
				}},
				Security: server.SecurityOptions{Authenticator: p.authnFor(tt.anonymous), Authorizer: rec},
			})
			c := clientWith(t, p, tt.cert)
			got := authCall(t, c, "POST", base+"/apis/demo.io/v1/namespaces/ns/gizmos", bobHeaders,
				`{"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"name":"g"}}`)
			if got.proto != 2 {
				t.Errorf("HTTP/%d; want HTTP/2", got.proto)
			}
			want := 201
			if tt.want != 200 {
				want = tt.want
			}
			if got.code != want {
				t.Fatalf("POST = %d %s; want %d", got.code, got.body, want)
			}
			asked := rec.take()
			if tt.user == nil {
				const unauthorized = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}` + "\n"
				if got.body != unauthorized {
					t.Errorf("401 body %s; want %s", got.body, unauthorized)
				}
				if len(asked) != 0 {
					t.Errorf("the authorizer was asked about an unauthenticated request: %+v", asked)
				}
				return
			}
			if len(asked) != 1 {
				t.Fatalf("authorizer asked %d times", len(asked))
			}
			if diff := cmp.Diff(*tt.user, asked[0].User); diff != "" {
				t.Errorf("the authorizer's user (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]auth.User{*tt.user}, seen); diff != "" {
				t.Errorf("the handler's user (-want +got):\n%s", diff)
			}
		})
	}
}

// TestForgedHeadersOverHTTP: over plain HTTP there is no certificate, so
// a forged system:masters is nobody.
func TestForgedHeadersOverHTTP(t *testing.T) {
	p := newFrontProxyPKI(t)
	forged := http.Header{"X-Remote-User": {"admin"}, "X-Remote-Group": {"system:masters"}}
	authz := auth.Authorizers{auth.AllowPaths(auth.DefaultAlwaysAllowPaths), auth.AllowGroups{auth.SystemPrivilegedGroup}}
	for _, anonymous := range []bool{false, true} {
		s, err := server.New(server.Options{Resources: []*server.Resource{gizmos}, Security: server.SecurityOptions{Authenticator: p.authnFor(anonymous), Authorizer: authz}})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(s)
		got := authCall(t, ts.Client(), "GET", ts.URL+"/apis/demo.io/v1/namespaces/ns/gizmos", forged, "")
		want := authReply{401, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}` + "\n", 1}
		if anonymous {
			want = authReply{403, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"gizmos.demo.io is forbidden: User \"system:anonymous\" cannot list resource \"gizmos\" in API group \"demo.io\" in the namespace \"ns\"","reason":"Forbidden","details":{"group":"demo.io","kind":"gizmos"},"code":403}` + "\n", 1}
		}
		if got != want {
			t.Errorf("anonymous %v: got %+v\nwant %+v", anonymous, got, want)
		}
		// The probes still get through, as anonymous.
		if got := authCall(t, ts.Client(), "GET", ts.URL+"/readyz", forged, ""); anonymous && (got.code != 200 || got.body != "ok") {
			t.Errorf("anonymous /readyz: %+v", got)
		}
		s.Shutdown(context.Background())
		ts.Close()
	}
}

// TestAuthorizerAttributes: what the authorizer is asked for each verb,
// through the front proxy, and the exact 403 of a denial.
func TestAuthorizerAttributes(t *testing.T) {
	p := newFrontProxyPKI(t)
	rec := &recorder{decide: func(auth.Attributes) (auth.Decision, string, error) { return auth.DecisionNoOpinion, "", nil }}
	base := serveTLS(t, p, server.Options{Security: server.SecurityOptions{Authenticator: p.authnFor(false), Authorizer: rec}})
	c := clientWith(t, p, &p.proxy)
	bob := auth.User{Name: "bob", Groups: []string{"viewers", auth.AllAuthenticated}}
	hdr := http.Header{"X-Remote-User": {"bob"}, "X-Remote-Group": {"viewers"}}
	gizmo := func(verb, ns, name string) auth.Attributes {
		return auth.Attributes{User: bob, Verb: verb, ResourceRequest: true, Group: "demo.io", Version: "v1", Resource: "gizmos", Namespace: ns, Name: name}
	}
	path := func(verb string) auth.Attributes { return auth.Attributes{User: bob, Verb: verb} }
	const body = `{"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"name":"x"}}`
	tests := []struct {
		method, url, body string
		want              auth.Attributes
		message           string
	}{
		{"GET", "/apis/demo.io/v1/namespaces/ns/gizmos/x", "", gizmo("get", "ns", "x"),
			`gizmos.demo.io "x" is forbidden: User "bob" cannot get resource "gizmos" in API group "demo.io" in the namespace "ns"`},
		{"GET", "/apis/demo.io/v1/namespaces/ns/gizmos", "", gizmo("list", "ns", ""),
			`gizmos.demo.io is forbidden: User "bob" cannot list resource "gizmos" in API group "demo.io" in the namespace "ns"`},
		{"GET", "/apis/demo.io/v1/gizmos", "", gizmo("list", "", ""),
			`gizmos.demo.io is forbidden: User "bob" cannot list resource "gizmos" in API group "demo.io" at the cluster scope`},
		{"GET", "/apis/demo.io/v1/namespaces/ns/gizmos?watch=true&resourceVersion=0", "", gizmo("watch", "ns", ""),
			`gizmos.demo.io is forbidden: User "bob" cannot watch resource "gizmos" in API group "demo.io" in the namespace "ns"`},
		{"GET", "/apis/demo.io/v1/watch/namespaces/ns/gizmos/x", "", gizmo("watch", "ns", "x"),
			`gizmos.demo.io "x" is forbidden: User "bob" cannot watch resource "gizmos" in API group "demo.io" in the namespace "ns"`},
		{"GET", "/apis/demo.io/v1/namespaces/ns/gizmos?watch=1&fieldSelector=metadata.name%3Dx", "", gizmo("watch", "ns", "x"),
			`gizmos.demo.io "x" is forbidden: User "bob" cannot watch resource "gizmos" in API group "demo.io" in the namespace "ns"`},
		{"POST", "/apis/demo.io/v1/namespaces/ns/gizmos", body, gizmo("create", "ns", ""),
			`gizmos.demo.io is forbidden: User "bob" cannot create resource "gizmos" in API group "demo.io" in the namespace "ns"`},
		{"PUT", "/apis/demo.io/v1/namespaces/ns/gizmos/x", body, gizmo("update", "ns", "x"),
			`gizmos.demo.io "x" is forbidden: User "bob" cannot update resource "gizmos" in API group "demo.io" in the namespace "ns"`},
		{"PATCH", "/apis/demo.io/v1/namespaces/ns/gizmos/x", `{}`, gizmo("patch", "ns", "x"),
			`gizmos.demo.io "x" is forbidden: User "bob" cannot patch resource "gizmos" in API group "demo.io" in the namespace "ns"`},
		{"DELETE", "/apis/demo.io/v1/namespaces/ns/gizmos/x", "", gizmo("delete", "ns", "x"),
			`gizmos.demo.io "x" is forbidden: User "bob" cannot delete resource "gizmos" in API group "demo.io" in the namespace "ns"`},
		{"DELETE", "/apis/demo.io/v1/namespaces/ns/gizmos", "", gizmo("deletecollection", "ns", ""),
			`gizmos.demo.io is forbidden: User "bob" cannot deletecollection resource "gizmos" in API group "demo.io" in the namespace "ns"`},
		{"GET", "/apis/demo.io/v1/namespaces/ns/gizmos/x/status", "", func() auth.Attributes { a := gizmo("get", "ns", "x"); a.Subresource = "status"; return a }(),
			`gizmos.demo.io "x" is forbidden: User "bob" cannot get resource "gizmos/status" in API group "demo.io" in the namespace "ns"`},
		{"GET", "/apis/demo.io/v1/namespaces/ns/nothings", "", func() auth.Attributes { a := gizmo("list", "ns", ""); a.Resource = "nothings"; return a }(),
			`nothings.demo.io is forbidden: User "bob" cannot list resource "nothings" in API group "demo.io" in the namespace "ns"`},
		{"GET", "/apis/demo.io/v1", "", path("get"), `forbidden: User "bob" cannot get path "/apis/demo.io/v1"`},
		{"GET", "/version", "", path("get"), `forbidden: User "bob" cannot get path "/version"`},
		{"GET", "/openapi/v2", "", path("get"), `forbidden: User "bob" cannot get path "/openapi/v2"`},
		{"GET", "/healthz", "", path("get"), `forbidden: User "bob" cannot get path "/healthz"`},
	}
	for _, tt := range tests {
		got := authCall(t, c, tt.method, base+tt.url, hdr, tt.body)
		want := tt.want
		want.Path = strings.SplitN(tt.url, "?", 2)[0]
		asked := rec.take()
		if len(asked) != 1 {
			t.Errorf("%s %s: authorizer asked %d times", tt.method, tt.url, len(asked))
			continue
		}
		if diff := cmp.Diff(want, asked[0]); diff != "" {
			t.Errorf("%s %s: attributes (-want +got):\n%s", tt.method, tt.url, diff)
		}
		if got.code != 403 || !strings.Contains(got.body, `"message":"`+strings.ReplaceAll(tt.message, `"`, `\"`)+`"`) {
			t.Errorf("%s %s = %d %s; want 403 with message %s", tt.method, tt.url, got.code, got.body, tt.message)
		}
	}

	// The whole body of the issue's example, byte for byte.
	got := authCall(t, c, "GET", base+"/apis/demo.io/v1/namespaces/ns/gizmos/x", hdr, "")
	const want = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"gizmos.demo.io \"x\" is forbidden: User \"bob\" cannot get resource \"gizmos\" in API group \"demo.io\" in the namespace \"ns\"","reason":"Forbidden","details":{"name":"x","group":"demo.io","kind":"gizmos"},"code":403}` + "\n"
	if got.body != want {
		t.Errorf("403 body\n got %s\nwant %s", got.body, want)
	}
}

// TestAuthorizerError: an authorizer that cannot decide refuses, as
// Kubernetes does, with a plain-text 500 that names the request.
func TestAuthorizerError(t *testing.T) {
	p := newFrontProxyPKI(t)
	rec := &recorder{decide: func(auth.Attributes) (auth.Decision, string, error) {
		return auth.DecisionNoOpinion, "", errors.New("Post \"https://host/apis/authorization.k8s.io/v1/subjectaccessreviews\": context deadline exceeded")
	}}
	base := serveTLS(t, p, server.Options{Security: server.SecurityOptions{Authenticator: p.authnFor(false), Authorizer: rec}})
	got := authCall(t, clientWith(t, p, &p.proxy), "GET", base+"/apis/demo.io/v1/namespaces/ns/gizmos/x?y=<b>&z", http.Header{"X-Remote-User": {"bob"}}, "")
	want := authReply{500, `Internal Server Error: "/apis/demo.io/v1/namespaces/ns/gizmos/x?y=&lt;b&gt;&amp;z": Post "https://host/apis/authorization.k8s.io/v1/subjectaccessreviews": context deadline exceeded` + "\n", 2}
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestServingAdvertisesClientCAs: the handshake names both client CAs,
// so clients such as curl and kubectl pick the right certificate.
func TestServingAdvertisesClientCAs(t *testing.T) {
	p := newFrontProxyPKI(t)
	base := serveTLS(t, p, server.Options{Security: server.SecurityOptions{Authenticator: p.authnFor(true), Authorizer: auth.AlwaysAllow{}}})
	var names []string
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.servingCA.Pool(),
		GetClientCertificate: func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
			for _, der := range cri.AcceptableCAs {
				names = append(names, string(der)) // DER-encoded subjects
			}
			return &tls.Certificate{}, nil
		}}}
	defer tr.CloseIdleConnections()
	if got := authCall(t, &http.Client{Transport: tr}, "GET", base+"/healthz", nil, ""); got.code != 200 {
		t.Fatalf("/healthz: %+v", got)
	}
	want := []string{string(p.proxyCA.Cert.RawSubject), string(p.clientCA.Cert.RawSubject)}
	if !cmp.Equal(want, names, cmpopts.SortSlices(func(a, b string) bool { return a < b })) {
		t.Errorf("the server names %d acceptable CAs; want the proxy CA and the client CA", len(names))
	}
}

// TestRequestLogNamesUser: the request log says who sent each request
// (the authenticated user, anonymous included), through the deadline's
// writer and on a watch alike; without an authenticator it says nothing.
func TestRequestLogNamesUser(t *testing.T) {
	bob := auth.AuthenticatorFunc(func(r *http.Request) (auth.User, bool, error) {
		if r.Header.Get("Authorization") == "" {
			return auth.User{}, false, errors.New("no token")
		}
		return auth.User{Name: "bob"}, true, nil
	})
	for _, tc := range []struct {
		name   string
		authn  auth.Authenticator
		target string
		token  bool
		want   string
	}{
		{"list", bob, "/apis/demo.io/v1/namespaces/ns/gizmos", true, " code=200 "},
		{"watch", bob, "/apis/demo.io/v1/namespaces/ns/gizmos?watch=1&timeoutSeconds=-1", true, " code=200 "},
		{"unauthenticated", bob, "/apis/demo.io/v1/namespaces/ns/gizmos", false, " code=401 "},
		{"anonymous", auth.Chain{Anonymous: true}, "/readyz", false, " code=200 "},
		{"no authenticator", nil, "/readyz", false, " code=200 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log logBuffer
			s, err := server.New(server.Options{Resources: []*server.Resource{gizmos},
				Logger:   slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
				Security: server.SecurityOptions{Authenticator: tc.authn},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			req := httptest.NewRequest("GET", tc.target, nil)
			if tc.token {
				req.Header.Set("Authorization", "Bearer x")
			}
			s.ServeHTTP(httptest.NewRecorder(), req)
			line := ""
			for l := range strings.Lines(log.String()) {
				if strings.Contains(l, "msg=request") {
					line = l
				}
			}
			want := ""
			switch {
			case tc.token:
				want = "user=bob"
			case tc.name == "anonymous":
				want = "user=system:anonymous"
			}
			if !strings.Contains(line, tc.want) || want != "" && !strings.HasSuffix(line, want+"\n") || want == "" && strings.Contains(line, "user=") {
				t.Errorf("request log %q, want %q and %q", line, tc.want, want)
			}
		})
	}
}
