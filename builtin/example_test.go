package builtin_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/builtin"
	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
)

// A server of the apps group: a Deployment created without a strategy
// comes back with a cluster's defaults, and an invalid one gets the
// cluster's 422.
func Example() {
	res, err := builtin.Resources(builtin.Options{Groups: []string{"apps"}})
	if err != nil {
		log.Fatal(err)
	}
	s, err := server.New(server.Options{Resources: res})
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Shutdown(context.Background())

	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: ts.URL})
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	deploys := cs.AppsV1().Deployments("default")
	got, err := deploys.Create(context.Background(), d, metav1.CreateOptions{})
	if err != nil {
		log.Fatal(err)
	}
	st := got.Spec.Strategy
	fmt.Println(st.Type, st.RollingUpdate.MaxSurge, st.RollingUpdate.MaxUnavailable, *got.Spec.Replicas)

	d.Name, d.Spec.Selector = "bad", nil
	_, err = deploys.Create(context.Background(), d, metav1.CreateOptions{})
	fmt.Println(apierrors.IsInvalid(err), err)
	// Output:
	// RollingUpdate 25% 25% 1
	// true Deployment.apps "bad" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`]
}

// A server whose ResourceClaims read its Namespaces: admin access to
// devices is taken in a namespace labelled for it, and refused in
// another, as on a cluster.
func ExampleServerNamespaces() {
	nsr := &builtin.ServerNamespaces{}
	res, err := builtin.Resources(builtin.Options{Groups: []string{"resource.k8s.io"}, Namespaces: nsr})
	if err != nil {
		log.Fatal(err)
	}
	ns := namespace.New(namespace.Options{})
	s, err := server.New(server.Options{Resources: append(res, ns.Resource())})
	if err != nil {
		log.Fatal(err)
	}
	nsr.Bind(s)
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Shutdown(context.Background())

	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: ts.URL})
	for _, n := range []*corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "admin", Labels: map[string]string{"resource.kubernetes.io/admin-access": "true"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "apps"}},
	} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			log.Fatal(err)
		}
	}
	yes := true
	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "debug"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.example.com", AdminAccess: &yes}}}}}}
	for _, n := range []string{"admin", "apps"} {
		_, err := cs.ResourceV1().ResourceClaims(n).Create(ctx, claim, metav1.CreateOptions{})
		fmt.Println(n, err)
	}
	// Output:
	// admin <nil>
	// apps ResourceClaim.resource.k8s.io "debug" is invalid: spec.devices.requests[0].adminAccess: Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace
}
