package crd_test

import (
	"fmt"
	"net/url"

	"github.com/apisem/apisem/crd"
)

// A conversion webhook named by a service is called at the address
// Options.ResolveService gives; by default the service's DNS name, as
// kube-apiserver's default resolver gives it. A server that reaches its
// webhooks elsewhere (a sidecar on loopback) resolves them itself; the
// webhook's certificate is still checked for <name>.<namespace>.svc.
func ExampleResolveService() {
	u, _ := crd.ResolveService("webhooks", "conv", 443)
	fmt.Println(u)
	opts := crd.Options{ResolveService: func(namespace, name string, port int32) (*url.URL, error) {
		if namespace == "webhooks" && name == "conv" {
			return url.Parse("https://127.0.0.1:9443")
		}
		return crd.ResolveService(namespace, name, port)
	}}
	u, _ = opts.ResolveService("webhooks", "conv", 443)
	fmt.Println(u)
	// Output:
	// https://conv.webhooks.svc:443
	// https://127.0.0.1:9443
}
