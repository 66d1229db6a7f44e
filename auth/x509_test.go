package auth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/auth/certs"
)

// decoys returns n CA certificates that each claim to be ca (same subject,
// same subject key id) but are signed by keys of their own: a verifier
// handed them as intermediates must check a signature against each
// before it gives up on them.
func decoys(t testing.TB, ca *certs.CA, n int) []*x509.Certificate {
	t.Helper()
	out := make([]*x509.Certificate, n)
	for i := range out {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber:          big.NewInt(int64(i + 2)),
			Subject:               ca.Cert.Subject,
			SubjectKeyId:          ca.Cert.SubjectKeyId,
			NotBefore:             ca.Cert.NotBefore,
			NotAfter:              ca.Cert.NotAfter,
			KeyUsage:              x509.KeyUsageCertSign,
			BasicConstraintsValid: true,
			IsCA:                  true,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = x509.ParseCertificate(der); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// withDecoys is the connection state of a client presenting c followed by
// the decoys.
func withDecoys(c *tls.Certificate, decoys []*x509.Certificate) *tls.ConnectionState {
	s := tlsState(c)
	s.PeerCertificates = append(s.PeerCertificates[:1:1], decoys...)
	return s
}

// newCAWithName returns a CA called name, for decoys of a CA a server
// trusts.
func newCAWithName(t testing.TB, name string) *certs.CA {
	t.Helper()
	ca, err := certs.NewCA(name)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// BenchmarkChainDecoyIntermediates is the cost per request of a client
// whose certificate nobody trusts sent with 100 decoy intermediates
// claiming to be the trusted CA, through a Chain with both the front
// proxy and client certificates on the same CA (as a server started with
// -client-ca-file and -requestheader-client-ca-file of one file), the two
// authenticators sharing a ConnVerifier or each with its own. The
// "connection" case is every request of one connection; "new connection"
// the first request of each.
func BenchmarkChainDecoyIntermediates(b *testing.B) {
	ca := newCAWithName(b, "cluster-ca")
	rogue := newCAWithName(b, "cluster-ca") // same name, other key
	cert, err := rogue.IssueClient("mallory")
	if err != nil {
		b.Fatal(err)
	}
	ds := decoys(b, ca, 100)
	for _, shared := range []bool{true, false} {
		chain := auth.Chain{
			RequestHeader: &auth.RequestHeader{CA: ca.Pool()},
			ClientCert:    &auth.ClientCert{CA: ca.Pool()},
		}
		name := "own verifiers"
		if shared {
			v := &auth.ConnVerifier{}
			chain.RequestHeader.Verifier, chain.ClientCert.Verifier = v, v
			name = "shared verifier"
		}
		run := func(b *testing.B, state func() *tls.ConnectionState) {
			r := httptest.NewRequest("GET", "/api", nil)
			b.ReportAllocs()
			for b.Loop() {
				r.TLS = state()
				if _, ok, err := chain.AuthenticateRequest(r); ok || err == nil {
					b.Fatalf("AuthenticateRequest = %v, %v; want an error", ok, err)
				}
			}
		}
		b.Run(name+"/connection", func(b *testing.B) {
			s := withDecoys(&cert, ds)
			run(b, func() *tls.ConnectionState { return s })
		})
		b.Run(name+"/new connection", func(b *testing.B) {
			s := withDecoys(&cert, ds)
			run(b, func() *tls.ConnectionState { c := *s; return &c })
		})
	}
}

// intermediateCA returns a CA whose certificate root signs, valid until
// notAfter.
func intermediateCA(t testing.TB, root *certs.CA, name string, notAfter time.Time) *certs.CA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             root.Cert.NotBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, root.Cert, key.Public(), root.Key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &certs.CA{Cert: cert, Key: key}
}

// get sends n requests with the connection state s through a and returns
// the last answer.
func get(a auth.Authenticator, s *tls.ConnectionState, n int) (u auth.User, ok bool, err error) {
	for range n {
		r := httptest.NewRequest("GET", "/api", nil)
		r.TLS = s
		u, ok, err = a.AuthenticateRequest(r)
	}
	return u, ok, err
}

// TestVerifyOncePerConnection: a connection's certificate is verified at
// its first request only: once for both the front proxy and client
// certificates when they share a ConnVerifier and trust equal CAs, once
// each when not; another connection with the same certificate is
// verified on its own.
func TestVerifyOncePerConnection(t *testing.T) {
	p := newPKI(t)
	rogue, err := newCAWithName(t, "client-ca").IssueClient("mallory")
	if err != nil {
		t.Fatal(err)
	}
	decoyed := func() *tls.ConnectionState { return withDecoys(&rogue, decoys(t, p.clientCA, 20)) }
	alice := func() *tls.ConnectionState { return tlsState(&p.alice) }
	pool := p.clientCA.Pool()
	tests := []struct {
		name       string
		rhCA, ccCA *x509.CertPool // nil: no such authenticator
		shared     bool           // one ConnVerifier for both
		state      func() *tls.ConnectionState
		ok         bool
		wantErr    func(error) bool
		// verifications per connection: by the shared verifier, the
		// RequestHeader's own and the ClientCert's own
		want [3]int
	}{
		{"one pool, shared", pool, pool, true, alice, true, noErr, [3]int{1, 0, 0}},
		{"equal pools, shared", p.clientCA.Pool(), p.clientCA.Pool(), true, alice, true, noErr, [3]int{1, 0, 0}},
		{"one pool, own verifiers", pool, pool, false, alice, true, noErr, [3]int{0, 1, 1}},
		{"different CAs, shared", p.proxyCA.Pool(), pool, true, alice, true, noErr, [3]int{2, 0, 0}},
		{"front proxy only", p.proxyCA.Pool(), nil, false, func() *tls.ConnectionState { return tlsState(&p.proxy) }, false, noErr, [3]int{0, 1, 0}},
		{"decoy intermediates, shared", pool, pool, true, decoyed, false, unknownAuthority, [3]int{1, 0, 0}},
		{"decoy intermediates, own verifiers", pool, pool, false, decoyed, false, unknownAuthority, [3]int{0, 1, 1}},
		{"decoy intermediates, two pools, shared", p.proxyCA.Pool(), pool, true, decoyed, false, unknownAuthority, [3]int{2, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var shared *auth.ConnVerifier
			if tt.shared {
				shared = &auth.ConnVerifier{}
			}
			rh := &auth.RequestHeader{CA: tt.rhCA, Verifier: shared}
			cc := &auth.ClientCert{CA: tt.ccCA, Verifier: shared}
			var chain auth.Chain
			if tt.rhCA != nil {
				chain.RequestHeader = rh
			}
			if tt.ccCA != nil {
				chain.ClientCert = cc
			}
			if shared == nil {
				shared = &auth.ConnVerifier{} // to count nothing
			}
			for conn := range 2 {
				s := tt.state()
				_, ok, err := get(chain, s, 10)
				if ok != tt.ok || !tt.wantErr(err) {
					t.Fatalf("connection %d: AuthenticateRequest = %v, %v; want %v", conn, ok, err, tt.ok)
				}
				got := [3]int{shared.Verifications(s), rh.Own().Verifications(s), cc.Own().Verifications(s)}
				if got != tt.want {
					t.Errorf("connection %d: verifications in 10 requests (shared, front proxy's, client's) = %v; want %v", conn, got, tt.want)
				}
			}
		})
	}
}

// TestConnVerifierSharing: authenticators configured apart verify a
// connection once between them when given one ConnVerifier; with their
// own (the default) nothing of one is seen by the other.
func TestConnVerifierSharing(t *testing.T) {
	p := newPKI(t)
	shared := &auth.ConnVerifier{}
	a := &auth.ClientCert{CA: p.clientCA.Pool(), Verifier: shared}
	b := &auth.ClientCert{CA: p.clientCA.Pool(), Verifier: shared}
	s := tlsState(&p.alice)
	for _, cc := range []*auth.ClientCert{a, b, a, b} {
		if u, ok, err := get(cc, s, 2); !ok || err != nil || u.Name != "alice" {
			t.Fatalf("AuthenticateRequest = %v, %v, %v", u, ok, err)
		}
	}
	if n := shared.Verifications(s); n != 1 {
		t.Errorf("two ClientCerts sharing a verifier: %d verifications; want 1", n)
	}
	if n, m := a.Own().Len(), b.Own().Len(); n != 0 || m != 0 {
		t.Errorf("the ClientCerts' own verifiers remember %d and %d connections; want none", n, m)
	}

	own1 := &auth.ClientCert{CA: p.clientCA.Pool()}
	own2 := &auth.ClientCert{CA: p.clientCA.Pool()}
	s = tlsState(&p.alice)
	if _, ok, err := get(own1, s, 3); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if n, m := own1.Own().Verifications(s), own2.Own().Len(); n != 1 || m != 0 {
		t.Errorf("after the first ClientCert: it verified %d times, the other remembers %d connections; want 1 and 0", n, m)
	}
	if _, ok, err := get(own2, s, 3); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if n, m := own1.Own().Verifications(s), own2.Own().Verifications(s); n != 1 || m != 1 {
		t.Errorf("own verifiers: %d and %d verifications; want 1 each", n, m)
	}
	if n := shared.Len(); n != 1 {
		t.Errorf("the shared verifier remembers %d connections; want only the first", n)
	}
}

// TestVerifyCacheValidity: a remembered answer holds only while the
// certificates it rests on are valid, and a failure that time can turn
// into a success (a certificate not valid yet) is verified again.
func TestVerifyCacheValidity(t *testing.T) {
	root := newCAWithName(t, "root")
	start := time.Now()
	inter := intermediateCA(t, root, "short-lived", start.Add(time.Hour))
	leaf, err := inter.IssueClient("alice") // valid for a year, from an hour ago
	if err != nil {
		t.Fatal(err)
	}
	clock := start
	cc := &auth.ClientCert{CA: root.Pool(), Now: func() time.Time { return clock }}
	s := tlsState(&leaf) // alice, then inter
	steps := []struct {
		name string
		at   time.Time
		ok   bool
		want int // verifications so far
	}{
		{"valid", start, true, 1},
		{"still valid", start.Add(59 * time.Minute), true, 1},
		{"intermediate expired", start.Add(61 * time.Minute), false, 2},
		{"expired stays expired", start.Add(24 * time.Hour), false, 2},
		{"clock set back", start, true, 3},
		{"not valid yet", start.Add(-2 * time.Hour), false, 4},
		{"not valid yet, later", start.Add(-90 * time.Minute), false, 4},
		{"valid now", start, true, 5},
	}
	for _, st := range steps {
		clock = st.at
		_, ok, err := get(cc, s, 3)
		if ok != st.ok || ok != (err == nil) {
			t.Errorf("%s: AuthenticateRequest = %v, %v; want %v", st.name, ok, err, st.ok)
		}
		if got := cc.Own().Verifications(s); got != st.want {
			t.Errorf("%s: %d verifications so far; want %d", st.name, got, st.want)
		}
	}
}

// TestVerifyCacheKeepsConnectionsApart: what one connection's certificate
// answered is never another's, even when a connection state is changed in
// place.
func TestVerifyCacheKeepsConnectionsApart(t *testing.T) {
	p := newPKI(t)
	cc := &auth.ClientCert{CA: p.clientCA.Pool()}
	alice, proxy := tlsState(&p.alice), tlsState(&p.proxy)
	for range 3 {
		if u, ok, err := get(cc, alice, 1); !ok || err != nil || u.Name != "alice" {
			t.Fatalf("alice's connection: %v, %v, %v", u, ok, err)
		}
		if _, ok, err := get(cc, proxy, 1); ok || !unknownAuthority(err) {
			t.Fatalf("the other connection: %v, %v; want unknown authority", ok, err)
		}
	}
	// A state built by hand and given other certificates is verified
	// again.
	alice.PeerCertificates = tlsState(&p.proxy).PeerCertificates
	if _, ok, err := get(cc, alice, 1); ok || !unknownAuthority(err) {
		t.Fatalf("changed state: %v, %v; want unknown authority", ok, err)
	}
}

// TestVerifyCacheForgetsConnections: a ConnVerifier holds no connection
// state alive and lets go of its entry once the state is collected.
func TestVerifyCacheForgetsConnections(t *testing.T) {
	p := newPKI(t)
	cc := &auth.ClientCert{CA: p.clientCA.Pool()}
	v := cc.Own()
	func() {
		states := make([]*tls.ConnectionState, 50)
		for i := range states {
			states[i] = tlsState(&p.alice)
			if _, ok, err := get(cc, states[i], 2); !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
		for i, s := range states {
			if n := v.Verifications(s); n != 1 {
				t.Fatalf("connection %d: %d verifications remembered; want 1", i, n)
			}
		}
		if n := v.Len(); n != len(states) {
			t.Fatalf("%d connections remembered; want %d", n, len(states))
		}
	}()
	// Cleanups run on their own goroutine after a collection.
	for i := 0; i < 1000 && v.Len() > 0; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if n := v.Len(); n > 0 {
		t.Errorf("%d connections remembered after they were collected; want none", n)
	}
}

// TestMaxIntermediates: only the first MaxIntermediates certificates after
// the client's own are considered as intermediates.
func TestMaxIntermediates(t *testing.T) {
	root := newCAWithName(t, "root")
	inter := intermediateCA(t, root, "issuing-ca", root.Cert.NotAfter)
	leaf, err := inter.IssueClient("alice")
	if err != nil {
		t.Fatal(err)
	}
	x, err := x509.ParseCertificate(leaf.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	ds := decoys(t, inter, auth.MaxIntermediates)
	cc := &auth.ClientCert{CA: root.Pool()}
	for _, n := range []int{0, 1, auth.MaxIntermediates - 1, auth.MaxIntermediates} {
		// n decoys, then the real issuer.
		s := &tls.ConnectionState{PeerCertificates: append(append([]*x509.Certificate{x}, ds[:n]...), inter.Cert)}
		_, ok, err := get(cc, s, 1)
		if want := n < auth.MaxIntermediates; ok != want || (err == nil) != want {
			t.Errorf("issuer after %d decoys: AuthenticateRequest = %v, %v; want %v", n, ok, err, want)
		}
	}
}

// TestVerifyConcurrentRequests: requests of one connection arriving
// together (HTTP/2) wait for one verification.
func TestVerifyConcurrentRequests(t *testing.T) {
	p := newPKI(t)
	cc := &auth.ClientCert{CA: p.clientCA.Pool()}
	s := tlsState(&p.alice)
	done := make(chan error)
	for range 8 {
		go func() {
			_, ok, err := get(cc, s, 5)
			if !ok && err == nil {
				err = http.ErrNoCookie // any error: not authenticated
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if got := cc.Own().Verifications(s); got != 1 {
		t.Errorf("%d verifications for 40 concurrent requests of one connection; want 1", got)
	}
}
