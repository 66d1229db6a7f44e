package builtin_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/builtin"
	"github.com/apisem/apisem/server"
)

// A server whose Services' cluster IPs are IPAddress objects in its
// store: the IP of one Service is refused to another with the cluster's
// 422, and its deletion frees it.
func ExampleServiceAllocator() {
	alloc := builtin.NewServiceAllocator()
	res, err := builtin.Resources(builtin.Options{Groups: []string{"", "networking.k8s.io"}, Allocator: alloc})
	if err != nil {
		log.Fatal(err)
	}
	s, err := server.New(server.Options{Resources: res})
	if err != nil {
		log.Fatal(err)
	}
	alloc.Bind(s)
	ctx := context.Background()
	if err := alloc.CreateServiceCIDR(ctx); err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Shutdown(ctx)

	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: ts.URL})
	svc := func(name string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.10", Ports: []corev1.ServicePort{{Port: 80}}}}
	}
	services := cs.CoreV1().Services("default")
	if _, err := services.Create(ctx, svc("a"), metav1.CreateOptions{}); err != nil {
		log.Fatal(err)
	}
	ip, err := cs.NetworkingV1().IPAddresses().Get(ctx, "10.96.0.10", metav1.GetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ip.Spec.ParentRef.Resource, ip.Spec.ParentRef.Name, ip.Labels["ipaddress.kubernetes.io/managed-by"])

	_, err = services.Create(ctx, svc("b"), metav1.CreateOptions{})
	fmt.Println(err)

	if err := services.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		log.Fatal(err)
	}
	b, err := services.Create(ctx, svc("b"), metav1.CreateOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Spec.ClusterIP)
	// Output:
	// services a ipallocator.k8s.io
	// Service "b" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated
	// 10.96.0.10
}
