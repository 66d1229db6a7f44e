// Command apiserver runs the example Kubernetes-compatible API server:
// core v1 Namespaces, ConfigMaps, Secrets and Events, and the custom resource
// widgets.example.apisem.dev/v1, kept in memory, served to kubectl and
// client-go as a kube-apiserver would.
//
//	go run ./examples/apiserver             # listens on 127.0.0.1:8080
//	go run ./examples/apiserver -addr :9090
//	go run ./examples/apiserver -crd-dir config/crd/bases
//	kubectl --server=http://127.0.0.1:8080 get configmaps -A
//
// It seeds a little demo data, logs one line per request with log/slog,
// and stops gracefully on SIGINT or SIGTERM.
//
// kube-apiserver's serving and authentication flags make it an HTTPS
// server that authenticates and authorizes its callers:
//
//	go run ./examples/apiserver -cert-dir /tmp/apisem -client-ca-file ca.crt
//
// -tls-cert-file and -tls-private-key-file (or -cert-dir, self-signed),
// -client-ca-file, -requestheader-client-ca-file,
// -requestheader-allowed-names and the -requestheader-*-headers flags,
// -anonymous-auth, -authorization-always-allow-paths and
// -authorization-always-allow-groups. Without a host cluster every
// authenticated user may do everything; examples/aggregated runs the same
// server as an aggregated API server of a cluster, which reviews tokens
// and permissions.
//
// The same server on etcd is etcdstore/cmd/apiserver, in etcdstore's
// module (this module does not depend on etcd):
//
//	go run -C etcdstore ./cmd/apiserver -etcd-servers http://127.0.0.1:2379
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
	etcd := flag.String("etcd-servers", "", "not in this build, which keeps objects in memory: see etcdstore/cmd/apiserver")
	flag.Parse()
	if *etcd != "" {
		fmt.Fprintln(os.Stderr, "this build of the example server keeps objects in memory; for etcd run its etcd build:\n"+
			"    go run -C etcdstore ./cmd/apiserver -etcd-servers "+*etcd)
		os.Exit(2)
	}
	app.Main(&c, app.Delegate{})
}
