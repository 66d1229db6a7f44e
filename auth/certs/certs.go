// Package certs makes and loads the certificates an HTTPS API server
// needs: a serving certificate from files or generated at start (as
// kube-apiserver's --cert-dir), CA bundles for client certificates, the
// server's tls.Config, and a small CA for tests and development.
//
// Keys are ECDSA P-256. The package does not reload files that change;
// restart the server to pick up a rotated certificate.
package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CA is a certificate authority that issues serving and client
// certificates. Its certificates are valid from an hour ago (for clock
// skew) for Validity.
type CA struct {
	Cert *x509.Certificate
	Key  crypto.Signer
	// Validity is how long issued certificates are valid; 0 means one
	// year.
	Validity time.Duration
}

// NewCA returns a new self-signed CA named commonName, valid for ten
// years.
func NewCA(commonName string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key}, nil
}

// Pool returns a pool holding only the CA's certificate.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// CertPEM returns the CA's certificate in PEM, as a CA file holds it.
func (ca *CA) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw})
}

// IssueClient issues a client certificate for commonName with
// organizations (as Kubernetes reads them: the user and its groups).
func (ca *CA) IssueClient(commonName string, organizations ...string) (tls.Certificate, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName, Organization: organizations},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// IssueServing issues a serving certificate for hosts, each a DNS name or
// an IP address.
func (ca *CA) IssueServing(hosts ...string) (tls.Certificate, error) {
	if len(hosts) == 0 {
		return tls.Certificate{}, errors.New("certs: a serving certificate needs a host")
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: hosts[0]},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return ca.issue(tmpl)
}

func (ca *CA) issue(tmpl *x509.Certificate) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	validity := ca.Validity
	if validity == 0 {
		validity = 365 * 24 * time.Hour
	}
	now := time.Now()
	tmpl.SerialNumber = serial()
	tmpl.NotBefore = now.Add(-time.Hour)
	tmpl.NotAfter = now.Add(validity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	// The chain includes the CA, as kube-apiserver's self-signed
	// certificate file does, so a client can pin it from the handshake.
	return tls.Certificate{Certificate: [][]byte{der, ca.Cert.Raw}, PrivateKey: key, Leaf: leaf}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}

// The file names --cert-dir uses in kube-apiserver.
const (
	SelfSignedCertFile = "apiserver.crt"
	SelfSignedKeyFile  = "apiserver.key"
)

// SelfSigned returns the serving certificate in dir (apiserver.crt and
// apiserver.key), or, if there is none, generates one for hosts, signed
// by a new CA of its own, and writes it there (dir is created). With dir
// "" the pair lives only in memory. The certificate file holds the
// certificate and then its CA, so clients can trust the CA from it.
func SelfSigned(dir string, hosts ...string) (tls.Certificate, error) {
	certFile, keyFile := filepath.Join(dir, SelfSignedCertFile), filepath.Join(dir, SelfSignedKeyFile)
	if dir != "" {
		if c, err := tls.LoadX509KeyPair(certFile, keyFile); err == nil {
			return c, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return tls.Certificate{}, err
		}
	}
	name := "localhost"
	if len(hosts) > 0 {
		name = hosts[0]
	}
	ca, err := NewCA(fmt.Sprintf("%s-ca@%d", name, time.Now().Unix()))
	if err != nil {
		return tls.Certificate{}, err
	}
	if len(hosts) == 0 {
		hosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	c, err := ca.IssueServing(hosts...)
	if err != nil || dir == "" {
		return c, err
	}
	certPEM, keyPEM, err := EncodePEM(c)
	if err != nil {
		return tls.Certificate{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return tls.Certificate{}, err
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		return tls.Certificate{}, err
	}
	return c, os.WriteFile(certFile, certPEM, 0o644)
}

// EncodePEM returns c's certificate chain and private key in PEM.
func EncodePEM(c tls.Certificate) (certPEM, keyPEM []byte, err error) {
	for _, der := range c.Certificate {
		certPEM = append(certPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	der, err := x509.MarshalPKCS8PrivateKey(c.PrivateKey)
	if err != nil {
		return nil, nil, err
	}
	return certPEM, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// ParseCertsPEM returns the certificates of a PEM bundle, skipping blocks
// of other types. A bundle without a certificate is an error, as is a
// certificate that does not parse.
func ParseCertsPEM(data []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certs: %w", err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("certs: no certificate in PEM data")
	}
	return out, nil
}

// PoolFromPEM returns a pool of the certificates of PEM bundles, as CA
// files and the ConfigMap extension-apiserver-authentication hold them.
func PoolFromPEM(bundles ...[]byte) (*x509.CertPool, error) {
	p := x509.NewCertPool()
	for _, b := range bundles {
		certs, err := ParseCertsPEM(b)
		if err != nil {
			return nil, err
		}
		for _, c := range certs {
			p.AddCert(c)
		}
	}
	return p, nil
}

// LoadPool reads CA files into one pool.
func LoadPool(files ...string) (*x509.CertPool, error) {
	var bundles [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if _, err := ParseCertsPEM(b); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		bundles = append(bundles, b)
	}
	return PoolFromPEM(bundles...)
}

// ServerConfig returns the tls.Config of an API server serving cert. When
// clientCAs is set the server asks for a client certificate, naming those
// CAs as acceptable, but does not verify it in the handshake: the
// authenticators do (auth.ClientCert, auth.RequestHeader), so that a
// certificate they do not accept is a 401 Unauthorized, as in
// Kubernetes, not a failed connection. An empty pool requests
// certificates without naming CAs, so clients send any they have (for
// CAs known only as a pool, which cannot be listed). HTTP/2 is offered
// before HTTP/1.1 (client-go multiplexes watches over it).
func ServerConfig(cert tls.Certificate, clientCAs *x509.CertPool) *tls.Config {
	c := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}
	if clientCAs != nil {
		c.ClientAuth = tls.RequestClientCert
		c.ClientCAs = clientCAs
	}
	return c
}
