package auth_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/auth"
)

// FuzzRequestHeader feeds arbitrary headers, one "name: value" a line,
// to a RequestHeader, from a trusted front proxy or from nobody: it must
// not panic, must strip every header it reads, must believe nothing
// without the certificate, and must read the user the documented way.
func FuzzRequestHeader(f *testing.F) {
	f.Add("X-Remote-User: bob\nX-Remote-Group: system:masters\nX-Remote-Extra-Scopes: a", true)
	f.Add("x-remote-user: bob\nX-REMOTE-EXTRA-%41%zz: v\nX-Remote-Uid: 1", false)
	f.Add("X-Remote-User: \nX-Remote-User: eve\nX-Remote-Extra-: x", true)
	f.Add("X-Remote-Group: a\nAccept: */*", true)
	p := newPKI(f)
	rh := &auth.RequestHeader{CA: p.proxyCA.Pool(), AllowedNames: []string{"front-proxy-client"}}
	names := auth.DefaultHeaderNames()
	f.Fuzz(func(t *testing.T, lines string, trusted bool) {
		h := http.Header{}
		for _, l := range strings.Split(lines, "\n") {
			k, v, _ := strings.Cut(l, ":")
			h[k] = append(h[k], strings.TrimSpace(v)) // raw keys, as a hostile client's may be
		}
		wantName := h.Get("X-Remote-User")
		r := httptest.NewRequest("GET", "/", nil)
		r.Header = h
		if trusted {
			r.TLS = tlsState(&p.proxy)
		}
		u, ok, err := rh.AuthenticateRequest(r)
		if err != nil {
			t.Fatalf("error %v", err)
		}
		if !trusted && ok {
			t.Fatalf("believed %+v without a certificate", u)
		}
		if trusted && (ok != (wantName != "") || u.Name != wantName) {
			t.Fatalf("user %+v, %v; want name %q", u, ok, wantName)
		}
		for k := range r.Header {
			s := strings.ToLower(k)
			if s == "x-remote-user" || s == "x-remote-uid" || s == "x-remote-group" || strings.HasPrefix(s, "x-remote-extra-") {
				t.Fatalf("header %q left in the request", k)
			}
		}
		if _, ok := names.User(r.Header); ok {
			t.Fatal("a user can still be read from the stripped headers")
		}
	})
}

// FuzzBearerTokenOf: no panic; a token has no spaces, and it round-trips
// unless it begins or ends with other blanks (Kubernetes splits on spaces
// only, so "Bearer \t x" carries the token "\t", which no review accepts;
// so do we).
func FuzzBearerTokenOf(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer  abc", "Bearer", " Bearer a b c ", "Basic x", "BEARER\ttok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		tok, ok := auth.BearerTokenOf(header)
		if !ok {
			return
		}
		if tok == "" || strings.Contains(tok, " ") {
			t.Fatalf("token %q from %q", tok, header)
		}
		if strings.TrimSpace(tok) != tok {
			return
		}
		if again, ok := auth.BearerTokenOf("Bearer " + tok); !ok || again != tok {
			t.Fatalf("%q does not round-trip: %q, %v", tok, again, ok)
		}
	})
}

// FuzzClientCertificates presents arbitrary certificate chains (whatever
// of the bytes parses as DER) to the certificate authenticators: they
// must not panic, and nothing the fuzzer makes may authenticate, since it
// cannot sign with the test CAs' keys.
func FuzzClientCertificates(f *testing.F) {
	p := newPKI(f)
	f.Add(p.rogue.Certificate[0], p.rogue.Certificate[1])
	f.Add(p.otherProxy.Certificate[0], p.proxyCA.Cert.Raw)
	f.Add(p.alice.Certificate[0], []byte{})
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x00}, p.proxy.Certificate[1])
	rh := &auth.RequestHeader{CA: p.proxyCA.Pool(), AllowedNames: []string{"front-proxy-client"}}
	cc := &auth.ClientCert{CA: p.clientCA.Pool()}
	trusted := []*x509.Certificate{p.proxy.Leaf, p.otherProxy.Leaf, p.alice.Leaf, p.proxyCA.Cert, p.clientCA.Cert}
	f.Fuzz(func(t *testing.T, leaf, intermediate []byte) {
		state := &tls.ConnectionState{}
		for _, der := range [][]byte{leaf, intermediate} {
			if c, err := x509.ParseCertificate(der); err == nil {
				state.PeerCertificates = append(state.PeerCertificates, c)
			}
		}
		// The fuzzer may copy a trusted certificate from a seed: the
		// proxy's, or the CA's own (which verifies as a leaf, as in
		// Kubernetes). Presenting one over TLS takes its private key,
		// which the handshake proves and the fuzzer does not have.
		if len(state.PeerCertificates) > 0 && slices.ContainsFunc(trusted, state.PeerCertificates[0].Equal) {
			return
		}
		for _, a := range []auth.Authenticator{rh, cc} {
			r := httptest.NewRequest("GET", "/", nil)
			r.TLS = state
			r.Header.Set("X-Remote-User", "eve")
			if u, ok, _ := a.AuthenticateRequest(r); ok {
				t.Fatalf("%T authenticated %+v", a, u)
			}
		}
	})
}
