package app

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/auth/certs"
	"github.com/apisem/apisem/server"
)

// Security holds the flags that make the example an HTTPS server with
// authentication and authorization, named as kube-apiserver's. With none
// of them set, the server is the plain, open HTTP server of the README's
// first command.
type Security struct {
	TLSCertFile, TLSKeyFile, CertDir string
	CertHosts                        list

	ClientCAFile string

	RequestHeaderCAFile         string
	RequestHeaderAllowedNames   list
	RequestHeaderUsernameHdrs   list
	RequestHeaderUIDHdrs        list
	RequestHeaderGroupHdrs      list
	RequestHeaderExtraPrefixes  list
	Anonymous                   bool
	AuthorizationAlwaysAllow    list
	AuthorizationAlwaysAllowGrp list
}

// Delegate is what a host cluster provides when the server runs as its
// aggregated API server (see examples/server); the zero Delegate
// means no host cluster.
type Delegate struct {
	Tokens auth.TokenReviewer
	Access auth.AccessReviewer
	// ClientCA and RequestHeader are the host cluster's published
	// defaults; the flags override them.
	ClientCA      *x509.CertPool
	RequestHeader *auth.RequestHeader
}

func (d Delegate) isZero() bool {
	return d.Tokens == nil && d.Access == nil && d.ClientCA == nil && d.RequestHeader == nil
}

// list is a comma-separated flag value.
type list []string

func (l *list) String() string { return strings.Join(*l, ",") }
func (l *list) Set(s string) error {
	*l = nil
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// Register adds the flags to fs.
func (s *Security) Register(fs *flag.FlagSet) {
	fs.StringVar(&s.TLSCertFile, "tls-cert-file", "", "serve HTTPS with this certificate (PEM; the chain after it)")
	fs.StringVar(&s.TLSKeyFile, "tls-private-key-file", "", "the private key of -tls-cert-file")
	fs.StringVar(&s.CertDir, "cert-dir", "", "serve HTTPS with apiserver.crt and apiserver.key from this directory, generated self-signed if missing")
	s.CertHosts = list(defaultCertHosts)
	fs.Var(&s.CertHosts, "cert-hosts", "DNS names and IPs of the certificate -cert-dir generates; behind an aggregator that verifies it (caBundle), include <service>.<namespace>.svc")
	fs.StringVar(&s.ClientCAFile, "client-ca-file", "", "authenticate client certificates signed by these CAs (CN is the user, O the groups)")
	fs.StringVar(&s.RequestHeaderCAFile, "requestheader-client-ca-file", "", "trust the front proxy (the aggregator) whose client certificate these CAs sign")
	fs.Var(&s.RequestHeaderAllowedNames, "requestheader-allowed-names", "common names the front proxy's certificate may have (empty: any)")
	fs.Var(&s.RequestHeaderUsernameHdrs, "requestheader-username-headers", "headers with the user name (default X-Remote-User)")
	fs.Var(&s.RequestHeaderUIDHdrs, "requestheader-uid-headers", "headers with the user's UID (default X-Remote-Uid)")
	fs.Var(&s.RequestHeaderGroupHdrs, "requestheader-group-headers", "headers with the groups (default X-Remote-Group)")
	fs.Var(&s.RequestHeaderExtraPrefixes, "requestheader-extra-headers-prefix", "prefixes of headers with extra user information (default X-Remote-Extra-)")
	fs.BoolVar(&s.Anonymous, "anonymous-auth", true, "with authentication on, serve requests without credentials as system:anonymous (the authorizer decides)")
	s.AuthorizationAlwaysAllow = list(auth.DefaultAlwaysAllowPaths)
	fs.Var(&s.AuthorizationAlwaysAllow, "authorization-always-allow-paths", "paths anyone may GET ('/prefix/*' for a prefix)")
	s.AuthorizationAlwaysAllowGrp = list{auth.SystemPrivilegedGroup}
	fs.Var(&s.AuthorizationAlwaysAllowGrp, "authorization-always-allow-groups", "groups allowed everything without asking")
}

// defaultCertHosts are the names of -cert-dir's certificate, as
// kube-apiserver's self-signed one on loopback.
var defaultCertHosts = []string{"localhost", "127.0.0.1", "::1"}

// checkCertHosts refuses a certificate that -cert-dir kept from an
// earlier start when it does not name a host -cert-hosts asks for:
// reused silently, it would fail every client that verifies the new
// name (the aggregator verifies <service>.<namespace>.svc).
func (s *Security) checkCertHosts(cert tls.Certificate) error {
	if slices.Equal(s.CertHosts, defaultCertHosts) || cert.Leaf == nil {
		return nil // a pair of the user's own, for names of their choice
	}
	for _, h := range s.CertHosts {
		if err := cert.Leaf.VerifyHostname(h); err != nil {
			return fmt.Errorf("%s in %s does not name %s (-cert-hosts); remove it and its key to generate one that does: %w",
				certs.SelfSignedCertFile, s.CertDir, h, err)
		}
	}
	return nil
}

// tlsWanted reports whether anything asks for HTTPS.
func (s *Security) tlsWanted(d Delegate) bool {
	return s.TLSCertFile != "" || s.CertDir != "" || s.authnWanted(d)
}

func (s *Security) authnWanted(d Delegate) bool {
	return s.ClientCAFile != "" || s.RequestHeaderCAFile != "" || !d.isZero()
}

// Apply sets the TLS, authenticator and authorizer of opts from the flags
// and d. It reports whether the server speaks HTTPS.
func (s *Security) Apply(opts *server.Options, d Delegate) (https bool, err error) {
	if !s.tlsWanted(d) {
		return false, nil
	}
	var cert tls.Certificate
	switch {
	case s.TLSCertFile != "" || s.TLSKeyFile != "":
		if s.TLSCertFile == "" || s.TLSKeyFile == "" {
			return false, errors.New("-tls-cert-file and -tls-private-key-file go together")
		}
		cert, err = tls.LoadX509KeyPair(s.TLSCertFile, s.TLSKeyFile)
	default:
		cert, err = certs.SelfSigned(s.CertDir, s.CertHosts...)
		if err == nil {
			err = s.checkCertHosts(cert)
		}
	}
	if err != nil {
		return false, fmt.Errorf("serving certificate: %w", err)
	}
	if !s.authnWanted(d) {
		opts.Security.TLS = certs.ServerConfig(cert, nil)
		return true, nil
	}

	chain := auth.Chain{Anonymous: s.Anonymous, RequestHeader: d.RequestHeader}
	// The CAs the handshake names as acceptable, a hint for clients
	// choosing a certificate. A pool cannot be read back, so when a CA
	// comes from the host cluster the hint is left empty, which makes
	// clients send whatever certificate they have.
	hint, hintFiles := x509.NewCertPool(), []string{}
	if s.RequestHeaderCAFile != "" {
		p, err := certs.LoadPool(s.RequestHeaderCAFile)
		if err != nil {
			return false, err
		}
		chain.RequestHeader = &auth.RequestHeader{CA: p}
		hintFiles = append(hintFiles, s.RequestHeaderCAFile)
	} else if chain.RequestHeader != nil {
		hintFiles = nil
	}
	// One verification per connection for the front proxy and the client
	// certificates, whichever of them asks first: with one CA file for
	// both, a client that sends a costly chain makes one verification,
	// not two.
	verifier := &auth.ConnVerifier{}
	if rh := chain.RequestHeader; rh != nil {
		if rh.Verifier == nil {
			rh.Verifier = verifier
		} else {
			verifier = rh.Verifier
		}
		// Flags override what the host cluster published.
		for _, o := range []struct {
			flag list
			dst  *[]string
		}{
			{s.RequestHeaderAllowedNames, &rh.AllowedNames},
			{s.RequestHeaderUsernameHdrs, &rh.UsernameHeaders},
			{s.RequestHeaderUIDHdrs, &rh.UIDHeaders},
			{s.RequestHeaderGroupHdrs, &rh.GroupHeaders},
			{s.RequestHeaderExtraPrefixes, &rh.ExtraHeaderPrefixes},
		} {
			if o.flag != nil {
				*o.dst = o.flag
			}
		}
	}
	clientCA := d.ClientCA
	if s.ClientCAFile != "" {
		if clientCA, err = certs.LoadPool(s.ClientCAFile); err != nil {
			return false, err
		}
		if hintFiles != nil {
			hintFiles = append(hintFiles, s.ClientCAFile)
		}
	} else if clientCA != nil {
		hintFiles = nil
	}
	if clientCA != nil {
		chain.ClientCert = &auth.ClientCert{CA: clientCA, Verifier: verifier}
	}
	if hintFiles != nil {
		if hint, err = certs.LoadPool(hintFiles...); err != nil {
			return false, err
		}
	}
	if d.Tokens != nil {
		chain.Token = &auth.BearerToken{Reviewer: d.Tokens}
	}
	opts.Security.Authenticator = chain
	opts.Security.TLS = certs.ServerConfig(cert, hint)

	// Without a host cluster every authenticated user may do everything
	// (kube-apiserver's AlwaysAllow); anonymous users only reach the
	// always-allowed paths.
	var decide auth.Authorizer = auth.AllowGroups{auth.AllAuthenticated}
	if d.Access != nil {
		decide = &auth.Delegating{Reviewer: d.Access}
	}
	opts.Security.Authorizer = auth.Authorizers{
		auth.AllowPaths(s.AuthorizationAlwaysAllow),
		auth.AllowGroups(s.AuthorizationAlwaysAllowGrp),
		decide,
	}
	return true, nil
}
