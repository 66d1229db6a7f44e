package embedded_test

import (
	"context"
	"fmt"
	"log"
	"os"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apisem/apisem/etcdstore/embedded"
)

// Example stores a key in an embedded etcd, stops it, starts it again on
// the same directory and reads the key back, at the revision it was
// written.
func Example() {
	dir, err := os.MkdirTemp("", "etcd")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	run := func(f func(c *clientv3.Client)) {
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
		f(c)
	}
	run(func(c *clientv3.Client) {
		resp, err := c.Put(ctx, "/registry/greeting", "hello")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("written at revision", resp.Header.Revision)
	})
	run(func(c *clientv3.Client) {
		resp, err := c.Get(ctx, "/registry/greeting")
		if err != nil {
			log.Fatal(err)
		}
		kv := resp.Kvs[0]
		fmt.Printf("after a restart: %s at revision %d\n", kv.Value, kv.ModRevision)
	})
	// Output:
	// written at revision 2
	// after a restart: hello at revision 2
}
