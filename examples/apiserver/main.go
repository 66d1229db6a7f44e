// Command apiserver is the example Kubernetes-compatible API server built
// from the library's module alone: core v1 Namespaces, ConfigMaps,
// Secrets and Events and the custom resource widgets.example.apisem.dev/v1,
// kept in memory. It compiles in seconds with nothing to download, for
// work on the library itself:
//
//	go run ./examples/apiserver             # listens on 127.0.0.1:8080
//	go run ./examples/apiserver -crd-dir config/crd/bases
//
// The server to run is examples/server, the same server (package app,
// the same flags and demo data) with everything this build leaves out
// because the library's module does not depend on etcd, client-go or
// Kubernetes' CEL code: etcd, an embedded etcd, x-kubernetes-validations
// rules, and a host cluster's delegated authentication and authorization:
//
//	go -C examples/server run . -etcd-data-dir /tmp/apisem
//
// This build takes package app's flags (serving, TLS and authentication
// with -cert-dir, -client-ca-file and the -requestheader-* flags, where
// every authenticated user may do everything) and refuses those of
// examples/server with a pointer to it.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/apisem/apisem/examples/apiserver/app"
)

func main() {
	var c app.Config
	c.Register(flag.CommandLine)
	// Flags of examples/server, so that a user who passes them here
	// learns where they work instead of reading "flag provided but not
	// defined".
	theirs := map[string]*string{}
	for _, name := range []string{"etcd-servers", "etcd-data-dir", "kubeconfig"} {
		theirs[name] = flag.String(name, "", "not in this build: see examples/server")
	}
	flag.Parse()
	for name, v := range theirs {
		if *v != "" {
			fmt.Fprintf(os.Stderr, "-%s is not in this build of the example server, which keeps objects in memory and has no host cluster; run the one with everything:\n"+
				"    go -C examples/server run . -%s %s\n", name, name, *v)
			os.Exit(2)
		}
	}
	app.Main(&c, app.Delegate{})
}
