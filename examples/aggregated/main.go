// Command aggregated runs the example API server (examples/apiserver) as
// an aggregated API server of a Kubernetes cluster: the cluster's
// aggregator forwards requests for the server's API groups to it over
// TLS with the user in X-Remote-* headers; bearer tokens and permissions
// are reviewed by the cluster (TokenReview, SubjectAccessReview); the
// front proxy's CA and names come from the cluster's
// kube-system/extension-apiserver-authentication ConfigMap.
//
//	go run . -kubeconfig ~/.kube/config -cert-dir /tmp/apisem -addr 127.0.0.1:8443
//
// It takes every flag of examples/apiserver plus -kubeconfig,
// -authentication-kubeconfig, -authorization-kubeconfig and
// -authentication-skip-lookup, as kube-apiserver's aggregated servers do.
// It is a module of its own because it links client-go, which the
// library does not depend on. README.md shows the APIService
// registration.
package main

import (
	"context"
	"flag"
	"os"
	"time"

	"github.com/apisem/apisem/auth/kubedelegate"
	"github.com/apisem/apisem/examples/apiserver/app"
)

func main() {
	var c app.Config
	c.Register(flag.CommandLine)
	var o kubedelegate.Options
	flag.StringVar(&o.Kubeconfig, "kubeconfig", "", "the host cluster (default: the in-cluster configuration)")
	flag.StringVar(&o.AuthenticationKubeconfig, "authentication-kubeconfig", "", "the cluster that reviews tokens and publishes the front-proxy CA (default: -kubeconfig)")
	flag.StringVar(&o.AuthorizationKubeconfig, "authorization-kubeconfig", "", "the cluster that reviews permissions (default: -kubeconfig)")
	flag.BoolVar(&o.SkipLookup, "authentication-skip-lookup", false, "do not read kube-system/extension-apiserver-authentication; use the -requestheader-* and -client-ca-file flags only")
	flag.Parse()

	log := c.Logger()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	d, err := kubedelegate.New(ctx, o)
	cancel()
	if err != nil {
		log.Error("delegating to the host cluster", "err", err)
		os.Exit(1)
	}
	app.Main(&c, app.Delegate{
		Tokens:        d.Tokens,
		Access:        d.Access,
		ClientCA:      d.Authentication.ClientCA,
		RequestHeader: d.Authentication.RequestHeader,
	})
}
