package apisemtest_test

import (
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/apisem/apisem/apisemtest"
)

// A controller's access checks work in the environment as on a
// cluster: the review APIs answer (everything is allowed, as for a
// cluster-admin: the environment has no authorizer), and an invalid
// review gets the cluster's 422.
func TestAccessReviews(t *testing.T) {
	env := apisemtest.Start(t, apisemtest.Options{Groups: []string{"", "authentication.k8s.io", "authorization.k8s.io"}})
	cs := kubernetes.NewForConfigOrDie(env.Config)
	ctx := t.Context()
	self, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "pods", Namespace: "default"}},
	}, metav1.CreateOptions{})
	if err != nil || !self.Status.Allowed {
		t.Errorf("self review: %+v, %v", self, err)
	}
	sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/healthz"}},
	}, metav1.CreateOptions{})
	if err != nil || !sar.Status.Allowed || sar.Spec.User != "alice" {
		t.Errorf("subject review: %+v, %v", sar, err)
	}
	_, err = cs.AuthorizationV1().LocalSubjectAccessReviews("default").Create(ctx, &authorizationv1.LocalSubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods", Namespace: "other"}},
	}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || err.Error() != `.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace` {
		t.Errorf("local review of another namespace: %v, want the cluster's 422", err)
	}
	who, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil || who.CreationTimestamp.IsZero() {
		t.Errorf("self subject review: %+v, %v", who, err)
	}
}
