package builtin_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/builtin"
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
