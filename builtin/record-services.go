//go:build ignore

// Command record-services records what a kube-apiserver answers about
// the cluster IPs and node ports of Services: creates that name them and
// that leave them to the server, collisions, values out of range, the
// IPAddress objects of the allocated IPs, the default ServiceCIDR, and a
// deletion that frees what a Service held. From builtin/, with the
// reference of ../shared/reference running with
// API_EXTRA_FLAGS=--service-cluster-ip-range=10.96.0.0/12 (kubeadm's
// range, which builtin serves):
//
//	API=https://127.0.0.1:6443 go run record-services.go
//
// It writes testdata/reference/services.json, which TestRecordedServices
// replays in order.
package main

import (
	"log"

	"github.com/apisem/apisem/internal/recorder"
)

// The steps, their requests and the file written are package recorder's.
type step = recorder.Step

var (
	do    = recorder.Do
	post  = recorder.Post
	patch = recorder.Patch
	del   = recorder.Delete
	get   = recorder.Get
)

const (
	services = "/api/v1/namespaces/alloc/services"
	ips      = "/apis/networking.k8s.io/v1/ipaddresses"
	cidrs    = "/apis/networking.k8s.io/v1/servicecidrs"
)

func service(name, spec string) string {
	return "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + name + "\n  namespace: alloc\nspec:\n  selector:\n    app: x\n" + spec
}

const port = "  ports:\n  - port: 80\n"

var steps = []step{
	post("namespace", "/api/v1/namespaces", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: alloc\n"),

	// Cluster IPs.
	post("allocated ip", services, service("auto", port)),
	post("named ip", services, service("named", port+"  clusterIP: 10.96.0.50\n")),
	get("ipaddress of the named ip", ips+"/10.96.0.50"),
	post("named ip taken", services, service("taken", port+"  clusterIP: 10.96.0.50\n")),
	post("named ips taken", services, service("taken", port+"  clusterIPs: [10.96.0.50]\n")),
	post("named ip out of range", services, service("outside", port+"  clusterIP: 10.112.0.5\n")),
	post("named ip network address", services, service("network", port+"  clusterIP: 10.96.0.0\n")),
	post("headless", services, service("headless", port+"  clusterIP: None\n")),
	post("external name", services, service("external", "  type: ExternalName\n  externalName: example.com\n")),
	post("same name again", services, service("auto", port)),
	post("dual stack required", services, service("dual", port+"  ipFamilyPolicy: RequireDualStack\n")),
	post("ipv6 named", services, service("v6", port+"  ipFamilies: [IPv6]\n")),
	post("dry run named ip", services+"?dryRun=All", service("dry", port+"  clusterIP: 10.96.0.60\n")),
	get("no ipaddress after a dry run", ips+"/10.96.0.60"),
	post("named ip after dry run", services, service("dry", port+"  clusterIP: 10.96.0.60\n")),
	get("ipaddresses by selector", ips+"?labelSelector=ipaddress.kubernetes.io/managed-by%3Dipallocator.k8s.io,ipaddress.kubernetes.io/ip-family%3DIPv4&fieldSelector=metadata.name%3D10.96.0.50"),
	get("servicecidr", cidrs+"/kubernetes"),
	patch("external name to cluster ip taken", services+"/external", `{"spec":{"type":"ClusterIP","externalName":null,"clusterIP":"10.96.0.50","ports":[{"port":80}]}}`),

	// Node ports.
	post("named node port", services, service("np", "  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 30080\n")),
	post("named node port taken", services, service("np-taken", "  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 30080\n")),
	post("node port out of range", services, service("np-low", "  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 29999\n")),
	post("two ports one node port", services, service("np-twice", "  type: NodePort\n  ports:\n  - name: a\n    port: 80\n    nodePort: 30090\n  - name: b\n    port: 81\n    nodePort: 30090\n")),
	post("allocated node port", services, service("np-auto", "  type: NodePort\n"+port)),
	patch("to node port taken", services+"/auto", `{"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30080}]}}`),
	post("load balancer health check port taken", services, service("lb", "  type: LoadBalancer\n  externalTrafficPolicy: Local\n  healthCheckNodePort: 30080\n"+port)),
	post("load balancer", services, service("lb", "  type: LoadBalancer\n  externalTrafficPolicy: Local\n  healthCheckNodePort: 30100\n  ports:\n  - port: 80\n    nodePort: 30101\n")),
	post("health check port taken", services, service("lb2", "  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 30100\n")),

	// Deletion frees them.
	del("delete named", services+"/named"),
	get("no ipaddress after delete", ips+"/10.96.0.50"),
	post("named ip again", services, service("taken", port+"  clusterIP: 10.96.0.50\n")),
	get("ipaddress of the new owner", ips+"/10.96.0.50"),
	del("delete node port", services+"/np"),
	post("named node port again", services, service("np-taken", "  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 30080\n")),
	patch("node port to cluster ip frees it", services+"/np-taken", `{"spec":{"type":"ClusterIP","ports":[{"port":80,"nodePort":null}]}}`),
	post("freed by type change", services, service("np", "  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 30080\n")),
	del("delete load balancer", services+"/lb"),
	post("health check port free", services, service("lb2", "  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 30100\n")),
}

func main() {
	var out []step
	for _, s := range steps {
		do(&s)
		log.Printf("%s: %d %s", s.Name, s.Code, s.Answer)
		out = append(out, s)
	}
	recorder.Write("testdata/reference/services.json", out)
}
