package serverstore_test

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/examples/apiserver/demo"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server/servertest"
)

// newPeer starts the demo server on etcd with its definitions' peers
// (wrapped by wrap, if set); Cleanup stops the server, then leaves the
// peers.
func newPeer(t *testing.T, c *clientv3.Client, so serverstore.Options, wrap func(*serverstore.Peers) crd.Peers) string {
	t.Helper()
	so.Client = c
	p, err := serverstore.NewPeers(so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	var peers crd.Peers = p
	if wrap != nil {
		peers = wrap(p)
	}
	s, err := demo.NewWith(demo.Options{Storage: serverstore.Storage(so)}, crd.Options{Peers: peers})
	if err != nil {
		t.Fatal(err)
	}
	return servertest.Start(t, s) // its Cleanup, which runs first, shuts s down
}

// heldPeers holds its server's controller, once it has joined, until open
// is closed: its reports and its questions to the peers wait, as would a
// server slow to act on the definitions it sees.
type heldPeers struct {
	*serverstore.Peers
	joined atomic.Bool
	open   chan struct{}
}

func (h *heldPeers) wait(ctx context.Context) error {
	select {
	case <-h.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *heldPeers) Report(ctx context.Context, rev rv.Version) error {
	if h.joined.Swap(true) {
		if err := h.wait(ctx); err != nil {
			return err
		}
	}
	return h.Peers.Report(ctx, rev)
}

func (h *heldPeers) Reached(ctx context.Context, rev rv.Version) (bool, error) {
	if err := h.wait(ctx); err != nil {
		return false, err
	}
	return h.Peers.Reached(ctx, rev)
}

func definition(plural string) string {
	return fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
		"metadata":{"name":"%[1]s.example.com"},
		"spec":{"group":"example.com","scope":"Namespaced",
			"names":{"plural":"%[1]s","singular":"%[1]s1","kind":"K%[1]s","listKind":"K%[1]sList"},
			"versions":[{"name":"v1","served":true,"storage":true,
				"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`, plural)
}

const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// established waits through base's watch until the named definition is
// Established and returns its resourceVersion then.
func established(t *testing.T, base, name, from string) string {
	t.Helper()
	w := openWatch(t, base, crds+"?watch=1&fieldSelector=metadata.name%3D"+name+"&resourceVersion="+from)
	defer w.cancel()
	for {
		e := w.next()
		conds, _ := field(t, string(e.Object), "status.conditions").([]any)
		for _, c := range conds {
			if c := c.(map[string]any); c["type"] == "Established" && c["status"] == "True" {
				return str(t, string(e.Object), "metadata.resourceVersion")
			}
		}
	}
}

// Two servers on one etcd: a definition created through A is Established
// only once B serves it too, so that a client that sees the condition
// through A uses the resource through B at once; both servers write its
// status without fighting (three writes in all: create, Installing,
// Established). A server that leaves, or dies, no longer holds
// definitions back.
func TestDefinitionEstablishedOnEveryServer(t *testing.T) {
	_, c := newEtcd(t)
	held := &heldPeers{open: make(chan struct{})}
	a := newPeer(t, c, serverstore.Options{}, nil)
	b := newPeer(t, c, serverstore.Options{}, func(p *serverstore.Peers) crd.Peers { held.Peers = p; return held })
	ctx := context.Background()
	peers := func() int64 {
		resp, err := c.Get(ctx, "/registry/crd_served/", clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		return resp.Count
	}
	eventually(t, "both servers to join", func() bool { return peers() == 2 })
	must(t, 201, a, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)

	// B serves the definition (it installs it first), but its controller
	// is held before it reports: no server may mark it Established, A
	// because B has not reported, B because it has not asked yet.
	created := must(t, 201, a, "POST", crds, definition("gizmos")).body
	gizmos := "/apis/example.com/v1/namespaces/ns1/gizmos"
	eventually(t, "B to serve gizmos", func() bool { return call(t, b, "GET", gizmos, "").code == 200 })
	d := must(t, 200, a, "GET", crds+"/gizmos.example.com", "").body
	conds, _ := field(t, d, "status.conditions").([]any)
	for _, cond := range conds {
		if cond := cond.(map[string]any); cond["type"] == "Established" && cond["status"] != "False" {
			t.Fatalf("Established while B's controller is held: %s", d)
		}
	}
	close(held.open)
	established(t, a, "gizmos.example.com", str(t, created, "metadata.resourceVersion"))
	must(t, 200, b, "GET", gizmos, "")
	must(t, 200, a, "GET", gizmos, "")
	resp, err := c.Get(ctx, "/registry/apiextensions.k8s.io/customresourcedefinitions/gizmos.example.com")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("etcd get: %v %v", resp, err)
	}
	if v := resp.Kvs[0].Version; v != 3 {
		t.Errorf("the definition was written %d times; want 3 (create, Installing, Established)", v)
	}

	// Established through either server means served by both.
	for i, via := range []string{a, b, a} {
		plural := "things" + strconv.Itoa(i)
		created := must(t, 201, via, "POST", crds, definition(plural)).body
		established(t, via, plural+".example.com", str(t, created, "metadata.resourceVersion"))
		for _, base := range []string{a, b} {
			must(t, 200, base, "GET", "/apis/example.com/v1/namespaces/ns1/"+plural, "")
		}
	}

	// A server that dies (its client gone, its lease not revoked) counts
	// until its lease expires; one that leaves, not at all.
	for _, leave := range []bool{true, false} {
		dc, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		other, err := serverstore.NewPeers(serverstore.Options{Client: dc, PeerTTL: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if err := other.Report(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if leave {
			if err := other.Close(); err != nil {
				t.Fatal(err)
			}
			dc.Close()
		} else {
			dc.Close()
			t.Cleanup(func() { other.Close() }) // its renewals, failing since
		}
		plural := fmt.Sprintf("left%v", leave)
		created := must(t, 201, a, "POST", crds, definition(plural)).body
		established(t, a, plural+".example.com", str(t, created, "metadata.resourceVersion"))
	}
}

// twoVersions is a definition of two versions, v2 stored, whose v1 has a
// field v2 lacks.
const twoVersions = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
	"metadata":{"name":"twovers.example.com"},
	"spec":{"group":"example.com","scope":"Namespaced",
		"names":{"plural":"twovers","singular":"twover","kind":"TwoVer","listKind":"TwoVerList"},
		"versions":[
			{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object",
				"properties":{"spec":{"type":"object","properties":{"shared":{"type":"string"},"onlyV1":{"type":"string"}}}}}}},
			{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
				"properties":{"spec":{"type":"object","properties":{"shared":{"type":"string"}}}}}}}]}}`

// newTwoVersions starts a server on c with twoVersions established and
// the namespace ns1.
func newTwoVersions(t *testing.T, c *clientv3.Client) string {
	t.Helper()
	a := newPeer(t, c, serverstore.Options{}, nil)
	must(t, 201, a, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	created := must(t, 201, a, "POST", crds, twoVersions)
	established(t, a, "twovers.example.com", str(t, created.body, "metadata.resourceVersion"))
	return a
}

// The versions of a custom resource are served from etcd together: an
// object written through the version that is not stored is read through
// both, as stored in the storage version. Installing the second version
// once closed the first one's replica (503 "the replica of etcd is
// stopped").
func TestTwoVersionsOfACustomResource(t *testing.T) {
	_, c := newEtcd(t)
	a := newTwoVersions(t, c)
	must(t, 201, a, "POST", "/apis/example.com/v1/namespaces/ns1/twovers",
		`{"apiVersion":"example.com/v1","kind":"TwoVer","metadata":{"name":"x"},"spec":{"shared":"s","onlyV1":"o"}}`)
	for _, v := range []string{"v1", "v2"} {
		body := must(t, 200, a, "GET", "/apis/example.com/"+v+"/namespaces/ns1/twovers/x", "").body
		if got := str(t, body, "apiVersion"); got != "example.com/"+v {
			t.Errorf("%s: apiVersion %q", v, got)
		}
		// Pruned by the storage version, v2, which lacks onlyV1.
		if spec := field(t, body, "spec"); !reflect.DeepEqual(spec, map[string]any{"shared": "s"}) {
			t.Errorf("%s: spec %v; want only shared", v, spec)
		}
	}
}

// A custom resource's value in etcd names the storage version, whatever
// version wrote it, as kube-apiserver's does (recorded on v1.37.1:
// testdata/reference-v1.37.1-etcd-values.txt), so that another reader of
// the etcd reads it as what it holds; the values were labelled with the
// version that wrote them. Values labelled either way (written before,
// or by hand) read through both versions.
func TestCustomResourceValuesNameTheStorageVersion(t *testing.T) {
	_, c := newEtcd(t)
	a := newTwoVersions(t, c)
	ctx := context.Background()
	const coll = "/apis/example.com/%s/namespaces/ns1/twovers"
	raw := func(name string) string {
		t.Helper()
		resp, err := c.Get(ctx, "/registry/example.com/twovers/ns1/"+name)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("etcd get %s: %v %v", name, resp, err)
		}
		return string(resp.Kvs[0].Value)
	}
	for _, v := range []string{"v1", "v2"} {
		name := "via-" + v
		must(t, 201, a, "POST", fmt.Sprintf(coll, v),
			`{"apiVersion":"example.com/`+v+`","kind":"TwoVer","metadata":{"name":"`+name+`"},"spec":{"shared":"s"}}`)
		val := raw(name)
		if str(t, val, "apiVersion") != "example.com/v2" || str(t, val, "kind") != "TwoVer" {
			t.Errorf("written through %s: value %s; want apiVersion example.com/v2, kind TwoVer", v, val)
		}
	}

	// Values written before, labelled by the version that wrote them, or
	// not at all.
	for i, label := range []string{`"apiVersion":"example.com/v1","kind":"TwoVer",`, `"apiVersion":"example.com/v2","kind":"TwoVer",`, ""} {
		name := fmt.Sprintf("old%d", i)
		if _, err := c.Put(ctx, "/registry/example.com/twovers/ns1/"+name,
			`{`+label+`"metadata":{"name":"`+name+`","namespace":"ns1","uid":"u-`+name+`","generation":1,"creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"shared":"old"}}`); err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"v1", "v2"} {
			body := must(t, 200, a, "GET", fmt.Sprintf(coll, v)+"/"+name, "").body
			if str(t, body, "apiVersion") != "example.com/"+v || str(t, body, "metadata.uid") != "u-"+name ||
				!reflect.DeepEqual(field(t, body, "spec"), map[string]any{"shared": "old"}) {
				t.Errorf("value labelled %q read through %s: %s", label, v, body)
			}
		}
		// The next write labels it with the storage version.
		must(t, 200, a, "PATCH", fmt.Sprintf(coll, "v1")+"/"+name, `{"spec":{"shared":"new"}}`)
		if val := raw(name); str(t, val, "apiVersion") != "example.com/v2" || str(t, val, "metadata.uid") != "u-"+name {
			t.Errorf("value labelled %q, rewritten through v1: %s", label, val)
		}
	}
}
