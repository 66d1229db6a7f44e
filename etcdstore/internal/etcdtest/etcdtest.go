// Package etcdtest runs a real etcd inside a test (package embedded):
// loopback, ports chosen by the OS, data in a temporary directory.
package etcdtest

import (
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apisem/apisem/etcdstore/embedded"
)

// Etcd is a running etcd.
type Etcd struct {
	e   *embedded.Etcd
	Dir string // its data directory
	URL string // its client URL
}

// Start starts an etcd on dir with clientURL ("http://127.0.0.1:0" for a
// port the OS chooses); Cleanup stops it. Progress notifications come
// every 100ms, so that tests of code that waits for them are quick.
func Start(tb testing.TB, dir, clientURL string) *Etcd {
	tb.Helper()
	e, err := embedded.Start(embedded.Options{Dir: dir, ClientURL: clientURL, ProgressNotifyInterval: 100 * time.Millisecond,
		StartTimeout: 30 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	s := &Etcd{e: e, Dir: dir, URL: e.Endpoint()}
	tb.Cleanup(s.Stop)
	return s
}

// Stop stops the etcd; it is safe to call more than once.
func (s *Etcd) Stop() { s.e.Close() }

// Client returns a client of url; Cleanup closes it.
func Client(tb testing.TB, url string) *clientv3.Client {
	tb.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}
