package certs_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/apisem/apisem/auth/certs"
)

func TestSelfSignedCertDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	c1, err := certs.SelfSigned(dir, "localhost", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	// The second start reuses the pair, as --cert-dir does.
	c2, err := certs.SelfSigned(dir, "other")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c1.Certificate[0], c2.Certificate[0]) {
		t.Error("SelfSigned generated a new certificate although one was in the directory")
	}
	if fi, err := os.Stat(filepath.Join(dir, certs.SelfSignedKeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, %v; want mode 0600", fi, err)
	}
	// A client trusting the CA in the certificate file verifies the
	// server as localhost and 127.0.0.1.
	pemData, err := os.ReadFile(filepath.Join(dir, certs.SelfSignedCertFile))
	if err != nil {
		t.Fatal(err)
	}
	chain, err := certs.ParseCertsPEM(pemData)
	if err != nil || len(chain) != 2 {
		t.Fatalf("certificate file: %d certificates, %v", len(chain), err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(chain[1])
	for _, host := range []string{"localhost", "127.0.0.1"} {
		if _, err := chain[0].Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("verify for %s: %v", host, err)
		}
	}
	if _, err := chain[0].Verify(x509.VerifyOptions{Roots: roots, DNSName: "example.com"}); err == nil {
		t.Error("the certificate is valid for example.com")
	}
}

func TestParseCertsPEM(t *testing.T) {
	ca, err := certs.NewCA("ca")
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
	tests := []struct {
		name string
		in   []byte
		n    int
		ok   bool
	}{
		{"one", ca.CertPEM(), 1, true},
		{"two with a key between", append(append(ca.CertPEM(), key...), ca.CertPEM()...), 2, true},
		{"none", key, 0, false},
		{"empty", nil, 0, false},
		{"bad DER", []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), 0, false},
	}
	for _, tt := range tests {
		got, err := certs.ParseCertsPEM(tt.in)
		if len(got) != tt.n || (err == nil) != tt.ok {
			t.Errorf("%s: ParseCertsPEM = %d certificates, %v; want %d, ok %v", tt.name, len(got), err, tt.n, tt.ok)
		}
	}
}

func TestServerConfig(t *testing.T) {
	cert, err := certs.SelfSigned("")
	if err != nil {
		t.Fatal(err)
	}
	c := certs.ServerConfig(cert, nil)
	if c.ClientAuth != tls.NoClientCert || c.NextProtos[0] != "h2" {
		t.Errorf("without client CAs: ClientAuth %v, NextProtos %v", c.ClientAuth, c.NextProtos)
	}
	c = certs.ServerConfig(cert, x509.NewCertPool())
	if c.ClientAuth != tls.RequestClientCert {
		t.Errorf("with client CAs: ClientAuth %v; want RequestClientCert (the authenticators verify)", c.ClientAuth)
	}
}

// FuzzParseCertsPEM: CA bundles come from files and from the host
// cluster's ConfigMap; no input may panic the parser.
func FuzzParseCertsPEM(f *testing.F) {
	ca, err := certs.NewCA("ca")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ca.CertPEM())
	f.Add([]byte("-----BEGIN CERTIFICATE-----\n\n-----END CERTIFICATE-----"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := certs.ParseCertsPEM(data)
		if (err == nil) != (len(got) > 0) {
			t.Fatalf("%d certificates with error %v", len(got), err)
		}
	})
}
