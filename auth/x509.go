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

// verifyClient verifies the client certificate of a TLS connection
// against roots, for client authentication, with the other certificates
// the client sent as intermediates. It returns nil and no error when the
// client sent no certificate (or the connection is not TLS).
func verifyClient(state *tls.ConnectionState, roots *x509.CertPool, now time.Time) (*x509.Certificate, error) {
	if state == nil || len(state.PeerCertificates) == 0 {
		return nil, nil
	}
	if roots == nil {
		return nil, ErrNoCA
	}
	leaf := state.PeerCertificates[0]
	opts := x509.VerifyOptions{
		Roots:       roots,
		CurrentTime: now,
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if len(state.PeerCertificates) > 1 {
		opts.Intermediates = x509.NewCertPool()
		for _, c := range state.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
	}
	if _, err := leaf.Verify(opts); err != nil {
		return nil, err
	}
	return leaf, nil
}

// ClientCert authenticates requests by their TLS client certificate, as
// Kubernetes' --client-ca-file does: a certificate that chains to CA names
// the user by its subject's common name and the groups by its
// organizations. A certificate without a common name is no user; one
// that does not verify is an error.
//
// The server's tls.Config must request client certificates without
// verifying them itself (tls.RequestClientCert), so that a bad
// certificate is a 401 rather than a failed handshake; see
// certs.ServerConfig.
type ClientCert struct {
	CA *x509.CertPool // required: without it every certificate fails
	// Now is the clock certificates are checked against; nil means
	// time.Now.
	Now func() time.Time
}

// AuthenticateRequest implements Authenticator.
func (c *ClientCert) AuthenticateRequest(r *http.Request) (User, bool, error) {
	leaf, err := verifyClient(r.TLS, c.CA, now(c.Now))
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
