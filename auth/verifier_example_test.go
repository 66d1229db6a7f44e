package auth_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http/httptest"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/auth/certs"
)

// A server whose front proxy and clients hold certificates of one CA (as
// kube-apiserver started with -client-ca-file and
// -requestheader-client-ca-file naming one file): its RequestHeader and
// ClientCert share a ConnVerifier, so each connection's certificate is
// verified once, at its first request, for both.
func ExampleConnVerifier() {
	ca, err := certs.NewCA("cluster-ca")
	if err != nil {
		panic(err)
	}
	verifier := &auth.ConnVerifier{}
	authn := auth.Chain{
		RequestHeader: &auth.RequestHeader{CA: ca.Pool(), AllowedNames: []string{"front-proxy-client"}, Verifier: verifier},
		ClientCert:    &auth.ClientCert{CA: ca.Pool(), Verifier: verifier},
	}

	// connection is the state net/http hands every request of one TLS
	// connection whose client presented a certificate for cn.
	connection := func(cn string) *tls.ConnectionState {
		cert, err := ca.IssueClient(cn)
		if err != nil {
			panic(err)
		}
		leaf, err := x509.ParseCertificate(cert.Certificate[0])
		if err != nil {
			panic(err)
		}
		return &tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}}
	}
	proxy, alice := connection("front-proxy-client"), connection("alice")
	for _, req := range []struct {
		conn *tls.ConnectionState
		user string // asserted in X-Remote-User
	}{
		{proxy, "bob"}, {proxy, "carol"},
		{alice, ""}, {alice, "mallory"}, // a client is no front proxy: she is alice
	} {
		r := httptest.NewRequest("GET", "/api", nil)
		r.TLS = req.conn
		if req.user != "" {
			r.Header.Set("X-Remote-User", req.user)
		}
		u, ok, err := authn.AuthenticateRequest(r)
		fmt.Println(u.Name, ok, err)
	}
	// Output:
	// bob true <nil>
	// carol true <nil>
	// alice true <nil>
	// alice true <nil>
}
