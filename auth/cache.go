package auth

import (
	"sync"
	"time"
)

// maxCacheEntries bounds a cache's memory: an attacker sending a new
// token on every request must not grow it without limit.
const maxCacheEntries = 4096

// ttlCache remembers answers until they expire. The zero value is an
// empty cache.
type ttlCache[V any] struct {
	mu sync.Mutex
	m  map[string]ttlEntry[V] // guarded by mu; lazily initialized
}

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

// get returns the answer for key if it has not expired at now.
func (c *ttlCache[V]) get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// put remembers v for key until expires. A full cache first drops its
// expired entries, then arbitrary ones: it is a cache, not a record.
func (c *ttlCache[V]) put(key string, v V, now, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]ttlEntry[V]{}
	}
	if len(c.m) >= maxCacheEntries {
		for k, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, k)
			}
		}
		for k := range c.m {
			if len(c.m) < maxCacheEntries {
				break
			}
			delete(c.m, k)
		}
	}
	c.m[key] = ttlEntry[V]{v: v, expires: expires}
}
