package serverstore_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// switchable serves through whichever server is current, so that a
// server can be replaced under clients that keep one address.
type switchable struct{ cur atomic.Pointer[demo.Server] }

func (h *switchable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s := h.cur.Load(); s != nil {
		s.ServeHTTP(w, r)
		return
	}
	http.Error(w, "restarting", http.StatusServiceUnavailable)
}

// A server that stops in the middle of concurrent writes, its in-flight
// requests cut, is replaced by a new server over the same etcd: the new
// one serves every write the first acknowledged, at the resourceVersion
// it acknowledged, and a client-go informer that watched the first ends
// with exactly the objects in etcd.
func TestRestart(t *testing.T) {
	_, c := newEtcd(t)
	h := &switchable{}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	a := newDemo(t, c)
	h.cur.Store(a)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: hs.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("ns1"))
	inf := factory.Core().V1().ConfigMaps()
	inf.Informer() // registered with the factory, which starts it
	stop := make(chan struct{})
	factory.Start(stop)
	defer func() { close(stop); factory.Shutdown() }()
	syncStop := make(chan struct{})
	time.AfterFunc(10*time.Second, func() { close(syncStop) })
	if !cache.WaitForCacheSync(syncStop, inf.Informer().HasSynced) {
		t.Fatal("informer did not sync")
	}

	// 8 writers; the server goes away while they write.
	var (
		mu    sync.Mutex
		acked = map[string]string{} // name -> resourceVersion
		wg    sync.WaitGroup
		n     atomic.Int64
	)
	halfway := make(chan struct{})
	var once sync.Once
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				cm, err := cs.CoreV1().ConfigMaps("ns1").Create(ctx, &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%d-%d", w, i)}}, metav1.CreateOptions{})
				if err != nil {
					return // the server is gone
				}
				mu.Lock()
				acked[cm.Name] = cm.ResourceVersion
				mu.Unlock()
				if n.Add(1) == 40 {
					once.Do(func() { close(halfway) })
				}
			}
		})
	}
	writing := make(chan struct{})
	go func() { wg.Wait(); close(writing) }()
	select {
	case <-halfway:
	case <-writing:
		t.Fatalf("the writers stopped after %d writes, before the restart", n.Load())
	case <-time.After(30 * time.Second):
		t.Fatalf("only %d writes in 30 seconds", n.Load())
	}
	t0 := time.Now()
	defer func() { t.Logf("restart and recovery took %v", time.Since(t0)) }()
	h.cur.Store(nil) // from here, requests get 503
	cctx, cancel := context.WithCancel(ctx)
	cancel() // no grace: in-flight requests are cut
	a.Shutdown(cctx)
	<-writing

	t.Logf("writers stopped after %v", time.Since(t0))
	b := newDemo(t, c)
	t.Cleanup(func() { b.Shutdown(ctx) })
	h.cur.Store(b)
	list, err := cs.CoreV1().ConfigMaps("ns1").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	for _, cm := range list.Items {
		stored[cm.Name] = cm.ResourceVersion
	}
	mu.Lock()
	for name, rv := range acked {
		if stored[name] != rv {
			t.Errorf("acknowledged %s at %s; the new server has it at %q", name, rv, stored[name])
		}
	}
	t.Logf("%d writes acknowledged, %d stored", len(acked), len(stored))
	mu.Unlock()

	t.Logf("new server listed after %v", time.Since(t0))
	// A write through the new server reaches the informer, which then
	// holds exactly what etcd holds.
	if _, err := cs.CoreV1().ConfigMaps("ns1").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err = cs.CoreV1().ConfigMaps("ns1").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, 0, len(list.Items))
	for _, cm := range list.Items {
		want = append(want, cm.Name+"@"+cm.ResourceVersion)
	}
	slices.Sort(want)
	var got []string
	eventually(t, "the informer to hold what etcd holds", func() bool {
		objs, _ := inf.Lister().ConfigMaps("ns1").List(labels.Everything())
		got = got[:0]
		for _, cm := range objs {
			got = append(got, cm.Name+"@"+cm.ResourceVersion)
		}
		slices.Sort(got)
		return slices.Equal(got, want)
	})
	if !strings.Contains(strings.Join(got, " "), "after@") {
		t.Errorf("informer: %v", got)
	}
}
