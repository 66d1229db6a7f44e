// Command apiserver runs the example API server of examples/apiserver on
// etcd: the same resources, flags and demo data, with every object stored
// in etcd, so that data outlives the server and several servers can serve
// one etcd. It lives in etcdstore's module, which has the etcd client, so
// that the library's module does not depend on etcd.
//
//	etcd --data-dir /tmp/etcd &   # or Debian's etcd-server package
//	go run -C etcdstore ./cmd/apiserver -etcd-servers http://127.0.0.1:2379
//	kubectl --server=http://127.0.0.1:8080 get configmaps -A
//
// Without -etcd-servers it keeps objects in memory, as examples/apiserver.
package main

import (
	"context"
	"flag"
	"log/slog"
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
	cmd := app.NewCommand(flag.CommandLine)
	servers := flag.String("etcd-servers", "", "etcd client URLs, comma-separated (e.g. http://127.0.0.1:2379); empty keeps objects in memory")
	prefix := flag.String("etcd-prefix", "/registry", "etcd key prefix of the objects")
	compaction := flag.Duration("etcd-compaction-interval", 5*time.Minute, "how often etcd's history is compacted (0: never)")
	flag.Parse()
	log := cmd.Logger()
	if err := run(log, cmd, *servers, *prefix, *compaction); err != nil {
		log.Error("apiserver", "err", err)
		os.Exit(1)
	}
}

func run(log *slog.Logger, cmd *app.Command, servers, prefix string, compaction time.Duration) error {
	if servers == "" {
		return cmd.Run(log, nil)
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   strings.Split(servers, ","),
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return err
	}
	defer client.Close()
	if compaction > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go etcdstore.RunCompactor(ctx, client, prefix, compaction)
	}
	log.Info("storing objects in etcd", "servers", servers, "prefix", prefix)
	return cmd.Run(log, serverstore.Storage(serverstore.Options{Client: client, Prefix: prefix}))
}
