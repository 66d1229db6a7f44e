package gc

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch"
)

// Options configure a Collector. The zero value means the defaults
// written next to each field.
type Options struct {
	// RetryInterval is how long the collector waits before it tries again
	// what failed for a reason other than a concurrent write (a storage
	// error). 0 means one second. (A dependent whose owner's kind is not
	// served is looked at again when the served resources change.)
	RetryInterval time.Duration
}

// Collector is a garbage collector for metadata.ownerReferences over
// every resource a server serves, resources added while it runs
// included. Create it with New and run it with Run.
type Collector struct {
	srv   *server.Server
	retry time.Duration
	log   *slog.Logger

	// Run's state, owned by its goroutine.
	g         *graph
	rev       rv.Version                  // the graph has every event up to here
	byPrefix  map[string]*server.Resource // storage key prefix -> a resource of it
	resources []*server.Resource          // what byPrefix was built from
	later     *queue                      // uids to look at again after RetryInterval
	unknown   *queue                      // uids with owners of kinds not served
}

// New returns a collector of s's garbage. Serve s with
// Options.GarbageCollection, so that Foreground and Orphan deletions
// leave their finalizers for the collector.
func New(s *server.Server, opts Options) *Collector {
	c := &Collector{srv: s, retry: opts.RetryInterval, log: s.Logger()}
	if c.retry <= 0 {
		c.retry = time.Second
	}
	return c
}

// eventBatch is how many events Run applies to the graph at a time.
const eventBatch = 1024

// Run collects garbage until ctx is done, and returns ctx's error. It
// reads every object of the server's store once, then follows the
// store's events: after each batch of writes it acts on what they
// concern. A Collector runs once.
func (c *Collector) Run(ctx context.Context) error {
	st := c.srv.Store()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	c.later, c.unknown = newQueue(), newQueue()
	if err := c.load(ctx); err != nil {
		return err
	}
	for {
		changed := c.srv.ResourcesChanged()
		c.refreshResources()
		c.process(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if c.later.len() > 0 {
			retry.Reset(c.retry)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-st.Changed(c.rev):
		case <-changed:
		case <-retry.C:
			for _, uid := range c.later.take() {
				c.g.dirty.add(uid)
			}
		}
		if err := c.follow(ctx); err != nil {
			return err
		}
	}
}

// load builds the graph from a snapshot of the store, every node to be
// looked at.
func (c *Collector) load(ctx context.Context) error {
	st := c.srv.Store()
	for {
		c.g = newGraph()
		c.rev = st.Revision()
		err := st.Snapshot(c.rev, func(key string, obj server.Object) bool {
			c.g.put(key, obj)
			return true
		})
		var compacted *rv.CompactedError
		switch {
		case err == nil:
			return nil
		case !errors.As(err, &compacted):
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		}
		// Compacted during the walk: read again.
	}
}

// follow applies the events after c.rev to the graph. When the history it
// needs is compacted away it reads everything again.
func (c *Collector) follow(ctx context.Context) error {
	st := c.srv.Store()
	var buf []watch.Event[server.Object]
	for {
		cur := st.Revision()
		evs, err := st.Events(buf[:0], c.rev, eventBatch)
		var compacted *rv.CompactedError
		if errors.As(err, &compacted) {
			// Every node is dirty after a load.
			c.later.take()
			c.unknown.take()
			return c.load(ctx)
		}
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if ev.Type == watch.Deleted {
				c.g.remove(ev.Object.Meta().UID)
			} else {
				c.g.put(ev.Key, ev.Object)
			}
		}
		if len(evs) < eventBatch {
			c.rev = cur
			return nil
		}
		c.rev = evs[len(evs)-1].Revision
		buf = evs
	}
}

// refreshResources maps storage key prefixes to the resources served now.
// When they change, dependents whose owners could not be resolved are
// looked at again (a custom resource's definition may have arrived).
func (c *Collector) refreshResources() {
	rs := c.srv.Resources()
	if slices.Equal(rs, c.resources) {
		return
	}
	c.resources = rs
	c.byPrefix = make(map[string]*server.Resource, len(rs))
	for _, r := range rs {
		b := c.srv.StoreOf(r)
		if b == nil {
			continue // removed meanwhile
		}
		p := strings.TrimSuffix(b.Prefix(""), "/")
		if c.byPrefix[p] == nil {
			c.byPrefix[p] = r // the versions of a resource share its objects
		}
	}
	for _, uid := range c.unknown.take() {
		c.g.dirty.add(uid)
	}
}

// resourceOfKey returns the resource whose objects are stored under key,
// or nil if none is served.
func (c *Collector) resourceOfKey(key string) *server.Resource {
	i := strings.IndexByte(key, '/')
	if i < 0 {
		return nil
	}
	return c.byPrefix[key[:i]]
}

// resourceOfRef returns the served resource of an owner reference's
// apiVersion and kind: that version, or else another version of the
// group and kind (the versions of a resource share its objects). nil if
// none is served.
func (c *Collector) resourceOfRef(r meta.OwnerReference) *server.Resource {
	group, version, ok := strings.Cut(r.APIVersion, "/")
	if !ok {
		group, version = "", r.APIVersion
	}
	var other *server.Resource
	for _, res := range c.resources {
		if res.Group != group || res.Kind != r.Kind {
			continue
		}
		if res.Version == version {
			return res
		}
		if other == nil {
			other = res
		}
	}
	return other
}

// process acts on the dirty nodes until none is left: what it writes
// comes back as events, for the next round.
func (c *Collector) process(ctx context.Context) {
	for c.g.dirty.len() > 0 && ctx.Err() == nil {
		for _, uid := range c.g.dirty.take() {
			if ctx.Err() != nil {
				return
			}
			n := c.g.nodes[uid]
			if n == nil {
				continue
			}
			err := c.handle(ctx, uid, n)
			switch {
			case err == nil:
			case errors.Is(err, errUnresolved):
				c.unknown.add(uid)
			case errors.Is(err, errCannotOwn):
				// Never collected, as in Kubernetes.
			case status.IsConflict(err) || status.IsNotFound(err):
				// Changed or gone meanwhile: its event brings it back.
			case ctx.Err() == nil:
				c.log.Warn("garbage collector", "key", n.key, "err", err)
				c.later.add(uid)
			}
		}
	}
}
