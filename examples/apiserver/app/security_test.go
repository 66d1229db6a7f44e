package app

import (
	"context"
	"crypto/tls"
	"flag"
	"os"
	"path/filepath"
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
			if https != tt.https || (opts.TLS != nil) != tt.https || (opts.Authenticator != nil) != tt.authn || (opts.Authorizer != nil) != tt.authn {
				t.Fatalf("https %v, TLS %v, authenticator %v, authorizer %v", https, opts.TLS != nil, opts.Authenticator, opts.Authorizer)
			}
			if opts.TLS != nil && opts.TLS.ClientAuth != tt.clientReq {
				t.Errorf("ClientAuth %v; want %v", opts.TLS.ClientAuth, tt.clientReq)
			}
			if !tt.authn {
				return
			}
			z := opts.Authorizer.(auth.Authorizers)
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
