package etcdstore

import (
	"context"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// moveBatch is how many values of a former collection one etcd range
// reads while moving them.
const moveBatch = 256

// validEtcdPrefix reports whether p is an etcd path of a collection that
// the replica can tell from others: one or two segments, none empty.
func validEtcdPrefix(p string) bool {
	a, b, two := strings.Cut(p, "/")
	return a != "" && (!two || b != "" && !strings.Contains(b, "/"))
}

// moveFormer moves the objects an earlier apisem kept under a resource's
// former collection key (the "<group>/<resource>" it gave every kind
// before ResourceOptions.EtcdPrefix) to their keys under the resource's
// collection, so that none is lost when a server starts on an etcd
// written by an earlier one. Each object moves in one transaction: its
// value, as it is, is put under the new key and the old key deleted, if
// the new key is absent and the old one unchanged since read. Otherwise
// it stays where it is: an object under the new key (written by
// kube-apiserver on the same etcd, or by a server since) is the one
// served, and an object an earlier server changed meanwhile moves at the
// next start. A key deeper than an object's (another collection's under
// the former one, as "services/specs/<namespace>/<name>" is under
// "services") is not the resource's and stays.
func (p *Replica[T]) moveFormer(ctx context.Context) error {
	for _, r := range p.byColl {
		if r.former == "" {
			continue
		}
		depth := 0 // the "/" in a key after the collection's "/"
		if r.ro.Namespaced {
			depth = 1
		}
		from := r.former + "/"
		key, end := from, clientv3.GetPrefixRangeEnd(from)
		for {
			var resp *clientv3.GetResponse
			if err := p.call(ctx, rpcRange, from, func(ctx context.Context) (err error) {
				resp, err = p.client.Get(ctx, key, clientv3.WithRange(end), clientv3.WithLimit(moveBatch))
				return err
			}); err != nil {
				return err
			}
			for _, kv := range resp.Kvs {
				old := string(kv.Key)
				rest := old[len(from):]
				if strings.Count(rest, "/") != depth {
					continue
				}
				to := r.coll + "/" + rest
				if err := p.call(ctx, rpcTxn, to, func(ctx context.Context) error {
					_, err := p.client.Txn(ctx).If(
						clientv3.Compare(clientv3.ModRevision(old), "=", kv.ModRevision),
						clientv3.Compare(clientv3.CreateRevision(to), "=", 0),
					).Then(clientv3.OpPut(to, string(kv.Value)), clientv3.OpDelete(old)).Commit()
					return err
				}); err != nil {
					return err
				}
			}
			if !resp.More || len(resp.Kvs) == 0 {
				break
			}
			key = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
		}
	}
	return nil
}
