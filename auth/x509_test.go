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
// -client-ca-file and -requestheader-client-ca-file of one file). The
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
	chain := auth.Chain{
		RequestHeader: &auth.RequestHeader{CA: ca.Pool()},
		ClientCert:    &auth.ClientCert{CA: ca.Pool()},
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
	b.Run("connection", func(b *testing.B) {
		s := withDecoys(&cert, ds)
		run(b, func() *tls.ConnectionState { return s })
	})
	b.Run("new connection", func(b *testing.B) {
		s := withDecoys(&cert, ds)
		run(b, func() *tls.ConnectionState { c := *s; return &c })
	})
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
// its first request only, once for both the front proxy and client
// certificates when they trust the same CA, once each when not; another
// connection with the same certificate is verified on its own.
func TestVerifyOncePerConnection(t *testing.T) {
	p := newPKI(t)
	rogue, err := newCAWithName(t, "client-ca").IssueClient("mallory")
	if err != nil {
		t.Fatal(err)
	}
	decoyed := func() *tls.ConnectionState { return withDecoys(&rogue, decoys(t, p.clientCA, 20)) }
	pool := p.clientCA.Pool()
	tests := []struct {
		name    string
		chain   auth.Chain
		state   func() *tls.ConnectionState
		ok      bool
		wantErr func(error) bool
		want    int // verifications per connection
	}{
		{"one pool for both", auth.Chain{RequestHeader: &auth.RequestHeader{CA: pool}, ClientCert: &auth.ClientCert{CA: pool}},
			func() *tls.ConnectionState { return tlsState(&p.alice) }, true, noErr, 1},
		{"equal pools", auth.Chain{RequestHeader: &auth.RequestHeader{CA: p.clientCA.Pool()}, ClientCert: &auth.ClientCert{CA: p.clientCA.Pool()}},
			func() *tls.ConnectionState { return tlsState(&p.alice) }, true, noErr, 1},
		{"different CAs", auth.Chain{RequestHeader: &auth.RequestHeader{CA: p.proxyCA.Pool()}, ClientCert: &auth.ClientCert{CA: pool}},
			func() *tls.ConnectionState { return tlsState(&p.alice) }, true, noErr, 2},
		{"front proxy only", auth.Chain{RequestHeader: &auth.RequestHeader{CA: p.proxyCA.Pool()}},
			func() *tls.ConnectionState { return tlsState(&p.proxy) }, false, noErr, 1},
		{"decoy intermediates, one pool", auth.Chain{RequestHeader: &auth.RequestHeader{CA: pool}, ClientCert: &auth.ClientCert{CA: pool}},
			decoyed, false, unknownAuthority, 1},
		{"decoy intermediates, two pools", auth.Chain{RequestHeader: &auth.RequestHeader{CA: p.proxyCA.Pool()}, ClientCert: &auth.ClientCert{CA: pool}},
			decoyed, false, unknownAuthority, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for conn := range 2 {
				s := tt.state()
				_, ok, err := get(tt.chain, s, 10)
				if ok != tt.ok || !tt.wantErr(err) {
					t.Fatalf("connection %d: AuthenticateRequest = %v, %v; want %v", conn, ok, err, tt.ok)
				}
				if got := auth.Verifications(s); got != tt.want {
					t.Errorf("connection %d: verified %d times in 10 requests; want %d", conn, got, tt.want)
				}
			}
		})
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
		if got := auth.Verifications(s); got != st.want {
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

// TestVerifyCacheForgetsConnections: the cache holds no connection state
// alive and lets go of its entry once the state is collected.
func TestVerifyCacheForgetsConnections(t *testing.T) {
	p := newPKI(t)
	cc := &auth.ClientCert{CA: p.clientCA.Pool()}
	before := auth.VerifiedConns()
	func() {
		states := make([]*tls.ConnectionState, 50)
		for i := range states {
			states[i] = tlsState(&p.alice)
			if _, ok, err := get(cc, states[i], 2); !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
		for i, s := range states {
			if n := auth.Verifications(s); n != 1 {
				t.Fatalf("connection %d: %d verifications remembered; want 1", i, n)
			}
		}
	}()
	// Cleanups run on their own goroutine after a collection.
	for i := 0; i < 1000 && auth.VerifiedConns() > before; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if n := auth.VerifiedConns(); n > before {
		t.Errorf("%d connections remembered after they were collected; want at most %d", n, before)
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
	if got := auth.Verifications(s); got != 1 {
		t.Errorf("%d verifications for 40 concurrent requests of one connection; want 1", got)
	}
}
