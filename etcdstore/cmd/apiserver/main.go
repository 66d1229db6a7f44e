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
// Without -etcd-servers it keeps objects in memory, as examples/apiserver.
package main

import (
	"context"
	"flag"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apisem/apisem/etcdstore"
	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/app"
)

func main() {
	var c app.Config
	c.Register(flag.CommandLine)
	servers := flag.String("etcd-servers", "", "etcd client URLs, comma-separated (e.g. http://127.0.0.1:2379); empty keeps objects in memory")
	prefix := flag.String("etcd-prefix", "/registry", "etcd key prefix of the objects")
	compaction := flag.Duration("etcd-compaction-interval", 5*time.Minute, "how often etcd's history is compacted (0: never)")
	flag.Parse()
	if *servers == "" {
		app.Main(&c, app.Delegate{})
		return
	}
	log := c.Logger()
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
	log.Info("storing objects in etcd", "servers", *servers, "prefix", *prefix)
	c.Limits.Storage = serverstore.Storage(serverstore.Options{Client: client, Prefix: *prefix})
	if err := app.Run(log, &c, app.Delegate{}); err != nil {
		log.Error("apiserver", "err", err)
		client.Close()
		os.Exit(1)
	}
}
