package etcdstore_test

import (
	"context"
	"fmt"
	"log"
	"os"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apisem/apisem/etcdstore"
	"github.com/apisem/apisem/etcdstore/embedded"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/store/storetest"
)

// A resource keyed as kube-apiserver keys a built-in kind: apps
// Deployments under /registry/deployments, not /registry/apps/deployments
// (ResourceOptions.EtcdPrefix). An object an earlier apisem kept under
// the latter is moved when the resource starts.
func ExampleNew_etcdPrefix() {
	dir, err := os.MkdirTemp("", "etcd")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	e, err := embedded.Start(embedded.Options{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{e.Endpoint()}, Logger: zap.NewNop()})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	// Written by an earlier apisem.
	if _, err := c.Put(ctx, "/registry/apps/deployments/ns/old", `{"metadata":{"name":"old","namespace":"ns"}}`); err != nil {
		log.Fatal(err)
	}

	r, err := etcdstore.New(etcdstore.Options[*storetest.Widget]{Client: c}, store.ResourceOptions[*storetest.Widget]{
		GroupResource: status.GroupResource{Group: "apps", Resource: "deployments"},
		Namespaced:    true,
		EtcdPrefix:    "deployments",
	})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Create(ctx, storetest.NewWidget("ns", "new"), store.CreateOptions{}); err != nil {
		log.Fatal(err)
	}
	if _, err := r.Get(ctx, "ns", "old", rv.Read{Semantics: rv.MostRecent}); err != nil {
		log.Fatal(err)
	}
	resp, err := c.Get(ctx, "/registry/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		log.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		fmt.Println(string(kv.Key))
	}
	// Output:
	// /registry/deployments/ns/new
	// /registry/deployments/ns/old
}
