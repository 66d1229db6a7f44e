// Package etcdtest runs a real etcd inside a test: loopback, ports chosen
// by the OS, data in a temporary directory.
package etcdtest

import (
	"net/url"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Etcd is a running etcd.
type Etcd struct {
	e    *embed.Etcd
	Dir  string // its data directory
	URL  string // its client URL
	once sync.Once
}

// Start starts an etcd on dir with clientURL ("http://127.0.0.1:0" for a
// port the OS chooses); Cleanup stops it.
func Start(tb testing.TB, dir, clientURL string) *Etcd {
	tb.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	peer, _ := url.Parse("http://127.0.0.1:0")
	client, err := url.Parse(clientURL)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	cfg.WatchProgressNotifyInterval = 100 * time.Millisecond
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		e.Close()
		tb.Fatal("etcd did not start")
	}
	s := &Etcd{e: e, Dir: dir, URL: "http://" + e.Clients[0].Addr().String()}
	tb.Cleanup(s.Stop)
	return s
}

// Stop stops the etcd; it is safe to call more than once.
func (s *Etcd) Stop() { s.once.Do(s.e.Close) }

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
