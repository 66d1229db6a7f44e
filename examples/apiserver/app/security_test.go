package app

import (
	"context"
	"crypto/tls"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/auth/certs"
	"github.com/apisem/apisem/server"
)

// TestSecurityFlags: without flags the server stays open plain HTTP;
// each flag turns on what kube-apiserver's does.
func TestSecurityFlags(t *testing.T) {
	dir := t.TempDir()
	ca, err := certs.NewCA("ca")
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(caFile, ca.CertPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	access := auth.AccessReviewerFunc(func(context.Context, auth.Attributes) (auth.AccessReview, error) {
		return auth.AccessReview{}, nil
	})
	tests := []struct {
		name      string
		args      []string
		d         Delegate
		https     bool
		authn     bool
		clientReq tls.ClientAuthType
		delegated bool
	}{
		{"no flags: the README's server", nil, Delegate{}, false, false, tls.NoClientCert, false},
		{"cert-dir: HTTPS only", []string{"-cert-dir", filepath.Join(dir, "certs")}, Delegate{}, true, false, tls.NoClientCert, false},
		{"client CA", []string{"-client-ca-file", caFile}, Delegate{}, true, true, tls.RequestClientCert, false},
		{"front proxy", []string{"-requestheader-client-ca-file", caFile, "-requestheader-allowed-names", "front-proxy-client"}, Delegate{}, true, true, tls.RequestClientCert, false},
		{"host cluster", nil, Delegate{Access: access, RequestHeader: &auth.RequestHeader{CA: ca.Pool()}}, true, true, tls.RequestClientCert, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			c.Register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			var opts server.Options
			https, err := c.Security.Apply(&opts, tt.d)
			if err != nil {
				t.Fatal(err)
			}
			if https != tt.https || (opts.Security.TLS != nil) != tt.https || (opts.Security.Authenticator != nil) != tt.authn || (opts.Security.Authorizer != nil) != tt.authn {
				t.Fatalf("https %v, TLS %v, authenticator %v, authorizer %v", https, opts.Security.TLS != nil, opts.Security.Authenticator, opts.Security.Authorizer)
			}
			if opts.Security.TLS != nil && opts.Security.TLS.ClientAuth != tt.clientReq {
				t.Errorf("ClientAuth %v; want %v", opts.Security.TLS.ClientAuth, tt.clientReq)
			}
			if !tt.authn {
				return
			}
			z := opts.Security.Authorizer.(auth.Authorizers)
			if _, ok := z[len(z)-1].(*auth.Delegating); ok != tt.delegated {
				t.Errorf("last authorizer %T; delegated %v", z[len(z)-1], tt.delegated)
			}
			// Probes pass; anonymous users get nothing else.
			anon := auth.User{Name: auth.Anonymous, Groups: []string{auth.AllUnauthenticated}}
			if d, _, _ := z.Authorize(context.Background(), auth.Attributes{User: anon, Verb: "get", Path: "/readyz"}); d != auth.DecisionAllow {
				t.Errorf("/readyz: %v", d)
			}
			if d, _, _ := z.Authorize(context.Background(), auth.Attributes{User: anon, Verb: "list", ResourceRequest: true, Resource: "secrets"}); d == auth.DecisionAllow {
				t.Error("anonymous lists secrets")
			}
		})
	}
}

// TestCertHosts: -cert-hosts names the certificate -cert-dir generates
// (an aggregator with a caBundle verifies <service>.<namespace>.svc); a
// certificate kept from an earlier start without that name is refused
// rather than served to clients that will reject it.
func TestCertHosts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	apply := func(args ...string) (*tls.Config, error) {
		var c Config
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		c.Register(fs)
		if err := fs.Parse(append([]string{"-cert-dir", dir}, args...)); err != nil {
			t.Fatal(err)
		}
		var opts server.Options
		_, err := c.Security.Apply(&opts, Delegate{})
		return opts.Security.TLS, err
	}
	if _, err := apply(); err != nil {
		t.Fatal(err)
	}
	// The pair of the first start names localhost only.
	_, err := apply("-cert-hosts", "apisem.default.svc,localhost")
	if err == nil || !strings.Contains(err.Error(), "does not name apisem.default.svc") {
		t.Fatalf("reusing a certificate without the new name: %v", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	tc, err := apply("-cert-hosts", "apisem.default.svc,localhost")
	if err != nil {
		t.Fatal(err)
	}
	leaf := tc.Certificates[0].Leaf
	for _, h := range []string{"apisem.default.svc", "localhost"} {
		if err := leaf.VerifyHostname(h); err != nil {
			t.Errorf("the new certificate: %v", err)
		}
	}
	// The default names ask nothing of a pair already there.
	if _, err := apply(); err != nil {
		t.Errorf("default -cert-hosts with a pair for other names: %v", err)
	}
}

// TestSharedVerifier: the front proxy's and the clients' authenticators
// share one auth.ConnVerifier, so that a connection is verified once for
// both; a RequestHeader the host cluster hands over with a verifier of
// its own keeps it and the clients' share it.
func TestSharedVerifier(t *testing.T) {
	dir := t.TempDir()
	ca, err := certs.NewCA("ca")
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(caFile, ca.CertPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	given := &auth.ConnVerifier{}
	tests := []struct {
		name string
		args []string
		d    Delegate
		want *auth.ConnVerifier // nil: any, as long as it is shared
	}{
		{"one CA file for both", []string{"-client-ca-file", caFile, "-requestheader-client-ca-file", caFile}, Delegate{}, nil},
		{"host cluster", nil, Delegate{ClientCA: ca.Pool(), RequestHeader: &auth.RequestHeader{CA: ca.Pool()}}, nil},
		{"host cluster, client CA flag", []string{"-client-ca-file", caFile}, Delegate{RequestHeader: &auth.RequestHeader{CA: ca.Pool()}}, nil},
		{"verifier given", nil, Delegate{ClientCA: ca.Pool(), RequestHeader: &auth.RequestHeader{CA: ca.Pool(), Verifier: given}}, given},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			c.Register(fs)
			if err := fs.Parse(append([]string{"-cert-dir", filepath.Join(dir, "certs")}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			var opts server.Options
			if _, err := c.Security.Apply(&opts, tt.d); err != nil {
				t.Fatal(err)
			}
			chain := opts.Security.Authenticator.(auth.Chain)
			if chain.RequestHeader == nil || chain.ClientCert == nil {
				t.Fatalf("front proxy %v, client certificates %v; want both", chain.RequestHeader, chain.ClientCert)
			}
			rh, cc := chain.RequestHeader.Verifier, chain.ClientCert.Verifier
			if rh == nil || rh != cc {
				t.Errorf("verifiers: front proxy %p, client certificates %p; want one", rh, cc)
			}
			if tt.want != nil && rh != tt.want {
				t.Errorf("verifier %p; want the given %p", rh, tt.want)
			}
		})
	}
}
