package etcdstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apisem/apisem/etcdstore/internal/etcdtest"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
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

// etcdServer is a real etcd in the test process (see package etcdtest).
type etcdServer struct{ *etcdtest.Etcd }

func startEtcd(t testing.TB, dir string, clientURL string) *etcdServer {
	t.Helper()
	e := etcdtest.Start(t, dir, clientURL)
	return &etcdServer{e}
}

func (s *etcdServer) stop() { s.Stop() }

// newEtcd starts an etcd for the test and returns a client of it.
func newEtcd(t testing.TB) (*etcdServer, *clientv3.Client) {
	t.Helper()
	s := startEtcd(t, t.TempDir(), "http://127.0.0.1:0")
	return s, newClient(t, s.URL)
}

func newClient(t testing.TB, url string) *clientv3.Client {
	t.Helper()
	return etcdtest.Client(t, url)
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

// wantStatus checks err's code, reason and exact message.
func wantStatus(t testing.TB, what string, err error, code int, reason status.Reason, msg string) {
	t.Helper()
	var se *status.Error
	if !errors.As(err, &se) {
		t.Fatalf("%s: err = %v (%T); want %d %s %q", what, err, err, code, reason, msg)
	}
	if se.Code() != code || se.Status.Reason != reason || (msg != "" && se.Error() != msg) {
		t.Fatalf("%s: got %d %q %q\nwant %d %q %q", what, se.Code(), se.Status.Reason, se.Error(), code, reason, msg)
	}
}

var latest = rv.Read{Semantics: rv.MostRecent}

func TestCRUD(t *testing.T) {
	_, c := newEtcd(t)
	r := newResource(t, c, Options[*widget]{})
	ctx := context.Background()
	a, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The resourceVersion is etcd's modification revision of the key.
	resp, err := c.Get(ctx, "/registry/example.com/widgets/ns/a")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("etcd get: %v %v", resp, err)
	}
	if a.ResourceVersion != strconv.FormatInt(resp.Kvs[0].ModRevision, 10) || a.UID == "" {
		t.Errorf("created %s uid %q; etcd has mod revision %d", a.ResourceVersion, a.UID, resp.Kvs[0].ModRevision)
	}
	if strings.Contains(string(resp.Kvs[0].Value), "resourceVersion") {
		t.Errorf("the value carries a resourceVersion: %s", resp.Kvs[0].Value)
	}
	stale := a.ResourceVersion
	a.Spec = map[string]string{"x": "1"}
	a2, err := r.Update(ctx, a, store.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a2.ResourceVersion <= stale {
		t.Errorf("update kept resourceVersion %s", a2.ResourceVersion)
	}
	dry, err := r.Create(ctx, newWidget("ns", "dry"), store.CreateOptions{DryRun: true})
	if err != nil || dry.Name != "dry" {
		t.Fatalf("dry-run create: %v", err)
	}
	g, err := r.Create(ctx, &widget{ObjectMeta: meta.ObjectMeta{Namespace: "ns", GenerateName: "gen-"}}, store.CreateOptions{})
	if err != nil || !strings.HasPrefix(g.Name, "gen-") || len(g.Name) != 9 {
		t.Fatalf("generateName: %v %v", g, err)
	}
	fin := newWidget("ns", "fin")
	fin.Finalizers = []string{"example.com/hold"}
	if _, err := r.Create(ctx, fin, store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name   string
		op     func() error
		code   int
		reason status.Reason
		msg    string
	}{
		{"create existing", func() error { _, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{}); return err },
			409, status.ReasonAlreadyExists, `widgets.example.com "a" already exists`},
		{"update stale", func() error {
			w := newWidget("ns", "a")
			w.ResourceVersion = stale
			_, err := r.Update(ctx, w, store.UpdateOptions{})
			return err
		}, 409, status.ReasonConflict, `Operation cannot be fulfilled on widgets.example.com "a": the object has been modified; please apply your changes to the latest version and try again`},
		{"update missing", func() error { _, err := r.Update(ctx, newWidget("ns", "zz"), store.UpdateOptions{}); return err },
			404, status.ReasonNotFound, `widgets.example.com "zz" not found`},
		{"delete precondition", func() error {
			_, _, err := r.Delete(ctx, "ns", "a", store.DeleteOptions{Preconditions: store.Preconditions{ResourceVersion: &stale}})
			return err
		}, 409, status.ReasonConflict, `Operation cannot be fulfilled on Widget.example.com "a": the ResourceVersion in the precondition (` + stale + `) does not match the ResourceVersion in record (` + a2.ResourceVersion + `). The object might have been modified`},
		{"delete missing", func() error { _, _, err := r.Delete(ctx, "ns", "zz", store.DeleteOptions{}); return err },
			404, status.ReasonNotFound, `widgets.example.com "zz" not found`},
		{"get dry-run object", func() error { _, err := r.Get(ctx, "ns", "dry", latest); return err },
			404, status.ReasonNotFound, `widgets.example.com "dry" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) { wantStatus(t, tc.name, tc.op(), tc.code, tc.reason, tc.msg) })
	}

	// Two-phase deletion: marked, then gone when the finalizer goes.
	marked, deleted, err := r.Delete(ctx, "ns", "fin", store.DeleteOptions{})
	if err != nil || deleted || marked.DeletionTimestamp == nil {
		t.Fatalf("delete with a finalizer: %v deleted=%v", err, deleted)
	}
	_, err = r.Create(ctx, newWidget("ns", "fin"), store.CreateOptions{})
	wantStatus(t, "create terminating", err, 409, status.ReasonAlreadyExists, `object is being deleted: widgets.example.com "fin" already exists`)
	out, err := r.GuaranteedUpdate(ctx, "ns", "fin", store.UpdateOptions{}, func(cur *widget) (*widget, error) {
		cur.Finalizers = nil
		return cur, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "ns", "fin", latest); !status.IsNotFound(err) {
		t.Errorf("after the last finalizer: %v, %v", out, err)
	}
	// Dry-run delete leaves it; deletecollection takes the rest.
	if _, deleted, err := r.Delete(ctx, "ns", "a", store.DeleteOptions{DryRun: true}); err != nil || !deleted {
		t.Fatalf("dry-run delete: %v %v", deleted, err)
	}
	gone, err := r.DeleteCollection(ctx, "ns", store.ListOptions{}, store.DeleteOptions{})
	if err != nil || len(gone) != 2 {
		t.Fatalf("deletecollection: %d, %v", len(gone), err)
	}
	p, err := r.List(ctx, "", store.ListOptions{Read: latest})
	if err != nil || p.Len() != 0 {
		t.Fatalf("list after deletecollection: %v", err)
	}
}

// TestConcurrentWriters: two replicas on one etcd, racing on one object:
// exactly one update per version wins, the other gets 409; the same name
// created through both: one wins.
func TestConcurrentWriters(t *testing.T) {
	_, c := newEtcd(t)
	a := newResource(t, c, Options[*widget]{})
	b := newResource(t, newClient(t, c.Endpoints()[0]), Options[*widget]{})
	ctx := context.Background()
	w, err := a.Create(ctx, newWidget("ns", "x"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for _, r := range []*Resource[*widget]{a, b} {
		go func() {
			u := w.DeepCopy()
			u.Spec = map[string]string{"by": fmt.Sprint(r == a)}
			_, err := r.Update(ctx, u, store.UpdateOptions{})
			errs <- err
		}()
	}
	e1, e2 := <-errs, <-errs
	if (e1 == nil) == (e2 == nil) || !status.IsConflict(cmp.Or(e1, e2)) {
		t.Errorf("racing updates: %v, %v; want one success and one 409", e1, e2)
	}
	for _, r := range []*Resource[*widget]{a, b} {
		go func() {
			_, err := r.Create(ctx, newWidget("ns", "y"), store.CreateOptions{})
			errs <- err
		}()
	}
	e1, e2 = <-errs, <-errs
	if (e1 == nil) == (e2 == nil) || !status.IsAlreadyExists(cmp.Or(e1, e2)) {
		t.Errorf("racing creates: %v, %v; want one success and one 409", e1, e2)
	}
	// A consistent read on b sees a's write at once.
	got, err := b.Get(ctx, "ns", "y", latest)
	if err != nil {
		t.Fatal(err)
	}
	direct, _ := c.Get(ctx, b.EtcdKey("ns", "y"))
	if got.ResourceVersion != strconv.FormatInt(direct.Kvs[0].ModRevision, 10) {
		t.Errorf("b reads version %s; etcd has %d", got.ResourceVersion, direct.Kvs[0].ModRevision)
	}
}

// TestPagedListOneSnapshot: the pages of a list are one snapshot at the
// first page's revision, on whichever replica they continue, whatever is
// written between them.
func TestPagedListOneSnapshot(t *testing.T) {
	_, c := newEtcd(t)
	a := newResource(t, c, Options[*widget]{})
	b := newResource(t, newClient(t, c.Endpoints()[0]), Options[*widget]{})
	ctx := context.Background()
	want := map[string]bool{}
	for i := range 20 {
		w, err := a.Create(ctx, newWidget("ns", fmt.Sprintf("w%02d", i)), store.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want[w.Name+"@"+w.ResourceVersion] = true
	}
	got := map[string]bool{}
	read := rv.Read{Semantics: rv.MostRecent, Limit: 6}
	var first rv.Version
	for page := 0; ; page++ {
		r := []*Resource[*widget]{a, b}[page%2]
		p, err := r.List(ctx, "ns", store.ListOptions{Read: read})
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		if page == 0 {
			first = p.ResourceVersion()
			if rem, ok := p.RemainingItemCount(); rem != 14 || !ok {
				t.Errorf("remainingItemCount %d, %v; want 14", rem, ok)
			}
		} else if p.ResourceVersion() != first {
			t.Fatalf("page %d at %d; first at %d", page, p.ResourceVersion(), first)
		}
		for _, w := range p.Items() {
			got[w.Name+"@"+w.ResourceVersion] = true
		}
		if p.Continue() == "" {
			break
		}
		read = rv.Read{Semantics: rv.ContinueExact, Continue: p.Continue(), Limit: 6}
		// Writes between pages: an update, a deletion, a creation.
		if _, err := a.GuaranteedUpdate(ctx, "ns", fmt.Sprintf("w%02d", page), store.UpdateOptions{}, func(w *widget) (*widget, error) {
			w.Spec = map[string]string{"page": fmt.Sprint(page)}
			return w, nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.Delete(ctx, "ns", fmt.Sprintf("w%02d", 19-page), store.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Create(ctx, newWidget("ns", fmt.Sprintf("w%02dz", page)), store.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("paged list = %v\nwant %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
}

// TestWatchFromRevision: events from a revision, in order with etcd's
// revisions, including writes made directly in etcd by another client.
func TestWatchFromRevision(t *testing.T) {
	_, c := newEtcd(t)
	r := newResource(t, c, Options[*widget]{})
	ctx := context.Background()
	// The replica must hold the revision the watch starts from: one that
	// lists after the create starts its history later, and rightly
	// answers 410 for it.
	if err := r.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	w, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	from, _ := rv.Parse(w.ResourceVersion)
	if _, err := c.Put(ctx, "/registry/other/thing", "x"); err != nil { // a gap
		t.Fatal(err)
	}
	w.Spec = map[string]string{"v": "2"}
	if _, err := r.Update(ctx, w, store.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	direct, _ := json.Marshal(newWidget("ns", "b"))
	if _, err := c.Put(ctx, r.EtcdKey("ns", "b"), string(direct)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Delete(ctx, "ns", "a", store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// A consistent read first: the replica has everything etcd has.
	if _, err := r.Get(ctx, "ns", "b", latest); err != nil {
		t.Fatal(err)
	}
	evs, err := r.Source().Events(nil, from, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range evs {
		got = append(got, fmt.Sprintf("%s %s@%s", ev.Type, ev.Object.Name, ev.Object.ResourceVersion))
	}
	f := func(d int) string { return strconv.FormatUint(uint64(from)+uint64(d), 10) }
	want := []string{"MODIFIED a@" + f(2), "ADDED b@" + f(3), "DELETED a@" + f(4)}
	if !slices.Equal(got, want) {
		t.Errorf("events after %d = %v; want %v", from, got, want)
	}
}

// TestCompaction: after etcd compaction, exact get, list, continue token
// and watch older than it answer 410; a revision not reached yet 504.
func TestCompaction(t *testing.T) {
	_, c := newEtcd(t)
	r := newResource(t, c, Options[*widget]{Replica: store.Options[*widget]{FutureWait: 200 * time.Millisecond}})
	ctx := context.Background()
	var old rv.Version
	for i := range 5 {
		w, err := r.Create(ctx, newWidget("ns", fmt.Sprint(i)), store.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			old, _ = rv.Parse(w.ResourceVersion)
		}
	}
	p, err := r.List(ctx, "ns", store.ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: old, Limit: 1}})
	if err != nil || p.Continue() == "" {
		t.Fatalf("list at %d: %v", old, err)
	}
	resp, _ := c.Get(ctx, "x")
	now := resp.Header.Revision
	if err := Compact(ctx, c, "", now); err != nil {
		t.Fatal(err)
	}
	// The replica follows the compaction (it learns it through etcd).
	deadline := time.Now().Add(10 * time.Second)
	for r.Store().CompactedRevision() < rv.Version(now) {
		if time.Now().After(deadline) {
			t.Fatalf("replica compacted to %d; etcd to %d", r.Store().CompactedRevision(), now)
		}
		select {
		case <-r.Store().Changed(r.Store().Revision()):
		case <-time.After(100 * time.Millisecond): // re-check the deadline
		}
	}
	_, err = r.List(ctx, "ns", store.ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: old}})
	wantStatus(t, "exact list", err, 410, status.ReasonExpired, "The resourceVersion for the provided list is too old.")
	_, err = r.Get(ctx, "ns", "1", rv.Read{Semantics: rv.Exact, Version: old})
	// The second number is the replica's compaction revision: etcd's, or
	// later if the replica's own history window has moved past it since.
	wantStatus(t, "exact get", err, 410, status.ReasonExpired, "")
	var asked, compacted rv.Version
	if n, _ := fmt.Sscanf(err.Error(), "too old resource version: %d (%d)", &asked, &compacted); n != 2 || asked != old || compacted < rv.Version(now) {
		t.Errorf("exact get: %q; want too old resource version: %d (%d or later)", err, old, now)
	}
	_, err = r.List(ctx, "ns", store.ListOptions{Read: rv.Read{Semantics: rv.ContinueExact, Continue: p.Continue(), Limit: 1}})
	wantStatus(t, "continue", err, 410, status.ReasonExpired, "")
	var ce *rv.CompactedError
	if _, err := r.Source().Events(nil, old, 0); !errors.As(err, &ce) {
		t.Errorf("watch from %d: %v; want a compaction error", old, err)
	}
	_, err = r.Get(ctx, "ns", "1", rv.Read{Semantics: rv.NotOlderThan, Version: rv.Version(now + 100)})
	wantStatus(t, "future get", err, 504, status.ReasonTimeout, "")
	if !status.IsTooLargeResourceVersion(err) {
		t.Errorf("future get: %v; want Too large resource version", err)
	}
}

// proxy forwards TCP connections to an address until it is cut, which
// makes etcd unreachable for the clients behind it at once (stopping etcd
// itself waits for its open streams).
type proxy struct {
	ln    net.Listener
	to    string
	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

func newProxy(t testing.TB, to string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, to: to}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			if p.cut {
				c.Close()
				p.mu.Unlock()
				continue
			}
			d, err := net.Dial("tcp", p.to)
			if err != nil {
				c.Close()
				p.mu.Unlock()
				continue
			}
			p.conns = append(p.conns, c, d)
			p.mu.Unlock()
			go func() { io.Copy(d, c); d.Close() }()
			go func() { io.Copy(c, d); c.Close() }()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done; p.setCut(true) })
	return p
}

func (p *proxy) url() string { return "http://" + p.ln.Addr().String() }

// setCut cuts every connection and refuses new ones, or lets them in again.
func (p *proxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}

// TestRestart: while etcd is unreachable requests fail within the timeout
// with a Status, the replica recovers by itself when it is back, and data
// survives a restart of etcd and a new replica.
func TestRestart(t *testing.T) {
	s, _ := newEtcd(t)
	px := newProxy(t, strings.TrimPrefix(s.URL, "http://"))
	c := newClient(t, px.url())
	r := newResource(t, c, Options[*widget]{RequestTimeout: 500 * time.Millisecond})
	ctx := context.Background()
	w, err := r.Create(ctx, newWidget("ns", "keep"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	px.setCut(true)
	start := time.Now()
	_, err = r.Create(ctx, newWidget("ns", "lost"), store.CreateOptions{})
	var se *status.Error
	if !errors.As(err, &se) || (se.Code() != 503 && se.Code() != 504) {
		t.Errorf("create with etcd unreachable: %v; want a 503 or 504 Status", err)
	}
	if _, err := r.Get(ctx, "ns", "keep", latest); !errors.As(err, &se) || (se.Code() != 503 && se.Code() != 504) {
		t.Errorf("consistent get with etcd unreachable: %v; want a 503 or 504 Status", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("failing with etcd unreachable took %v", d)
	}
	t.Logf("failed in %v", time.Since(start))
	px.setCut(false)
	got, err := retry(func() (*widget, error) { return r.Get(ctx, "ns", "keep", latest) })
	if err != nil || got.ResourceVersion != w.ResourceVersion {
		t.Fatalf("after etcd came back: %v %v", got, err)
	}
	// A create answered with a 504 may still have landed (its outcome is
	// unknown, as kube-apiserver's 504 says): a retry that finds the
	// object there is the create having worked.
	tried := false
	if _, err := retry(func() (*widget, error) {
		w, err := r.Create(ctx, newWidget("ns", "after"), store.CreateOptions{})
		var se *status.Error
		if tried && errors.As(err, &se) && se.Code() == 409 {
			return r.Get(ctx, "ns", "after", latest)
		}
		tried = true
		return w, err
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("recovered in %v", time.Since(start))
	// etcd itself restarted on its data: a new replica loads everything.
	r.Close()
	s.stop()
	s2 := startEtcd(t, s.Dir, s.URL)
	t.Cleanup(s2.stop) // after the client's and the replica's cleanups
	r2 := newResource(t, newClient(t, s2.URL), Options[*widget]{})
	p, err := r2.List(ctx, "ns", store.ListOptions{Read: latest})
	if err != nil || p.Len() != 2 || p.View(0).Name != "after" || p.View(1).UID != w.UID {
		t.Fatalf("new replica after an etcd restart: %v %v", p, err)
	}
	t.Logf("done in %v", time.Since(start))
}

// retry retries f while it fails with a 503 or 504, for a bounded time.
func retry[T any](f func() (T, error)) (T, error) {
	for i := 0; ; i++ {
		v, err := f()
		var se *status.Error
		if err == nil || i == 50 || !errors.As(err, &se) || se.Code() < 503 {
			return v, err
		}
	}
}

// A replica that reached a revision without the event at it (a progress
// notification that outran the event, simulated here by advancing its
// store directly) does not keep serving the state that lacks it: it
// starts over from a list once etcd has moved past that revision.
func TestReplicaLostEvent(t *testing.T) {
	_, c := newEtcd(t)
	r := newResource(t, c, Options[*widget]{})
	ctx := context.Background()
	a, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	at, _ := rv.Parse(a.ResourceVersion)
	if _, err := r.Get(ctx, "ns", "a", latest); err != nil { // the replica is at a's revision
		t.Fatal(err)
	}
	if err := r.Store().Apply(at + 1); err != nil { // the next write's revision, without its event
		t.Fatal(err)
	}
	// b at that revision; then c, after the replica had time (several
	// times retryWait) to list again at b's revision, its own: the path
	// where a relist cannot start over and must wait for etcd to move on.
	// (The pause only gives that path a chance; the test passes either
	// way when the replica is right.)
	for _, name := range []string{"b", "c"} {
		if _, err := r.Create(ctx, newWidget("ns", name), store.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// A consistent get reads etcd: it has the object at once, while
		// the replica still lacks it.
		if _, err := r.Get(ctx, "ns", name, latest); err != nil {
			t.Errorf("consistent get of %s: %v", name, err)
		}
		time.Sleep(5 * retryWait)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, err := r.List(ctx, "ns", store.ListOptions{Read: latest})
		if err == nil && p.Len() == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica lacks b or c: %v %v", p, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// With etcd unreachable, a read answers kube-apiserver's 504 of a request
// past its deadline, and only a write the 504 of a write past its
// deadline (a write handler's, which may still complete it); a replica's
// Sync gives up with its context.
func TestTimeoutMessages(t *testing.T) {
	s, _ := newEtcd(t)
	px := newProxy(t, strings.TrimPrefix(s.URL, "http://"))
	r := newResource(t, newClient(t, px.url()), Options[*widget]{RequestTimeout: 500 * time.Millisecond})
	ctx := context.Background()
	if _, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := retry(func() (*widget, error) { return r.Get(ctx, "ns", "a", latest) }); err != nil { // the replica has loaded
		t.Fatal(err)
	}
	px.setCut(true)
	const (
		read  = "Timeout: request did not complete within the allotted timeout"
		write = "Timeout: request did not complete within requested timeout - context deadline exceeded"
	)
	// Reads first: a write that meets the connection being cut fails
	// at once with 503 (etcd is unavailable); once the client waits for a
	// new connection, every call waits for it until its timeout.
	_, getErr := r.Get(ctx, "ns", "a", latest)
	_, listErr := r.List(ctx, "ns", store.ListOptions{Read: latest})
	_, createErr := r.Create(ctx, newWidget("ns", "b"), store.CreateOptions{})
	_, _, deleteErr := r.Delete(ctx, "ns", "a", store.DeleteOptions{})
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"create", createErr, write},
		{"delete", deleteErr, write},
		{"consistent get", getErr, read},
		{"consistent list", listErr, read},
	} {
		wantStatus(t, tt.name, tt.err, 504, status.ReasonTimeout, tt.want)
	}
	sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := r.Sync(sctx); err == nil {
		t.Errorf("Sync with etcd unreachable succeeded")
	}
}

// A write starts from the replica's object and needs no etcd read when
// it is current; when it is stale (here a replica stopped before the
// last write, whose objects stay readable), the write still acts on the
// object etcd has: a refusal, a dry run or a no-op is decided again on
// it, and a transaction that finds the key modified retries on the value
// it read. What a write returns is never the replica's own object.
func TestWriteFromStaleReplica(t *testing.T) {
	_, c := newEtcd(t)
	r := newResource(t, c, Options[*widget]{})
	ctx := context.Background()
	setSpec := func(k, v string) func(*widget) (*widget, error) {
		return func(w *widget) (*widget, error) {
			w.Spec = maps.Clone(w.Spec)
			if w.Spec == nil {
				w.Spec = map[string]string{}
			}
			w.Spec[k] = v
			return w, nil
		}
	}
	// fresh returns a replica holding name at its second version and a
	// resource whose replica stopped at its first.
	fresh := func(t *testing.T, name string) (stale *Resource[*widget], v2 *widget) {
		t.Helper()
		if _, err := r.Create(ctx, newWidget("ns", name), store.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		stale = newResource(t, c, Options[*widget]{})
		if _, err := stale.Get(ctx, "ns", name, latest); err != nil { // its replica has the first version
			t.Fatal(err)
		}
		stale.Close()
		v2, err := r.GuaranteedUpdate(ctx, "ns", name, store.UpdateOptions{}, setSpec("v", "2"))
		if err != nil {
			t.Fatal(err)
		}
		return stale, v2
	}
	for _, tt := range []struct {
		name, key string
		write     func(s *Resource[*widget], v2 *widget) (*widget, error)
		want      map[string]string // the spec written; nil: deleted
		dryRun    bool              // nothing was stored
	}{
		{"tryUpdate refuses the stale object", "a", func(s *Resource[*widget], v2 *widget) (*widget, error) {
			return s.GuaranteedUpdate(ctx, "ns", v2.Name, store.UpdateOptions{}, func(w *widget) (*widget, error) {
				if w.Spec["v"] != "2" {
					return nil, status.NewBadRequest("stale")
				}
				return setSpec("w", "3")(w)
			})
		}, map[string]string{"v": "2", "w": "3"}, false},
		{"tryUpdate on the stale object retries on etcd's", "b", func(s *Resource[*widget], v2 *widget) (*widget, error) {
			return s.GuaranteedUpdate(ctx, "ns", v2.Name, store.UpdateOptions{}, setSpec("w", "3"))
		}, map[string]string{"v": "2", "w": "3"}, false},
		{"precondition on the current resourceVersion", "c", func(s *Resource[*widget], v2 *widget) (*widget, error) {
			rv := v2.ResourceVersion
			return s.GuaranteedUpdate(ctx, "ns", v2.Name, store.UpdateOptions{Preconditions: store.Preconditions{ResourceVersion: &rv}}, setSpec("w", "3"))
		}, map[string]string{"v": "2", "w": "3"}, false},
		{"update at the current resourceVersion", "d", func(s *Resource[*widget], v2 *widget) (*widget, error) {
			in := v2.DeepCopy()
			in.Spec["w"] = "3"
			return s.Update(ctx, in, store.UpdateOptions{})
		}, map[string]string{"v": "2", "w": "3"}, false},
		{"no-op update answers etcd's object", "e", func(s *Resource[*widget], v2 *widget) (*widget, error) {
			return s.Update(ctx, v2.DeepCopy(), store.UpdateOptions{})
		}, map[string]string{"v": "2"}, false},
		{"dry run answers on etcd's object", "f", func(s *Resource[*widget], v2 *widget) (*widget, error) {
			return s.GuaranteedUpdate(ctx, "ns", v2.Name, store.UpdateOptions{DryRun: true}, setSpec("w", "3"))
		}, map[string]string{"v": "2", "w": "3"}, true},
		{"delete with the current resourceVersion", "g", func(s *Resource[*widget], v2 *widget) (*widget, error) {
			rv := v2.ResourceVersion
			w, _, err := s.Delete(ctx, "ns", v2.Name, store.DeleteOptions{Preconditions: store.Preconditions{ResourceVersion: &rv}})
			return w, err
		}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stale, v2 := fresh(t, tt.key)
			held, err := stale.View(ctx, "ns", tt.key, rv.Read{Semantics: rv.Any})
			if err != nil || held.Spec["v"] != "" {
				t.Fatalf("the stopped replica holds %v, %v; want the first version", held, err)
			}
			got, err := tt.write(stale, v2)
			if err != nil {
				t.Fatalf("write: %v", err)
			}
			if got == held {
				t.Errorf("the write returned the replica's own object")
			}
			if !maps.Equal(got.Spec, tt.want) && tt.want != nil {
				t.Errorf("the write returned spec %v; want %v", got.Spec, tt.want)
			}
			stored, err := r.Get(ctx, "ns", tt.key, latest)
			if tt.dryRun {
				tt.want = v2.Spec
			}
			switch {
			case tt.want == nil && !status.IsNotFound(err):
				t.Errorf("after the delete: %v, %v", stored, err)
			case tt.want != nil && (err != nil || !maps.Equal(stored.Spec, tt.want)):
				t.Errorf("stored %v, %v; want spec %v", stored, err, tt.want)
			}
		})
	}
	// A delete from a current replica answers a copy of its object,
	// whose resourceVersion is the deletion's.
	if _, err := r.Create(ctx, newWidget("ns", "h"), store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "ns", "h", latest); err != nil {
		t.Fatal(err)
	}
	held, err := r.View(ctx, "ns", "h", rv.Read{Semantics: rv.Any})
	if err != nil {
		t.Fatal(err)
	}
	heldRV := held.ResourceVersion
	got, _, err := r.Delete(ctx, "ns", "h", store.DeleteOptions{})
	if err != nil || got == held || held.ResourceVersion != heldRV || got.ResourceVersion == heldRV {
		t.Errorf("delete returned %p (rv %s), %v; the replica's %p (rv %s, was %s)", got, got.ResourceVersion, err, held, held.ResourceVersion, heldRV)
	}
}

// etcdCalls counts a resource's etcd requests by operation
// (Options.Metrics).
type etcdCalls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *etcdCalls) EtcdRequest(op string, _ status.GroupResource, _ time.Duration, _ error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[op]++
}

func (c *etcdCalls) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = nil
	return n
}

// An update is one etcd transaction when the replica holds the current
// object; a write of an object this process wrote last, which the replica
// has not applied yet, reads etcd first rather than spend a transaction
// that would fail.
func TestUpdateTransactions(t *testing.T) {
	_, c := newEtcd(t)
	calls := &etcdCalls{}
	r := newResource(t, c, Options[*widget]{Metrics: calls})
	ctx := context.Background()
	if _, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "ns", "a", latest); err != nil { // the replica has it
		t.Fatal(err)
	}
	label := func(v string) func(*widget) (*widget, error) {
		return func(w *widget) (*widget, error) { w.Labels = map[string]string{"v": v}; return w, nil }
	}
	calls.take()
	if _, err := r.GuaranteedUpdate(ctx, "ns", "a", store.UpdateOptions{}, label("1")); err != nil {
		t.Fatal(err)
	}
	if got, want := calls.take(), map[string]int{"update": 1}; !maps.Equal(got, want) {
		t.Errorf("update from a current replica: etcd calls %v; want %v", got, want)
	}
	// The replica stops before it applies the next write: the write after
	// it must not start from the replica's object.
	s := newResource(t, c, Options[*widget]{Metrics: calls})
	if _, err := s.Get(ctx, "ns", "a", latest); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := s.GuaranteedUpdate(ctx, "ns", "a", store.UpdateOptions{}, label("2")); err != nil {
		t.Fatal(err)
	}
	calls.take()
	if _, err := s.GuaranteedUpdate(ctx, "ns", "a", store.UpdateOptions{}, label("3")); err != nil {
		t.Fatal(err)
	}
	if got, want := calls.take(), map[string]int{"get": 1, "update": 1}; !maps.Equal(got, want) {
		t.Errorf("update of an object written last by this process: etcd calls %v; want %v", got, want)
	}
}

// Consistent GETs of one key share etcd reads (readKey) and stay
// linearizable: a GET that begins after a write has returned sees it,
// while other GETs of the key keep requests in flight.
func TestConsistentGetsShareReads(t *testing.T) {
	_, c := newEtcd(t)
	calls := &etcdCalls{}
	r := newResource(t, c, Options[*widget]{Metrics: calls})
	ctx := context.Background()
	if _, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	calls.take()
	const readers = 50
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range readers {
		wg.Go(func() {
			<-start
			if w, err := r.Get(ctx, "ns", "a", latest); err != nil || w.Name != "a" {
				t.Errorf("get: %v, %v", w, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if n := calls.take()["get"]; n < 1 || n >= readers {
		t.Errorf("%d concurrent consistent gets made %d etcd reads; want fewer, at least one", readers, n)
	}

	stop := make(chan struct{})
	defer func() { close(stop); wg.Wait() }() // before the replica closes
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := r.View(ctx, "ns", "a", latest); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for i := range 30 {
		w, err := r.GuaranteedUpdate(ctx, "ns", "a", store.UpdateOptions{}, func(w *widget) (*widget, error) {
			w.Spec = map[string]string{"n": strconv.Itoa(i)}
			return w, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Get(ctx, "ns", "a", latest)
		if err != nil || got.ResourceVersion != w.ResourceVersion || got.Spec["n"] != strconv.Itoa(i) {
			t.Fatalf("get after update %d: %v, %v; want resourceVersion %s", i, got, err, w.ResourceVersion)
		}
	}
}

// A GET whose context ends while it waits to send the shared read leaves
// the GETs that joined it to read again: they do not fail for it.
func TestConsistentGetAbandonedRound(t *testing.T) {
	_, c := newEtcd(t)
	r := newResource(t, c, Options[*widget]{})
	ctx := context.Background()
	if _, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "ns", "a", latest); err != nil {
		t.Fatal(err)
	}
	key := r.EtcdKey("ns", "a")
	// A round in flight, which the next round's sender waits for.
	inFlight := &readRound{done: make(chan struct{}), sent: true}
	r.p.readMu.Lock()
	r.p.reads = map[string]*readRound{key: inFlight}
	r.p.readMu.Unlock()
	lctx, cancel := context.WithCancel(ctx)
	leader := make(chan error, 1)
	go func() { _, err := r.Get(lctx, "ns", "a", latest); leader <- err }()
	follower := make(chan error, 1)
	go func() {
		// Joins the leader's round once the leader opened it.
		for {
			r.p.readMu.Lock()
			rd := r.p.reads[key]
			r.p.readMu.Unlock()
			if rd != inFlight {
				break
			}
			time.Sleep(time.Millisecond)
		}
		w, err := r.Get(ctx, "ns", "a", latest)
		if err == nil && w.Name != "a" {
			err = fmt.Errorf("got %v", w)
		}
		follower <- err
	}()
	time.Sleep(20 * time.Millisecond) // the follower waits on the leader's round (either way it must succeed)
	cancel()
	if err := <-leader; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled leader: %v", err)
	}
	close(inFlight.done)
	if err := <-follower; err != nil {
		t.Errorf("the follower: %v", err)
	}
}

// A consistent GET that finds an object deleted, which the replica still
// holds, waits for the replica to apply the deletion: a read of any
// resourceVersion that follows does not find it either.
func TestConsistentGetAfterDelete(t *testing.T) {
	_, c := newEtcd(t)
	r := newResource(t, c, Options[*widget]{})
	ctx := context.Background()
	for i := range 20 {
		name := fmt.Sprint("d", i)
		if _, err := r.Create(ctx, newWidget("ns", name), store.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Get(ctx, "ns", name, latest); err != nil {
			t.Fatal(err)
		}
		// Deleted behind the replica's back, so that it may not have
		// applied the deletion when the consistent GET reads etcd.
		if _, err := c.Delete(ctx, r.EtcdKey("ns", name)); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Get(ctx, "ns", name, latest); !status.IsNotFound(err) {
			t.Fatalf("consistent get after the delete: %v", err)
		}
		if w, err := r.Get(ctx, "ns", name, rv.Read{Semantics: rv.Any}); !status.IsNotFound(err) {
			t.Fatalf("get of any resourceVersion after a consistent get found %v, %v", w, err)
		}
	}
}

// A failed storage precondition names the object's etcd key as the
// resource really keeps it, below Options.Prefix, as kube-apiserver
// started with --etcd-prefix=/custom names /custom/deployments/default/d.
func TestPreconditionKeyPrefix(t *testing.T) {
	ctx := context.Background()
	_, c := newEtcd(t)
	for _, tc := range []struct{ prefix, key string }{
		{"", "/registry/example.com/widgets/ns/a"},
		{"/custom", "/custom/example.com/widgets/ns/a"},
		{"/a/b/", "/a/b/example.com/widgets/ns/a"},
	} {
		r := newResource(t, c, Options[*widget]{Prefix: tc.prefix})
		if _, err := r.Create(ctx, newWidget("ns", "a"), store.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if resp, err := c.Get(ctx, tc.key); err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("prefix %q: the object is not at %s: %v", tc.prefix, tc.key, err)
		}
		uid := "nope"
		_, err := r.GuaranteedUpdate(ctx, "ns", "a", store.UpdateOptions{Preconditions: store.Preconditions{UID: &uid}},
			func(w *widget) (*widget, error) { return w, nil })
		if err == nil || !strings.Contains(err.Error(), "Key: "+tc.key+", ") {
			t.Errorf("prefix %q: %v; want the key %s", tc.prefix, err, tc.key)
		}
		// A dry run's key is below the prefix, as kube-apiserver's dry-run
		// storage names it.
		_, err = r.GuaranteedUpdate(ctx, "ns", "a", store.UpdateOptions{DryRun: true, Preconditions: store.Preconditions{UID: &uid}},
			func(w *widget) (*widget, error) { return w, nil })
		const dry = "/example.com/widgets/ns/a"
		if err == nil || !strings.Contains(err.Error(), "Key: "+dry+", ") {
			t.Errorf("prefix %q, dry run: %v; want the key %s", tc.prefix, err, dry)
		}
	}
}
