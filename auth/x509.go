package auth

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"time"
)

// ErrNoCA is the error of an authenticator that verifies certificates
// but has no CA: verifying against the system roots instead would accept
// any publicly issued certificate.
var ErrNoCA = errors.New("auth: no certificate authority configured")

// MaxIntermediates is how many of the certificates a client sends after
// its own are considered as intermediates when its certificate is
// verified; the rest are ignored. TLS asks a client to send its chain in
// order, the issuer of each certificate right after it (RFC 8446,
// section 4.4.2), so a real chain is within the first few.
//
// The bound is apisem's own. Kubernetes (k8s.io/apiserver
// pkg/authentication/request/x509) adds every certificate the client sent
// and verifies on every request; Go's crypto/x509 stops a verification
// after 100 signature checks, and crypto/tls takes certificate messages
// of up to 256 KiB. A client could thus make each verification cost 100
// signature checks with as many decoy issuers; with the bound it costs at
// most MaxIntermediates, and it is made once per connection (see
// ConnVerifier). mozilla::pkix, Firefox's verifier,
// allows at most 6 intermediate CAs in a path; 8 leaves room for
// cross-signed chains.
const MaxIntermediates = 8

// verifyClient verifies the client certificate of a TLS connection
// against roots, for client authentication, with up to MaxIntermediates
// of the other certificates the client sent as intermediates, or returns
// what an earlier verification of the connection against equal roots
// answered if it still holds at now. It returns nil and no error when the
// client sent no certificate (or the connection is not TLS).
func (v *ConnVerifier) verifyClient(state *tls.ConnectionState, roots *x509.CertPool, now time.Time) (*x509.Certificate, error) {
	if state == nil || len(state.PeerCertificates) == 0 {
		return nil, nil
	}
	if roots == nil {
		return nil, ErrNoCA
	}
	return v.verify(state, roots, now)
}

// verifyChain verifies peers[0] against roots at now, with up to
// MaxIntermediates of peers[1:] as intermediates. It returns the times
// between which the answer holds: for a certificate that verifies, the
// validity of the chain found (every certificate of it, root included);
// for one that does not, from now until the first of peers' certificates
// that is not valid yet becomes valid, which could change the answer.
// Expiry can only turn a success into a failure, never the reverse.
func verifyChain(peers []*x509.Certificate, roots *x509.CertPool, now time.Time) (leaf *x509.Certificate, from, until time.Time, err error) {
	leaf = peers[0]
	inter := peers[1:]
	if len(inter) > MaxIntermediates {
		inter = inter[:MaxIntermediates]
	}
	opts := x509.VerifyOptions{
		Roots:       roots,
		CurrentTime: now,
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if len(inter) > 0 {
		opts.Intermediates = x509.NewCertPool()
		for _, c := range inter {
			opts.Intermediates.AddCert(c)
		}
	}
	chains, err := leaf.Verify(opts)
	if err != nil {
		until = forever
		for _, c := range peers[:1+len(inter)] {
			if c.NotBefore.After(now) && c.NotBefore.Before(until) {
				until = c.NotBefore
			}
		}
		return nil, now, until, err
	}
	from, until = chains[0][0].NotBefore, chains[0][0].NotAfter
	for _, c := range chains[0][1:] {
		if c.NotBefore.After(from) {
			from = c.NotBefore
		}
		if c.NotAfter.Before(until) {
			until = c.NotAfter
		}
	}
	// A certificate is valid at its NotAfter itself (crypto/x509).
	return leaf, from, until.Add(time.Nanosecond), nil
}

// forever is the end of a failure's validity when time alone cannot
// change it.
var forever = time.Unix(1<<62, 0)

// ClientCert authenticates requests by their TLS client certificate, as
// Kubernetes' --client-ca-file does: a certificate that chains to CA names
// the user by its subject's common name and the groups by its
// organizations. A certificate without a common name is no user; one
// that does not verify is an error.
//
// A connection's certificate is verified once, at its first request, and
// the answer reused by the connection's later requests for as long as it
// holds: see ConnVerifier. Only the first MaxIntermediates certificates
// the client sent after its own are considered as intermediates. CA and
// Verifier must not be changed after first use, nor a ClientCert copied.
//
// The server's tls.Config must request client certificates without
// verifying them itself (tls.RequestClientCert), so that a bad
// certificate is a 401 rather than a failed handshake; see
// certs.ServerConfig.
type ClientCert struct {
	CA *x509.CertPool // required: without it every certificate fails
	// Verifier verifies certificates and remembers its answers per
	// connection; nil means one of the ClientCert's own. Give the
	// server's RequestHeader the same one to verify a connection once
	// for both.
	Verifier *ConnVerifier
	// Now is the clock certificates are checked against; nil means
	// time.Now.
	Now func() time.Time

	own ConnVerifier // used when Verifier is nil
}

// verifier returns the ConnVerifier in effect.
func (c *ClientCert) verifier() *ConnVerifier {
	if c.Verifier != nil {
		return c.Verifier
	}
	return &c.own
}

// AuthenticateRequest implements Authenticator.
func (c *ClientCert) AuthenticateRequest(r *http.Request) (User, bool, error) {
	leaf, err := c.verifier().verifyClient(r.TLS, c.CA, now(c.Now))
	if leaf == nil || err != nil || leaf.Subject.CommonName == "" {
		return User{}, false, err
	}
	return User{Name: leaf.Subject.CommonName, Groups: leaf.Subject.Organization}, true, nil
}

func now(f func() time.Time) time.Time {
	if f == nil {
		return time.Now()
	}
	return f()
}
