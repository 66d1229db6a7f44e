package crd

import (
	"context"
	"net/url"
	"sync"

	"github.com/apisem/apisem/crd/schema"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// A storage is how the served versions of a definition share its one
// storage, as kube-apiserver's storage codec for custom resources does
// (k8s.io/apiextensions-apiserver pkg/apiserver/customresource_handler.go,
// crdConversionRESTOptionsGetter, and the schema coercion around its
// converter): objects are stored in the storage version. A write through
// another version, once validated in its own, is converted to the storage
// version and pruned by that version's schema (no defaults), so a member
// the storage version lacks is dropped; a read defaults and prunes the
// stored object by the storage version's schema, converts it to the
// version read and prunes it by that version's schema (without that
// version's defaults). Observed on kube-apiserver 1.37.1:
// testdata/storage-version-pruning.json.
//
// The conversion is the definition's strategy: None rewrites the
// apiVersion alone; Webhook calls the webhook (see webhook), for every
// object not in the version asked for.
type storage struct {
	group   string
	version string // the storage version's name
	// nodes are the schemas of the definition's versions, by name.
	nodes map[string]*versionSchema
	// hook is the conversion webhook; nil for the None strategy.
	hook *webhook
}

// newStorage returns the storage of definition c. resolve finds a webhook
// service's address (ResolveService when nil).
func newStorage(c *CustomResourceDefinition, resolve func(namespace, name string, port int32) (*url.URL, error)) *storage {
	st := &storage{group: c.Spec.Group, nodes: map[string]*versionSchema{}}
	for _, v := range c.Spec.Versions {
		if v.Storage {
			st.version = v.Name
		}
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			st.nodes[v.Name] = &versionSchema{tree: schema.NewTree(v.Schema.OpenAPIV3Schema)}
		}
	}
	if cv := c.Spec.Conversion; cv != nil && cv.Strategy == "Webhook" {
		st.hook = newWebhook(c, resolve)
	}
	return st
}

// read returns the Resource.Read of version v: the stored object as read
// through v. An object it converts has v's apiVersion in its TypeMeta
// (stored objects have none), by which read knows it again and returns
// it as it is: the server may read an object twice (the patch of a read
// object).
func (st *storage) read(v string) func(server.Object) (server.Object, error) {
	stored := st.nodes[st.version]
	if v == st.version {
		return func(o server.Object) (server.Object, error) { return stored.read(o.(*server.Unstructured)), nil }
	}
	apiVersion, from, n := st.group+"/"+v, st.group+"/"+st.version, st.nodes[v]
	cache := &readCache{}
	return func(o server.Object) (server.Object, error) {
		u := o.(*server.Unstructured)
		if u.APIVersion == apiVersion {
			return u, nil
		}
		if c := cache.get(u); c != nil {
			return c, nil
		}
		s := stored.read(u).(*server.Unstructured)
		var c *server.Unstructured
		switch {
		case st.hook != nil:
			// Kubernetes' converter has no context: a read's conversion
			// runs to its timeout.
			var err error
			if c, err = st.hook.convert(context.Background(), s, from, apiVersion); err != nil {
				return nil, err
			}
		case s == u && pruned(u, n):
			return u, nil
		case s == u:
			c = u.DeepCopy()
		default:
			c = s
		}
		pruneBy(c, n)
		c.TypeMeta = meta.TypeMeta{APIVersion: apiVersion}
		cache.put(u, c)
		return c, nil
	}
}

// readCacheSize bounds a readCache: it holds the objects it names.
const readCacheSize = 512

// A readCache remembers the latest objects one version converted, by the
// stored object and its resourceVersion, so that what reads an object
// once per value converts it once: the cells of a Table row, field
// selectors (the encodings of a stored version are cached by the store).
// It forgets everything when full. Failures are not kept.
type readCache struct {
	mu   sync.Mutex
	read map[readKey]*server.Unstructured // lazily made
}

type readKey struct {
	obj *server.Unstructured
	rv  string
}

func (c *readCache) get(u *server.Unstructured) *server.Unstructured {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read[readKey{u, u.ResourceVersion}]
}

func (c *readCache) put(u, out *server.Unstructured) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.read == nil || len(c.read) >= readCacheSize {
		c.read = make(map[readKey]*server.Unstructured, readCacheSize)
	}
	c.read[readKey{u, u.ResourceVersion}] = out
}

// toStorage returns the Resource.ToStorage of version v: a valid object
// written through v as the storage keeps it. A webhook's failure is the
// cluster's 500 with no reason, its message the webhook converter's.
func (st *storage) toStorage(v string) func(context.Context, server.Object) (server.Object, error) {
	n := st.nodes[st.version]
	from, to := st.group+"/"+v, st.group+"/"+st.version
	return func(ctx context.Context, o server.Object) (server.Object, error) {
		u := o.(*server.Unstructured)
		u.TypeMeta = meta.TypeMeta{} // a read object's mark, as stored objects have none
		if v == st.version {
			return u, nil
		}
		var c *server.Unstructured
		switch {
		case st.hook != nil:
			var err error
			if c, err = st.hook.convert(ctx, u, from, to); err != nil {
				return nil, status.New(500, "", err.Error(), nil)
			}
		case pruned(u, n):
			return u, nil
		default:
			c = u.DeepCopy()
		}
		pruneBy(c, n)
		return c, nil
	}
}

// storedAs returns the Resource.StoredAs of every version of kind:
// objects are stored in the storage version whatever version wrote them
// (toStorage converts them), and their values are labelled with it, as
// kube-apiserver labels them (recorded on v1.37.1: a write through a
// version that is not stored is stored with the storage version's
// apiVersion).
func (st *storage) storedAs(kind string) func(server.Object) meta.TypeMeta {
	tm := meta.TypeMeta{APIVersion: st.group + "/" + st.version, Kind: kind}
	return func(server.Object) meta.TypeMeta { return tm }
}

// pruned reports whether u has nothing n would prune (nor a null it would
// drop, nor a default missing: a cheap test, exact enough to skip a copy).
func pruned(u *server.Unstructured, n *versionSchema) bool {
	return n == nil || n.tree.Settled(u.Content)
}

// pruneBy prunes u by n's schema, as Kubernetes' schema coercion after a
// conversion does: unknown members, and nulls the schema does not allow;
// no defaults.
func pruneBy(u *server.Unstructured, n *versionSchema) {
	if n == nil || u.Content == nil {
		return
	}
	n.tree.Prune(u.Content)
	if len(u.Content) == 0 {
		u.Content = nil
	}
}

// versionSchema is a version's schema, as the tree that defaults,
// prunes and tells settled objects by it.
type versionSchema struct {
	tree *schema.Tree
}

// read is the stored object u as read under this schema (package-level
// read); u itself without a schema.
func (vs *versionSchema) read(u *server.Unstructured) server.Object {
	if vs == nil {
		return u
	}
	return read(u, vs.tree)
}
