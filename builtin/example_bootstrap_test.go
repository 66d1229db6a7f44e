package builtin_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/builtin"
	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
)

// A server that starts as kube-apiserver does: after Bootstrap it has
// the kubernetes Service, cluster-admin and the other bootstrap RBAC
// objects, the system PriorityClasses and the API Priority and Fairness
// configuration. Called again (a restart on etcd) it writes nothing.
func ExampleBootstrap() {
	alloc := builtin.NewServiceAllocator()
	res, err := builtin.Resources(builtin.Options{Allocator: alloc})
	if err != nil {
		log.Fatal(err)
	}
	ns := namespace.New(namespace.Options{})
	opts := server.Options{Resources: append(res, ns.Resource())}
	opts.Admission = ns.Admission(opts.Admission)
	s, err := server.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	ns.Bind(s)
	alloc.Bind(s)
	ctx := context.Background()
	if err := ns.CreateSystemNamespaces(ctx); err != nil {
		log.Fatal(err)
	}
	if err := builtin.Bootstrap(ctx, s, builtin.BootstrapOptions{SecurePort: 6443}); err != nil {
		log.Fatal(err)
	}
	rev := s.Revision()
	if err := builtin.Bootstrap(ctx, s, builtin.BootstrapOptions{SecurePort: 6443}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("second Bootstrap wrote:", s.Revision() != rev)

	ts := httptest.NewServer(s)
	defer ts.Close()
	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: ts.URL})
	svc, err := cs.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(svc.Spec.ClusterIP, svc.Spec.Ports[0].Name, svc.Spec.Ports[0].Port, svc.Spec.Ports[0].TargetPort.IntValue())
	admin, err := cs.RbacV1().ClusterRoles().Get(ctx, "cluster-admin", metav1.GetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(admin.Rules[0].Verbs, admin.Rules[0].Resources, admin.Annotations["rbac.authorization.kubernetes.io/autoupdate"])
	pcs, err := cs.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, pc := range pcs.Items {
		fmt.Println(pc.Name, pc.Value)
	}
	// Output:
	// second Bootstrap wrote: false
	// 10.96.0.1 https 443 6443
	// [*] [*] true
	// system-cluster-critical 2000000000
	// system-node-critical 2000001000
}
