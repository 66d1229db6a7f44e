package apisemtest_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/apisem/apisem/apisemtest"
)

// The built-in strategies read the environment's Namespaces: a
// ResourceClaim asking for admin access to devices is taken in a
// namespace labelled resource.kubernetes.io/admin-access: "true", and
// refused (422) in one without the label, as on a cluster.
func TestAdminAccessNamespace(t *testing.T) {
	env := apisemtest.Start(t, apisemtest.Options{Groups: []string{"", "resource.k8s.io"}})
	cs := kubernetes.NewForConfigOrDie(env.Config)
	ctx := t.Context()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "adm",
		Labels: map[string]string{"resource.kubernetes.io/admin-access": "true"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	yes := true
	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "rc"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "r",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "dc", AdminAccess: &yes}}}}}}
	if _, err := cs.ResourceV1().ResourceClaims("adm").Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Errorf("admin access in a labelled namespace: %v", err)
	}
	if _, err := cs.ResourceV1().ResourceClaims("default").Create(ctx, claim, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("admin access in default: %v, want a 422", err)
	}
}
