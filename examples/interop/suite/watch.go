package suite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/server"
)

// recorder collects an informer's notifications as "ADD name" lines.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
}

func (r *recorder) has(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.events, s)
}

func (r *recorder) handler() cache.ResourceEventHandler {
	name := func(o any) string {
		if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
			o = d.Obj
		}
		return o.(*corev1.ConfigMap).Name
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) { r.add("ADD " + name(o)) },
		UpdateFunc: func(old, o any) {
			if old.(*corev1.ConfigMap).ResourceVersion != o.(*corev1.ConfigMap).ResourceVersion {
				r.add("UPDATE " + name(o) + " " + o.(*corev1.ConfigMap).Data["k"])
			}
		},
		DeleteFunc: func(o any) { r.add("DELETE " + name(o)) },
	}
}

// featureGates is held by a test that sets client-go's feature gates,
// which are the process's, until it ends: runs of the suite may be
// parallel.
var featureGates sync.Mutex

// setWatchListClient sets client-go's WatchListClient feature for the
// test, once no other test sets feature gates.
func setWatchListClient(t *testing.T, on bool) {
	featureGates.Lock()
	t.Cleanup(featureGates.Unlock) // after the feature's restoration
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, on)
}

// A shared informer syncs and then follows creates, updates and deletes,
// with client-go's streaming list (WatchListClient) on and off; with it on
// the informer must not fall back to a LIST.
func (e env) informer(t *testing.T) {
	for _, watchList := range []bool{false, true} {
		t.Run(fmt.Sprint("WatchListClient=", watchList), func(t *testing.T) {
			setWatchListClient(t, watchList)
			ts := e.start(t, demo.Options{})
			cs := ts.clientset(t, true)
			ctx := context.Background()
			namespace(t, cs, "ns1")
			namespace(t, cs, "ns2")
			cms := cs.CoreV1().ConfigMaps("ns1")
			for i := range 3 {
				cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("pre", i)}}, metav1.CreateOptions{})
			}
			cs.CoreV1().ConfigMaps("ns2").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, metav1.CreateOptions{})

			factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("ns1"))
			inf := factory.Core().V1().ConfigMaps()
			var rec recorder
			if _, err := inf.Informer().AddEventHandler(rec.handler()); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			factory.Start(stop)
			defer func() { close(stop); factory.Shutdown() }()
			if !cache.WaitForCacheSync(stop, inf.Informer().HasSynced) {
				t.Fatal("informer did not sync")
			}
			if got, _ := inf.Lister().ConfigMaps("ns1").List(labels.Everything()); len(got) != 3 {
				t.Fatalf("synced %d objects; want 3", len(got))
			}

			cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}, Data: map[string]string{"k": "1"}}, metav1.CreateOptions{})
			cms.Patch(ctx, "new", "application/merge-patch+json", []byte(`{"data":{"k":"2"}}`), metav1.PatchOptions{})
			cms.Delete(ctx, "pre0", metav1.DeleteOptions{})
			cs.CoreV1().ConfigMaps("ns2").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other2"}}, metav1.CreateOptions{})
			for _, e := range []string{"ADD pre0", "ADD pre1", "ADD pre2", "ADD new", "UPDATE new 2", "DELETE pre0"} {
				Eventually(t, e, func() bool { return rec.has(e) })
			}
			if rec.has("ADD other") || rec.has("ADD other2") {
				t.Errorf("the informer saw another namespace's objects: %v", rec.events)
			}

			streamed := ts.served("GET /api/v1/namespaces/ns1/configmaps?", "sendInitialEvents=true", "watch=true")
			var lists []string
			for _, r := range ts.served("GET /api/v1/namespaces/ns1/configmaps?") {
				if !strings.Contains(r, "watch=true") {
					lists = append(lists, r)
				}
			}
			if watchList && (len(streamed) == 0 || len(lists) != 0) {
				t.Errorf("WatchListClient on: streaming watches %q, lists %q; want a stream and no list", streamed, lists)
			}
			if !watchList && (len(streamed) != 0 || len(lists) == 0) {
				t.Errorf("WatchListClient off: streaming watches %q, lists %q; want a list and no stream", streamed, lists)
			}
		})
	}
}

// A reflector whose watch is resumed after history was compacted gets the
// 410 ERROR event and recovers with a fresh list: its store ends up
// complete and it watches on from the new resourceVersion.
func (e env) reflectorRecoversFrom410(t *testing.T) {
	setWatchListClient(t, false)
	ts := e.start(t, demo.Options{})
	cs := ts.clientset(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	namespace(t, cs, "ns1")
	cms := cs.CoreV1().ConfigMaps("ns1")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Watches started before the test stops the one that delivered "c"
	// pass straight through (a reflector may have to retry one on a busy
	// machine); those started after it wait until history is compacted,
	// so that they resume from a compacted resourceVersion.
	var watches atomic.Int32
	var stopping atomic.Bool
	compacted := make(chan struct{})
	var mu sync.Mutex
	var current watch.Interface
	expired := make(chan *metav1.Status, 1)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			l, err := cms.List(ctx, o)
			if err != nil {
				t.Logf("list %+v: %v", o, err)
			}
			return l, err
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			watches.Add(1)
			resumed := stopping.Load()
			if resumed {
				select {
				case <-compacted:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			w, err := cms.Watch(ctx, o)
			if err != nil {
				t.Logf("watch %+v: %v", o, err)
				return nil, err
			}
			if !resumed {
				mu.Lock()
				current = w
				mu.Unlock()
				return w, nil
			}
			// Record the ERROR event the reflector is about to get.
			return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
				if st, ok := e.Object.(*metav1.Status); ok && e.Type == watch.Error {
					select {
					case expired <- st:
					default:
					}
				}
				return e, true
			}), nil
		},
	}
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	r := cache.NewReflector(lw, &corev1.ConfigMap{}, store, 0)
	done := make(chan struct{})
	go func() { r.RunWithContext(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	Eventually(t, "the first sync", func() bool { return len(store.List()) == 1 })
	// The watch delivers an event before it ends. The reflector resumes a
	// watch that delivered something, whatever its length; one that ended
	// within a second with no events would make it relist, and the test
	// would then depend on the machine's timing.
	c, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	synced := c.ResourceVersion
	Eventually(t, "the watch's event", func() bool { return r.LastSyncResourceVersion() == synced })
	stopping.Store(true)
	before := watches.Load()
	mu.Lock()
	current.Stop()
	mu.Unlock()
	for i := range 5 {
		cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("b", i)}}, metav1.CreateOptions{})
	}
	ts.Compact()
	close(compacted)

	select {
	case st := <-expired:
		if st.Code != 410 || st.Reason != metav1.StatusReasonExpired {
			t.Errorf("ERROR event status %+v; want 410 Expired", st)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no ERROR event on the resumed watch: %q", ts.served(""))
	}
	Eventually(t, "the store to hold every object", func() bool { return len(store.List()) == 7 })
	// The resumed watch, then one after the relist.
	Eventually(t, "a watch past the compaction", func() bool { return watches.Load() >= before+2 })
	// Resumed, not relisted: the second watch started where the first
	// one's last event left off.
	if got := ts.served("GET /api/v1/namespaces/ns1/configmaps?", "resourceVersion="+synced+"&", "watch=true"); len(got) != 1 {
		t.Errorf("watches at %s: %q; want exactly the resumed one", synced, got)
	}
}

// Watches that allow bookmarks get periodic BOOKMARK events at the latest
// resourceVersion; a streaming list gets the initial-events-end bookmark.
func (e env) watchBookmarks(t *testing.T) {
	ts := e.start(t, demo.Options{Watch: server.WatchOptions{BookmarkInterval: 50 * time.Millisecond}})
	cs := ts.clientset(t, true)
	ctx := context.Background()
	namespace(t, cs, "ns1")
	cms := cs.CoreV1().ConfigMaps("ns1")
	cm, _ := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})

	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// A write in another namespace moves the resourceVersion on; the
	// bookmark reports it although this watch saw no event.
	namespace(t, cs, "ns2")
	other, _ := cs.CoreV1().ConfigMaps("ns2").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{})
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-w.ResultChan():
			if e.Type != watch.Bookmark {
				t.Fatalf("unexpected event %s", e.Type)
			}
			if rv := e.Object.(*corev1.ConfigMap).ResourceVersion; rv == other.ResourceVersion {
				goto streaming
			}
		case <-deadline:
			t.Fatalf("no bookmark at %s", other.ResourceVersion)
		}
	}

streaming:
	sendInitial := true
	w2, err := cms.Watch(ctx, metav1.ListOptions{SendInitialEvents: &sendInitial, AllowWatchBookmarks: true,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	ev := Next(t, w2, "the initial event")
	if ev.Type != watch.Added || ev.Object.(*corev1.ConfigMap).Name != "a" {
		t.Fatalf("first event %s %v; want ADDED a", ev.Type, ev.Object)
	}
	ev = Next(t, w2, "the initial-events-end bookmark")
	bm, ok := ev.Object.(*corev1.ConfigMap)
	if ev.Type != watch.Bookmark || !ok || bm.Annotations[metav1.InitialEventsAnnotationKey] != "true" || bm.ResourceVersion == "" {
		t.Fatalf("second event %s %+v; want the initial-events-end bookmark", ev.Type, ev.Object)
	}
}
