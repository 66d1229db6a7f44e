package auth_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/auth/certs"
	"github.com/google/go-cmp/cmp"
)

// pki is a test PKI: the front proxy's CA and the clients' CA.
type pki struct {
	proxyCA, clientCA *certs.CA
	proxy             tls.Certificate // CN front-proxy-client, signed by proxyCA
	otherProxy        tls.Certificate // CN intruder, signed by proxyCA
	alice             tls.Certificate // CN alice, O dev and ops, signed by clientCA
	rogue             tls.Certificate // CN front-proxy-client, signed by a CA nobody trusts
}

func newPKI(t testing.TB) *pki {
	t.Helper()
	must := func(c tls.Certificate, err error) tls.Certificate {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	newCA := func(name string) *certs.CA {
		ca, err := certs.NewCA(name)
		if err != nil {
			t.Fatal(err)
		}
		return ca
	}
	p := &pki{proxyCA: newCA("front-proxy-ca"), clientCA: newCA("client-ca")}
	rogueCA := newCA("front-proxy-ca") // same name, other key
	p.proxy = must(p.proxyCA.IssueClient("front-proxy-client"))
	p.otherProxy = must(p.proxyCA.IssueClient("intruder"))
	p.alice = must(p.clientCA.IssueClient("alice", "dev", "ops"))
	p.rogue = must(rogueCA.IssueClient("front-proxy-client"))
	return p
}

// tlsState is the connection state of a client presenting c.
func tlsState(c *tls.Certificate) *tls.ConnectionState {
	s := &tls.ConnectionState{}
	if c != nil {
		for _, der := range c.Certificate {
			x, err := x509.ParseCertificate(der)
			if err != nil {
				panic(err)
			}
			s.PeerCertificates = append(s.PeerCertificates, x)
		}
	}
	return s
}

func proxyHeaders() http.Header {
	return http.Header{
		"X-Remote-User":                  {"bob"},
		"X-Remote-Uid":                   {"b-1"},
		"X-Remote-Group":                 {"system:masters", "dev"},
		"X-Remote-Extra-Scopes":          {"a", "b"},
		"X-Remote-Extra-Acme.com%2fteam": {"x"},
		"Accept":                         {"application/json"},
	}
}

func TestRequestHeader(t *testing.T) {
	p := newPKI(t)
	rh := &auth.RequestHeader{CA: p.proxyCA.Pool(), AllowedNames: []string{"front-proxy-client"}}
	bob := auth.User{Name: "bob", UID: "b-1", Groups: []string{"system:masters", "dev"},
		Extra: map[string][]string{"scopes": {"a", "b"}, "acme.com/team": {"x"}}}
	tests := []struct {
		name    string
		rh      *auth.RequestHeader
		tls     *tls.ConnectionState
		want    auth.User
		ok      bool
		wantErr func(error) bool
	}{
		{"allowed proxy certificate", rh, tlsState(&p.proxy), bob, true, noErr},
		{"any name when none are listed", &auth.RequestHeader{CA: p.proxyCA.Pool()}, tlsState(&p.otherProxy), bob, true, noErr},
		{"name not allowed", rh, tlsState(&p.otherProxy), auth.User{}, false, notAllowed("intruder")},
		{"certificate of another CA", rh, tlsState(&p.rogue), auth.User{}, false, unknownAuthority},
		{"client certificate of the client CA", rh, tlsState(&p.alice), auth.User{}, false, unknownAuthority},
		{"TLS without a certificate", rh, tlsState(nil), auth.User{}, false, noErr},
		{"plain HTTP", rh, nil, auth.User{}, false, noErr},
		{"no CA configured", &auth.RequestHeader{}, tlsState(&p.proxy), auth.User{}, false, is(auth.ErrNoCA)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/v1/configmaps", nil)
			r.Header = proxyHeaders()
			r.TLS = tt.tls
			u, ok, err := tt.rh.AuthenticateRequest(r)
			if ok != tt.ok || !tt.wantErr(err) {
				t.Fatalf("AuthenticateRequest = %v, %v; want %v", ok, err, tt.ok)
			}
			if diff := cmp.Diff(tt.want, u); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
			// Believed or not, the assertion is gone.
			if diff := cmp.Diff(http.Header{"Accept": {"application/json"}}, r.Header); diff != "" {
				t.Errorf("headers after authentication (-want +got):\n%s", diff)
			}
		})
	}
}

// Error matchers.
func noErr(err error) bool { return err == nil }
func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}
func unknownAuthority(err error) bool {
	var e x509.UnknownAuthorityError
	return errors.As(err, &e)
}
func incompatibleUsage(err error) bool {
	var e x509.CertificateInvalidError
	return errors.As(err, &e) && e.Reason == x509.IncompatibleUsage
}
func notAllowed(cn string) func(error) bool {
	return func(err error) bool {
		var e *auth.NotAllowedError
		return errors.As(err, &e) && e.CommonName == cn
	}
}

// isText matches the message a reviewer gave: it is the client's to read.
func isText(msg string) func(error) bool {
	return func(err error) bool { return err != nil && err.Error() == msg }
}

func TestRequestHeaderNames(t *testing.T) {
	p := newPKI(t)
	rh := &auth.RequestHeader{
		CA:                  p.proxyCA.Pool(),
		UsernameHeaders:     []string{"X-Proxy-User", "X-Remote-User"},
		UIDHeaders:          []string{},
		GroupHeaders:        []string{"X-Proxy-Group", "X-Proxy-Group2"},
		ExtraHeaderPrefixes: []string{"X-Proxy-Extra-", "X-Remote-Extra-"},
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.TLS = tlsState(&p.proxy)
	r.Header = http.Header{
		"X-Proxy-User":          {""},
		"X-Remote-User":         {"carol"}, // the first non-empty value wins
		"X-Remote-Uid":          {"ignored"},
		"X-Proxy-Group":         {"a", ""},
		"X-Proxy-Group2":        {"b"},
		"X-Proxy-Extra-Key":     {"1"},
		"X-Remote-Extra-Key":    {"2"},
		"X-Remote-Extra-Bad%zz": {"3"}, // does not %-decode: kept as sent
		"x-proxy-extra-raw":     {"4"}, // a key net/http did not canonicalize
	}
	u, ok, err := rh.AuthenticateRequest(r)
	if !ok || err != nil {
		t.Fatalf("AuthenticateRequest = %v, %v", ok, err)
	}
	want := auth.User{Name: "carol", Groups: []string{"a", "b"},
		Extra: map[string][]string{"key": {"1", "2"}, "bad%zz": {"3"}, "raw": {"4"}}}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("user (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(http.Header{"X-Remote-Uid": {"ignored"}}, r.Header); diff != "" {
		t.Errorf("headers left (-want +got):\n%s", diff)
	}
}

func TestClientCert(t *testing.T) {
	p := newPKI(t)
	cc := &auth.ClientCert{CA: p.clientCA.Pool()}
	noCN, err := p.clientCA.IssueClient("", "dev")
	if err != nil {
		t.Fatal(err)
	}
	serving, err := p.clientCA.IssueServing("localhost")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		tls     *tls.ConnectionState
		want    auth.User
		ok      bool
		wantErr func(error) bool
	}{
		{"CN and O", tlsState(&p.alice), auth.User{Name: "alice", Groups: []string{"dev", "ops"}}, true, noErr},
		{"no common name", tlsState(&noCN), auth.User{}, false, noErr},
		{"other CA", tlsState(&p.proxy), auth.User{}, false, unknownAuthority},
		{"serving certificate", tlsState(&serving), auth.User{}, false, incompatibleUsage},
		{"no certificate", tlsState(nil), auth.User{}, false, noErr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.TLS = tt.tls
			u, ok, err := cc.AuthenticateRequest(r)
			if ok != tt.ok || !tt.wantErr(err) {
				t.Fatalf("AuthenticateRequest = %v, %v; want %v", ok, err, tt.ok)
			}
			if diff := cmp.Diff(tt.want, u); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
		})
	}
}

// tokens is a TokenReviewer that knows a fixed set of tokens and counts
// its reviews.
type tokens struct {
	users map[string]auth.User
	calls int
	err   error
}

func (f *tokens) ReviewToken(_ context.Context, token string) (auth.TokenReview, error) {
	f.calls++
	if f.err != nil {
		return auth.TokenReview{}, f.err
	}
	u, ok := f.users[token]
	if !ok {
		return auth.TokenReview{Error: "token not found"}, nil
	}
	return auth.TokenReview{Authenticated: true, User: u}, nil
}

func TestChain(t *testing.T) {
	p := newPKI(t)
	rev := &tokens{users: map[string]auth.User{"t0k3n": {Name: "dave", Groups: []string{"devs"}}}}
	chain := auth.Chain{
		RequestHeader: &auth.RequestHeader{CA: p.proxyCA.Pool(), AllowedNames: []string{"front-proxy-client"}},
		ClientCert:    &auth.ClientCert{CA: p.clientCA.Pool()},
		Token:         &auth.BearerToken{Reviewer: rev},
	}
	anon := chain
	anon.Anonymous = true
	authed := []string{auth.AllAuthenticated}
	tests := []struct {
		name    string
		chain   auth.Chain
		cert    *tls.Certificate
		header  http.Header
		want    auth.User
		ok      bool
		wantErr func(error) bool
	}{
		{"front proxy", chain, &p.proxy, http.Header{"X-Remote-User": {"bob"}}, auth.User{Name: "bob", Groups: authed}, true, noErr},
		{"front proxy that says authenticated", chain, &p.proxy, http.Header{"X-Remote-User": {"bob"}, "X-Remote-Group": {"system:authenticated"}},
			auth.User{Name: "bob", Groups: authed}, true, noErr},
		{"client certificate", chain, &p.alice, nil, auth.User{Name: "alice", Groups: []string{"dev", "ops", auth.AllAuthenticated}}, true, noErr},
		{"client certificate and forged headers", chain, &p.alice, http.Header{"X-Remote-User": {"bob"}},
			auth.User{Name: "alice", Groups: []string{"dev", "ops", auth.AllAuthenticated}}, true, noErr},
		{"token", chain, nil, http.Header{"Authorization": {"Bearer t0k3n"}}, auth.User{Name: "dave", Groups: []string{"devs", auth.AllAuthenticated}}, true, noErr},
		{"bad token", chain, nil, http.Header{"Authorization": {"Bearer nope"}}, auth.User{}, false, isText("token not found")},
		{"bad token, anonymous allowed", anon, nil, http.Header{"Authorization": {"Bearer nope"}}, auth.User{}, false, isText("token not found")},
		{"nothing", chain, nil, nil, auth.User{}, false, noErr},
		{"nothing, anonymous allowed", anon, nil, nil, auth.User{Name: auth.Anonymous, Groups: []string{auth.AllUnauthenticated}}, true, noErr},
		{"forged headers without certificate, anonymous allowed", anon, nil, http.Header{"X-Remote-User": {"bob"}, "X-Remote-Group": {"system:masters"}},
			auth.User{Name: auth.Anonymous, Groups: []string{auth.AllUnauthenticated}}, true, noErr},
		{"headers with an unknown certificate, anonymous allowed", anon, &p.rogue, http.Header{"X-Remote-User": {"bob"}}, auth.User{}, false,
			unknownAuthority},
		{"zero chain", auth.Chain{}, &p.proxy, http.Header{"X-Remote-User": {"bob"}}, auth.User{}, false, noErr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			if tt.header != nil {
				r.Header = tt.header.Clone()
			}
			r.TLS = tlsState(tt.cert)
			u, ok, err := tt.chain.AuthenticateRequest(r)
			if ok != tt.ok || !tt.wantErr(err) {
				t.Fatalf("AuthenticateRequest = %v, %v; want %v", ok, err, tt.ok)
			}
			if diff := cmp.Diff(tt.want, u); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
			for k := range r.Header {
				if strings.HasPrefix(k, "X-Remote-") {
					t.Errorf("header %s left for the handler", k)
				}
			}
		})
	}
}
