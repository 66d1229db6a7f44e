package builtin

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/generic"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/clock"

	"k8s.io/kubernetes/pkg/apis/certificates"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/resolver"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/certificates/podcertificaterequest"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
)

// The strategies kube-apiserver builds with what its registry gives
// them (an authorizer, a client of Namespaces, a resolver of kinds),
// built here with what a server of the table has instead; each
// difference this makes is in the package doc.
var (
	// The admission policies' strategies check, with the authorizer,
	// that the writer may read the kinds of a policy's parameters; a
	// nil authorizer skips that check, as a superuser's write does.
	// The binding strategies want a resolver all the same (they call
	// it a nil one an internal error before they look at the
	// authorizer); it resolves the table's kinds.
	vapStrategy  = validatingadmissionpolicy.NewStrategy(nil, tableResolver)
	vapbStrategy = validatingadmissionpolicybinding.NewStrategy(nil, nil, tableResolver)
	mapStrategy  = mutatingadmissionpolicy.NewStrategy(nil, tableResolver)
	mapbStrategy = mutatingadmissionpolicybinding.NewStrategy(nil, nil, tableResolver)

	// A ResourceClaim's or ResourceClaimTemplate's request for admin
	// access to devices looks its namespace up for the label that
	// permits it; the status strategy asks the authorizer whether the
	// writer may bind claims and report a driver's devices.
	claimStrategy         = resourceclaim.NewStrategy(unlabelledNamespaces{}, allowAll)
	claimStatusStrategy   = resourceclaim.NewStatusStrategy(claimStrategy)
	claimTemplateStrategy = resourceclaimtemplate.NewStrategy(unlabelledNamespaces{})

	// A PodCertificateRequest's status is written by its signer, whom
	// the authorizer permits to "sign" for the signer name.
	pcrStrategy       = podcertificaterequest.NewStrategy()
	pcrStatusStrategy = podcertificaterequest.NewStatusStrategy(pcrStrategy, allowAll, clock.RealClock{})
)

// allowAll is the authorizer of the strategies that need one: the
// server authorizes requests before they reach a strategy (or serves
// everyone), so the strategies' own checks of the writer allow.
var allowAll authorizer.UnconditionalAuthorizer = authorizer.AuthorizerFunc(
	func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionAllow, "", nil
	})

// tableResolver resolves a kind of the table to its resource.
var tableResolver resolver.ResourceResolver = kindResolver{}

type kindResolver struct{}

func (kindResolver) Resolve(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	for _, k := range all {
		if k.gvk() == gvk {
			return gvk.GroupVersion().WithResource(k.Plural), nil
		}
	}
	return schema.GroupVersionResource{}, fmt.Errorf("no built-in kind %s", gvk)
}

// unlabelledNamespaces is the client of Namespaces the resource.k8s.io
// strategies read a namespace's labels with (and nothing else): every
// namespace has none, so admin access to devices, which the label
// resource.kubernetes.io/admin-access grants, is refused with the
// cluster's message. The other methods are the nil interface's.
type unlabelledNamespaces struct {
	corev1client.NamespaceInterface
}

func (unlabelledNamespaces) Get(_ context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
}

// clusterTrustBundleAttrs are a ClusterTrustBundle's fields for field
// selectors, as its registry's store gives them.
func clusterTrustBundleAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	b, ok := obj.(*certificates.ClusterTrustBundle)
	if !ok {
		return nil, nil, fmt.Errorf("not a clustertrustbundle")
	}
	f := generic.ObjectMetaFieldsSet(&b.ObjectMeta, false)
	f["spec.signerName"] = b.Spec.SignerName
	return labels.Set(b.Labels), f, nil
}

// podCertificateRequestAttrs are a PodCertificateRequest's fields for
// field selectors, as its registry's store gives them.
func podCertificateRequestAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	r, ok := obj.(*certificates.PodCertificateRequest)
	if !ok {
		return nil, nil, fmt.Errorf("not a podcertificaterequest")
	}
	f := generic.ObjectMetaFieldsSet(&r.ObjectMeta, true)
	f["spec.signerName"] = r.Spec.SignerName
	f["spec.podName"] = r.Spec.PodName
	f["spec.nodeName"] = string(r.Spec.NodeName)
	return labels.Set(r.Labels), f, nil
}
