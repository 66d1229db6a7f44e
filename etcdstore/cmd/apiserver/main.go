// Command apiserver runs the example API server of examples/apiserver on
// etcd: the same resources, flags and demo data, with every object stored
// in etcd, so that data outlives the server and several servers can serve
// one etcd. It lives in etcdstore's module, which has the etcd client, so
// that the library's module does not depend on etcd.
//
//	etcd --data-dir /tmp/apisem-etcd &   # or Debian's etcd-server package
//	go run -C etcdstore ./cmd/apiserver -etcd-servers http://127.0.0.1:2379
//	kubectl --server=http://127.0.0.1:8080 get configmaps -A
//
// Values are stored as kube-apiserver stores them: in the protobuf
// envelope for the types that have a protobuf form, JSON for the others;
// -storage-media-type application/json stores every value as JSON (etcdctl
// get shows it as is). Servers on one etcd and -etcd-prefix serve the same
// objects; a CustomResourceDefinition is Established once every one of
// them serves it. Without -etcd-servers it keeps objects in memory, as
// examples/apiserver.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apisem/apisem/etcdstore"
	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/app"
	"github.com/apisem/apisem/metrics"
)

func main() {
	var c app.Config
	c.Register(flag.CommandLine)
	servers := flag.String("etcd-servers", "", "etcd client URLs, comma-separated (e.g. http://127.0.0.1:2379); empty keeps objects in memory")
	prefix := flag.String("etcd-prefix", "/registry", "etcd key prefix of the objects")
	compaction := flag.Duration("etcd-compaction-interval", 5*time.Minute, "how often etcd's history is compacted (0: never)")
	mediaType := flag.String("storage-media-type", protobufMediaType,
		"how values are stored in etcd: "+protobufMediaType+" (for the types that have a protobuf form, JSON for the others) or "+jsonMediaType+" (every value)")
	flag.Parse()
	if *servers == "" {
		app.Main(&c, app.Delegate{})
		return
	}
	log := c.Logger()
	asJSON, err := storeJSON(*mediaType)
	if err != nil {
		log.Error("apiserver", "err", err)
		os.Exit(2)
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   strings.Split(*servers, ","),
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		log.Error("apiserver", "err", err)
		os.Exit(1)
	}
	defer client.Close()
	if *compaction > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go etcdstore.RunCompactor(ctx, client, *prefix, *compaction)
	}
	log.Info("storing objects in etcd", "servers", *servers, "prefix", *prefix, "media-type", *mediaType)
	// One Recorder for the server's metrics and etcd's
	// (etcd_request_duration_seconds), served at /metrics by app.Run.
	rec := &metrics.Recorder{}
	c.Server.Hooks.Metrics = rec
	so := serverstore.Options{Client: client, Prefix: *prefix, JSON: asJSON, Metrics: rec}
	// /readyz fails while etcd or the replica cannot serve; /livez only
	// once etcd has been down for a while (serverstore.Backend).
	b := serverstore.New(so)
	c.Server.Storage, c.Server.Hooks.HealthChecks = b.Storage, append(c.Server.Hooks.HealthChecks, b.HealthChecks()...)
	// Other servers on the same etcd and prefix serve the same
	// definitions: each is Established once all of them serve it.
	peers, err := serverstore.NewPeers(so)
	if err != nil {
		log.Error("apiserver", "err", err)
		os.Exit(1)
	}
	c.CRD.Peers = peers
	err = app.Run(log, &c, app.Delegate{})
	peers.Close() // after the server's shutdown has stopped its controllers
	if err != nil {
		log.Error("apiserver", "err", err)
		client.Close()
		os.Exit(1)
	}
}

// The values of -storage-media-type, as kube-apiserver's
// --storage-media-type names them.
const (
	jsonMediaType     = "application/json"
	protobufMediaType = "application/vnd.kubernetes.protobuf"
)

// storeJSON reports whether the media type stores every value as JSON.
func storeJSON(mediaType string) (bool, error) {
	switch mediaType {
	case jsonMediaType:
		return true, nil
	case protobufMediaType:
		return false, nil
	}
	return false, fmt.Errorf("-storage-media-type %q: supported media types are %s and %s", mediaType, jsonMediaType, protobufMediaType)
}
