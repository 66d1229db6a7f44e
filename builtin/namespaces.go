package builtin

import (
	"context"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
)

// NamespaceReader reads the labels of a Namespace, for Options.Namespaces.
type NamespaceReader interface {
	// NamespaceLabels returns the labels of the Namespace name; an error
	// (a status error, best) fails the write that asked, as a cluster's
	// failure to read the Namespace does.
	NamespaceLabels(ctx context.Context, name string) (map[string]string, error)
}

// ServerNamespaces is the NamespaceReader of a server's own Namespaces
// (those of package namespace, or any resource named namespaces in the
// core group): Bind it to the server once the server is made from the
// resources that use it. Unbound, or on a server without Namespaces, it
// reads every namespace as one without labels.
type ServerNamespaces struct {
	s atomic.Pointer[server.Server]
}

// Bind makes n read the Namespaces of s.
func (n *ServerNamespaces) Bind(s *server.Server) { n.s.Store(s) }

// NamespaceLabels returns the labels of the Namespace name of the bound
// server: its 404 when the server has no such Namespace.
func (n *ServerNamespaces) NamespaceLabels(ctx context.Context, name string) (map[string]string, error) {
	s := n.s.Load()
	if s == nil {
		return nil, nil
	}
	for _, r := range s.Resources() {
		if r.Group == "" && r.Plural == "namespaces" {
			o, err := s.StoreOf(r).Get(ctx, "", name, rv.Read{Semantics: rv.MostRecent})
			if err != nil {
				return nil, err
			}
			return o.Meta().Labels, nil
		}
	}
	return nil, nil
}

// namespaceClient is the client of Namespaces the resource.k8s.io
// strategies read a namespace's labels with (Get, and nothing else: the
// other methods are the nil interface's).
type namespaceClient struct {
	corev1client.NamespaceInterface
	r NamespaceReader
}

func (c namespaceClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	labels, err := c.r.NamespaceLabels(ctx, name)
	if err != nil {
		return nil, err
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, nil
}

// strategies returns the strategies of k for a server of opts: those of
// the table, but for the kinds whose strategies read Namespaces
// (ResourceClaims and ResourceClaimTemplates, for admin access to
// devices), which read them with opts.Namespaces when it is set.
func (k *kind) strategies(opts Options) (main, status any) {
	if opts.Namespaces == nil || k.Group != "resource.k8s.io" {
		return k.Strategy, k.Status
	}
	nsc := namespaceClient{r: opts.Namespaces}
	switch k.Kind {
	case "ResourceClaim":
		s := resourceclaim.NewStrategy(nsc, allowAll)
		return s, resourceclaim.NewStatusStrategy(s)
	case "ResourceClaimTemplate":
		return resourceclaimtemplate.NewStrategy(nsc), nil
	}
	return k.Strategy, k.Status
}
