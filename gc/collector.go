package gc

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
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
	sources   []*source                   // the stores of the served resources
	byPrefix  map[string]*server.Resource // storage key prefix -> a resource of it
	resources []*server.Resource          // what sources and byPrefix were built from
	later     *queue                      // uids to look at again after RetryInterval
	unknown   *queue                      // uids with owners of kinds not served
}

// source is one store the served resources keep their objects in: the
// server's Store, and with some storages a store per resource added while
// the server runs (etcd's replicas of custom resources).
type source struct {
	st  *store.Store[server.Object]
	rev rv.Version // the graph has every event of st up to here
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
// reads every object of the served resources' stores once, then follows
// their events: after each batch of writes it acts on what they concern.
// A Collector runs once.
func (c *Collector) Run(ctx context.Context) error {
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	c.g, c.later, c.unknown = newGraph(), newQueue(), newQueue()
	// The cases of the wait: ctx, the served resources, the retry timer,
	// then one per source.
	var cases []reflect.SelectCase
	for {
		changed := c.srv.ResourcesChanged()
		if err := c.refreshResources(ctx); err != nil {
			return err
		}
		c.process(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if c.later.len() > 0 {
			retry.Reset(c.retry)
		}
		cases = append(cases[:0],
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(changed)},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(retry.C)})
		for _, src := range c.sources {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(src.st.Changed(src.rev))})
		}
		switch i, _, _ := reflect.Select(cases); i {
		case 0:
			return ctx.Err()
		case 2:
			for _, uid := range c.later.take() {
				c.g.dirty.add(uid)
			}
		}
		if err := c.follow(ctx); err != nil {
			return err
		}
	}
}

// load adds every object of src's store to the graph, each to be looked
// at, and sets src.rev to the revision read.
func (c *Collector) load(ctx context.Context, src *source) error {
	for {
		src.rev = src.st.Revision()
		err := src.st.Snapshot(src.rev, func(key string, obj server.Object) bool {
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

// follow applies the events of every source after its revision to the
// graph. When the history of one has been compacted away, it starts
// over: a new graph from every source, every node to be looked at.
func (c *Collector) follow(ctx context.Context) error {
	var buf []watch.Event[server.Object]
	for _, src := range c.sources {
		for {
			cur := src.st.Revision()
			evs, err := src.st.Events(buf[:0], src.rev, eventBatch)
			var compacted *rv.CompactedError
			if errors.As(err, &compacted) {
				c.g, c.sources, c.resources = newGraph(), nil, nil
				c.later.take()
				c.unknown.take()
				return nil // refreshResources reads everything again
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
			buf = evs
			if len(evs) < eventBatch {
				src.rev = cur
				break
			}
			src.rev = evs[len(evs)-1].Revision
		}
	}
	return nil
}

// refreshResources maps storage key prefixes to the resources served now,
// and follows the stores they keep their objects in, reading those it did
// not follow before. When the resources change, dependents whose owners
// could not be resolved are looked at again (a custom resource's
// definition may have arrived).
func (c *Collector) refreshResources(ctx context.Context) error {
	rs := c.srv.Resources()
	if c.sources != nil && slices.Equal(rs, c.resources) {
		return nil
	}
	c.resources = rs
	c.byPrefix = make(map[string]*server.Resource, len(rs))
	var sources []*source
	for _, r := range rs {
		b := c.srv.StoreOf(r)
		if b == nil {
			continue // removed meanwhile
		}
		p := strings.TrimSuffix(b.Prefix(""), "/")
		if c.byPrefix[p] == nil {
			c.byPrefix[p] = r // the versions of a resource share its objects
		}
		st := b.Store()
		if slices.ContainsFunc(sources, func(s *source) bool { return s.st == st }) {
			continue
		}
		i := slices.IndexFunc(c.sources, func(s *source) bool { return s.st == st })
		if i >= 0 {
			sources = append(sources, c.sources[i])
			continue
		}
		src := &source{st: st}
		if err := c.load(ctx, src); err != nil {
			return err
		}
		sources = append(sources, src)
	}
	c.sources = sources
	for _, uid := range c.unknown.take() {
		c.g.dirty.add(uid)
	}
	return nil
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
