package kubedelegate_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/auth/certs"
	"github.com/apisem/apisem/auth/kubedelegate"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/server"
)

// TestAggregatedServer runs the demo server as an aggregated API server
// of a fake host cluster, configured from a kubeconfig as the example's
// flags configure it, and talks to it with client-go: with a service
// account token, and as the aggregator forwarding a user.
func TestAggregatedServer(t *testing.T) {
	newCA := func(name string) *certs.CA {
		ca, err := certs.NewCA(name)
		if err != nil {
			t.Fatal(err)
		}
		return ca
	}
	proxyCA, clientCA, servingCA := newCA("front-proxy-ca"), newCA("kubernetes"), newCA("apisem-ca")
	proxy, err := proxyCA.IssueClient("front-proxy-client")
	if err != nil {
		t.Fatal(err)
	}
	serving, err := servingCA.IssueServing("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}

	h := newHost(t)
	h.config = map[string]string{
		"client-ca-file":               string(clientCA.CertPEM()),
		"requestheader-client-ca-file": string(proxyCA.CertPEM()),
		"requestheader-allowed-names":  `["front-proxy-client"]`,
	}
	const sa = "system:serviceaccount:demo:reader"
	h.tokens = func(s authenticationv1.TokenReviewSpec) (authenticationv1.TokenReviewStatus, int) {
		if s.Token != "reader-token" {
			return authenticationv1.TokenReviewStatus{}, 201
		}
		return authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: sa}}, 201
	}
	// The host's RBAC: the service account reads configmaps in demo; bob
	// reads everything.
	h.access = func(s authorizationv1.SubjectAccessReviewSpec) (authorizationv1.SubjectAccessReviewStatus, int) {
		ra := s.ResourceAttributes
		ok := s.User == "bob" && ra != nil && ra.Verb == "get" ||
			s.User == sa && ra != nil && ra.Namespace == "demo" && ra.Resource == "configmaps" && (ra.Verb == "list" || ra.Verb == "get")
		return authorizationv1.SubjectAccessReviewStatus{Allowed: ok}, 201
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: host, cluster: {server: "`+h.url+`"}}]
users: [{name: apisem, user: {token: apisem-sa-token}}]
contexts: [{name: host, context: {cluster: host, user: apisem}}]
current-context: host
`), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := kubedelegate.New(context.Background(), kubedelegate.Options{Kubeconfig: kubeconfig})
	if err != nil {
		t.Fatal(err)
	}
	// One verification per connection for the front proxy and clients.
	verifier := &auth.ConnVerifier{}
	d.Authentication.RequestHeader.Verifier = verifier
	clientCAs := d.Authentication.RequestHeader.CA.Clone()
	clientCAs.AddCert(clientCA.Cert)
	s, err := demo.New(demo.Options{
		Security: server.SecurityOptions{
			Authenticator: auth.Chain{
				RequestHeader: d.Authentication.RequestHeader,
				ClientCert:    &auth.ClientCert{CA: d.Authentication.ClientCA, Verifier: verifier},
				Token:         &auth.BearerToken{Reviewer: d.Tokens},
			},
			Authorizer: auth.Authorizers{
				auth.AllowPaths(auth.DefaultAlwaysAllowPaths),
				auth.AllowGroups{auth.SystemPrivilegedGroup},
				&auth.Delegating{Reviewer: d.Access},
			},
			TLS: certs.ServerConfig(serving, clientCAs),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	defer func() {
		s.Shutdown(context.Background())
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	}()

	base := rest.Config{Host: "https://" + l.Addr().String(), TLSClientConfig: rest.TLSClientConfig{CAData: servingCA.CertPEM()}}
	reader := base
	reader.BearerToken = "reader-token"
	rc, err := corev1client.NewForConfig(&reader)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := rc.ConfigMaps("demo").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("the service account lists configmaps in demo: %v", err)
	}
	_, err = rc.ConfigMaps("default").List(ctx, metav1.ListOptions{})
	const want = `configmaps is forbidden: User "system:serviceaccount:demo:reader" cannot list resource "configmaps" in API group "" in the namespace "default"`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("the service account lists configmaps in default: %v; want %s", err, want)
	}
	stolen := base
	stolen.BearerToken = "stolen-token"
	sc, err := corev1client.NewForConfig(&stolen)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.ConfigMaps("demo").List(ctx, metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Errorf("a rejected token: %v; want Unauthorized", err)
	}

	// The aggregator, forwarding bob.
	certPEM, keyPEM, err := certs.EncodePEM(proxy)
	if err != nil {
		t.Fatal(err)
	}
	agg := base
	agg.CertData, agg.KeyData = certPEM, keyPEM
	agg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("X-Remote-User", "bob")
			return rt.RoundTrip(r)
		})
	}
	ac, err := corev1client.NewForConfig(&agg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ac.Namespaces().Get(ctx, "demo", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("bob gets namespace demo (none was created): %v; want NotFound, so authorized", err)
	}
	err = ac.ConfigMaps("demo").Delete(ctx, "x", metav1.DeleteOptions{})
	const wantDelete = `configmaps "x" is forbidden: User "bob" cannot delete resource "configmaps" in API group "" in the namespace "demo"`
	if !apierrors.IsForbidden(err) || err.Error() != wantDelete {
		t.Errorf("bob deletes: %v; want %s", err, wantDelete)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
