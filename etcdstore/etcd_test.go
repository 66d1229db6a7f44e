package etcdstore

import (
	"context"
	"maps"
	"net/url"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// widget is the stored type of the tests.
type widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            map[string]string `json:"spec,omitempty"`
}

func (w *widget) DeepCopy() *widget {
	out := &widget{TypeMeta: w.TypeMeta, Spec: maps.Clone(w.Spec)}
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return out
}

func newWidget(ns, name string) *widget {
	return &widget{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name}}
}

// etcdServer is a real etcd in the test process: loopback, ports chosen
// by the OS, data in a temporary directory.
type etcdServer struct {
	e   *embed.Etcd
	dir string
	url string
}

func startEtcd(t testing.TB, dir string, clientURL string) *etcdServer {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	peer, _ := url.Parse("http://127.0.0.1:0")
	client, _ := url.Parse(clientURL)
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	cfg.WatchProgressNotifyInterval = 100 * time.Millisecond
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		e.Close()
		t.Fatal("etcd did not start")
	}
	return &etcdServer{e: e, dir: dir, url: "http://" + e.Clients[0].Addr().String()}
}

func (s *etcdServer) stop() { s.e.Close() }

// newEtcd starts an etcd for the test and returns a client of it.
func newEtcd(t testing.TB) (*etcdServer, *clientv3.Client) {
	t.Helper()
	s := startEtcd(t, t.TempDir(), "http://127.0.0.1:0")
	t.Cleanup(s.stop)
	return s, newClient(t, s.url)
}

func newClient(t testing.TB, url string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func widgetOptions() store.ResourceOptions[*widget] {
	return store.ResourceOptions[*widget]{
		GroupResource: status.GroupResource{Group: "example.com", Resource: "widgets"},
		Kind:          "Widget",
		Namespaced:    true,
	}
}

func newResource(t testing.TB, c *clientv3.Client, opts Options[*widget]) *Resource[*widget] {
	t.Helper()
	opts.Client = c
	r, err := New(opts, widgetOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func TestSmoke(t *testing.T) {
	_, c := newEtcd(t)
	r := newResource(t, c, Options[*widget]{})
	ctx := context.Background()
	out, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.ResourceVersion, slices.Collect(maps.Keys(map[string]int{})))
}
