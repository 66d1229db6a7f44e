package etcdstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// A resource given an EtcdPrefix finds the objects an earlier apisem
// kept under its group and resource: before its first list, the replica
// moves each to its new key, unless that key holds an object already
// (kube-apiserver's, on a shared etcd), and leaves the keys of other
// collections under the former path alone.
func TestEtcdPrefixMovesFormerKeys(t *testing.T) {
	_, c := newEtcd(t)
	ctx := context.Background()
	put := func(key, name, spec string) {
		t.Helper()
		w := newWidget("", name)
		w.Spec = map[string]string{"v": spec}
		b, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Put(ctx, "/registry"+key, string(b)); err != nil {
			t.Fatal(err)
		}
	}
	// Services: the former path holds kube-apiserver's collections too.
	put("/services/ns1/a", "a", "former")
	put("/services/specs/x", "x", "former")    // in the namespace "specs"
	put("/services/ns1/b", "b", "former")      // shadowed by the object below
	put("/services/specs/ns1/b", "b", "kube")  // kube-apiserver's
	put("/services/endpoints/ns1/e", "e", "x") // another collection's
	// Nodes, cluster-scoped: another path.
	put("/nodes/n1", "n1", "former")
	// Deployments: more than one range of them.
	const deployments = moveBatch + 10
	for i := range deployments {
		put(fmt.Sprintf("/apps/deployments/ns%d/d%d", i%3, i), fmt.Sprintf("d%d", i), "former")
	}

	p, err := NewReplica(Options[*widget]{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	add := func(group, resource, etcdPrefix string, namespaced bool) *Resource[*widget] {
		t.Helper()
		r, err := p.Resource(store.ResourceOptions[*widget]{GroupResource: status.GroupResource{Group: group, Resource: resource},
			Namespaced: namespaced, EtcdPrefix: etcdPrefix}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	services := add("", "services", "services/specs", true)
	nodes := add("", "nodes", "minions", false)
	deploys := add("apps", "deployments", "deployments", true)
	p.Start()
	if err := p.Sync(ctx); err != nil {
		t.Fatal(err)
	}

	for _, o := range []struct {
		r           *Resource[*widget]
		ns, name, v string
	}{
		{services, "ns1", "a", "former"}, {services, "specs", "x", "former"}, {services, "ns1", "b", "kube"},
		{nodes, "", "n1", "former"}, {deploys, "ns2", "d2", "former"},
	} {
		w, err := o.r.Get(ctx, o.ns, o.name, latest)
		if err != nil {
			t.Errorf("get %s %s/%s: %v", o.r.gr, o.ns, o.name, err)
			continue
		}
		if w.Spec["v"] != o.v {
			t.Errorf("%s %s/%s is the %q one; want %q", o.r.gr, o.ns, o.name, w.Spec["v"], o.v)
		}
	}
	if page, err := deploys.List(ctx, "", store.ListOptions{}); err != nil || len(page.Items()) != deployments {
		t.Errorf("deployments: %v; want the %d objects", err, deployments)
	}

	resp, err := c.Get(ctx, "/registry/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, kv := range resp.Kvs {
		keys = append(keys, strings.TrimPrefix(string(kv.Key), "/registry"))
	}
	want := []string{"/minions/n1", "/services/endpoints/ns1/e", "/services/ns1/b", "/services/specs/ns1/a", "/services/specs/ns1/b", "/services/specs/specs/x"}
	for i := range deployments {
		want = append(want, fmt.Sprintf("/deployments/ns%d/d%d", i%3, i))
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("etcd keys (-want +got):\n%s", diff)
	}
}

// An EtcdPrefix must name a collection the replica can tell from the
// others: the keys of one must not be read as another's.
func TestEtcdPrefixRefused(t *testing.T) {
	_, c := newEtcd(t)
	for _, tc := range []struct {
		name  string
		first string // the EtcdPrefix of a resource added before
		bad   string
		msg   string
	}{
		{"empty segment", "", "services//specs", `etcdstore: bad EtcdPrefix "services//specs" of b.example.com`},
		{"three segments", "", "a/b/c", `etcdstore: bad EtcdPrefix "a/b/c" of b.example.com`},
		{"leading slash", "", "/specs", `etcdstore: bad EtcdPrefix "/specs" of b.example.com`},
		{"under another", "services", "services/specs", `etcdstore: the etcd keys of a.example.com (services/) and b.example.com (services/specs/) overlap`},
		{"holds another", "services/specs", "services", `etcdstore: the etcd keys of a.example.com (services/specs/) and b.example.com (services/) overlap`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewReplica(Options[*widget]{Client: c})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if tc.first != "" {
				if _, err := p.Resource(store.ResourceOptions[*widget]{GroupResource: status.GroupResource{Group: "example.com", Resource: "a"},
					EtcdPrefix: tc.first}, nil); err != nil {
					t.Fatal(err)
				}
			}
			_, err = p.Resource(store.ResourceOptions[*widget]{GroupResource: status.GroupResource{Group: "example.com", Resource: "b"},
				EtcdPrefix: tc.bad}, nil)
			if err == nil || err.Error() != tc.msg {
				t.Errorf("err = %v; want %s", err, tc.msg)
			}
		})
	}
}
