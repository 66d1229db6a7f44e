// Package kubedelegate lets an apisem server delegate authentication and
// authorization to a Kubernetes cluster, as an aggregated API server
// does: TokenReviewer and AccessReviewer implement package auth's
// reviewer interfaces with the cluster's TokenReview and
// SubjectAccessReview APIs, and LoadAuthentication reads the client and
// front-proxy CAs the cluster publishes in the ConfigMap
// kube-system/extension-apiserver-authentication, whose data package auth
// parses (auth.ParseExtensionAuthentication, fuzzed there without
// client-go).
//
// It is a module of its own so that github.com/apisem/apisem does not
// depend on client-go.
//
// # Non-goals
//
// The ConfigMap is read once; a rotated front-proxy CA takes a restart,
// where Kubernetes' dynamic certificate controllers would pick it up.
package kubedelegate

import (
	"context"
	"fmt"
	"slices"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apisem/apisem/auth"
)

// TokenReviewer reviews bearer tokens with a cluster's TokenReview API.
type TokenReviewer struct {
	Client authenticationv1client.TokenReviewsGetter
	// Audiences, if set, are the audiences the token must be for
	// (--api-audiences); a token for none of them is not accepted.
	Audiences []string
}

// ReviewToken implements auth.TokenReviewer.
func (t TokenReviewer) ReviewToken(ctx context.Context, token string) (auth.TokenReview, error) {
	tr, err := t.Client.TokenReviews().Create(ctx, &authenticationv1.TokenReview{
		Spec: authenticationv1.TokenReviewSpec{Token: token, Audiences: t.Audiences},
	}, metav1.CreateOptions{})
	if err != nil {
		return auth.TokenReview{}, err
	}
	st := tr.Status
	if st.Authenticated && len(t.Audiences) > 0 && !slices.ContainsFunc(st.Audiences, func(a string) bool { return slices.Contains(t.Audiences, a) }) {
		return auth.TokenReview{Error: fmt.Sprintf("token audiences %q is invalid for the target audiences %q", st.Audiences, t.Audiences)}, nil
	}
	u := auth.User{Name: st.User.Username, UID: st.User.UID, Groups: st.User.Groups}
	for k, v := range st.User.Extra {
		if u.Extra == nil {
			u.Extra = map[string][]string{}
		}
		u.Extra[k] = v
	}
	return auth.TokenReview{Authenticated: st.Authenticated, User: u, Error: st.Error}, nil
}

// AccessReviewer asks a cluster's SubjectAccessReview API.
type AccessReviewer struct {
	Client authorizationv1client.SubjectAccessReviewsGetter
}

// ReviewAccess implements auth.AccessReviewer.
func (r AccessReviewer) ReviewAccess(ctx context.Context, a auth.Attributes) (auth.AccessReview, error) {
	sar, err := r.Client.SubjectAccessReviews().Create(ctx, SubjectAccessReview(a), metav1.CreateOptions{})
	if err != nil {
		return auth.AccessReview{}, err
	}
	return auth.AccessReview{Allowed: sar.Status.Allowed, Denied: sar.Status.Denied, Reason: sar.Status.Reason}, nil
}

// SubjectAccessReview is the review that asks about a: resource
// attributes for a resource request, non-resource attributes (path and
// verb) otherwise.
func SubjectAccessReview(a auth.Attributes) *authorizationv1.SubjectAccessReview {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: a.User.Name, UID: a.User.UID, Groups: a.User.Groups,
	}}
	for k, v := range a.User.Extra {
		if sar.Spec.Extra == nil {
			sar.Spec.Extra = map[string]authorizationv1.ExtraValue{}
		}
		sar.Spec.Extra[k] = v
	}
	if a.ResourceRequest {
		sar.Spec.ResourceAttributes = &authorizationv1.ResourceAttributes{
			Namespace: a.Namespace, Verb: a.Verb, Group: a.Group, Version: a.Version,
			Resource: a.Resource, Subresource: a.Subresource, Name: a.Name,
		}
	} else {
		sar.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: a.Path, Verb: a.Verb}
	}
	return sar
}

// The ConfigMap where a cluster publishes its authentication for
// extension API servers, and its keys.
const (
	AuthenticationConfigMapNamespace = "kube-system"
	AuthenticationConfigMapName      = "extension-apiserver-authentication"
)

// LoadAuthentication reads the cluster's
// kube-system/extension-apiserver-authentication ConfigMap, parsed by
// auth.ParseExtensionAuthentication.
func LoadAuthentication(ctx context.Context, client corev1client.ConfigMapsGetter) (auth.ExtensionAuthentication, error) {
	cm, err := client.ConfigMaps(AuthenticationConfigMapNamespace).Get(ctx, AuthenticationConfigMapName, metav1.GetOptions{})
	if err != nil {
		return auth.ExtensionAuthentication{}, err
	}
	return auth.ParseExtensionAuthentication(cm.Data)
}

// DefaultTimeout bounds each call to the cluster, as Kubernetes'
// delegated authentication and authorization do.
const DefaultTimeout = 10 * time.Second

// RESTConfig returns the client configuration of the kubeconfig file, or,
// with "", the in-cluster configuration of a pod, with calls bounded by
// DefaultTimeout.
func RESTConfig(kubeconfig string) (*rest.Config, error) {
	var c *rest.Config
	var err error
	if kubeconfig == "" {
		c, err = rest.InClusterConfig()
	} else {
		c, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	if err != nil {
		return nil, err
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	return c, nil
}

// Options say which clusters to delegate to, as an aggregated API
// server's flags do.
type Options struct {
	// Kubeconfig is the cluster of both, unless the next two say
	// otherwise; "" means the in-cluster configuration.
	Kubeconfig               string
	AuthenticationKubeconfig string // --authentication-kubeconfig
	AuthorizationKubeconfig  string // --authorization-kubeconfig
	// SkipLookup does not read the extension-apiserver-authentication
	// ConfigMap (--authentication-skip-lookup).
	SkipLookup bool
	// Audiences are the audiences bearer tokens must be for.
	Audiences []string
}

// Delegation is what a cluster provides an aggregated API server.
type Delegation struct {
	Tokens         TokenReviewer
	Access         AccessReviewer
	Authentication auth.ExtensionAuthentication // zero with SkipLookup
}

// New connects to the clusters of opts and, unless SkipLookup, reads the
// authentication ConfigMap.
func New(ctx context.Context, opts Options) (Delegation, error) {
	var d Delegation
	authnConf, err := RESTConfig(or(opts.AuthenticationKubeconfig, opts.Kubeconfig))
	if err != nil {
		return d, fmt.Errorf("authentication kubeconfig: %w", err)
	}
	authzConf, err := RESTConfig(or(opts.AuthorizationKubeconfig, opts.Kubeconfig))
	if err != nil {
		return d, fmt.Errorf("authorization kubeconfig: %w", err)
	}
	tc, err := authenticationv1client.NewForConfig(authnConf)
	if err != nil {
		return d, err
	}
	ac, err := authorizationv1client.NewForConfig(authzConf)
	if err != nil {
		return d, err
	}
	d.Tokens = TokenReviewer{Client: tc, Audiences: opts.Audiences}
	d.Access = AccessReviewer{Client: ac}
	if opts.SkipLookup {
		return d, nil
	}
	cc, err := corev1client.NewForConfig(authnConf)
	if err != nil {
		return d, err
	}
	d.Authentication, err = LoadAuthentication(ctx, cc)
	if err != nil {
		return d, fmt.Errorf("reading %s/%s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, err)
	}
	return d, nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
