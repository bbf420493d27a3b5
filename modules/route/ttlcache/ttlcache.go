// Package ttlcache is a small in-process cache whose entries expire, bounded
// in size: the default behind the route sources' and the place search's
// cache interfaces, which a shared (Redis) cache can replace.
package ttlcache

import (
	"context"
	"sync"
	"time"
)

// Cache keeps values of type V by key until they expire. Values are cloned
// in and out, so a caller never shares memory with the cache.
type Cache[V any] struct {
	mu      sync.Mutex
	entries map[string]entry[V]
	max     int
	now     func() time.Time
	clone   func(V) V
}

type entry[V any] struct {
	value   V
	expires time.Time
}

// New returns a cache of at most maxEntries values; now defaults to
// time.Now and clone to returning the value as is.
func New[V any](maxEntries int, now func() time.Time, clone func(V) V) *Cache[V] {
	if now == nil {
		now = time.Now
	}
	if clone == nil {
		clone = func(v V) V { return v }
	}
	return &Cache[V]{entries: map[string]entry[V]{}, max: max(maxEntries, 1), now: now, clone: clone}
}

// Get returns the value under key, unless it is absent or expired.
func (c *Cache[V]) Get(_ context.Context, key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	e, ok := c.entries[key]
	if !ok {
		return zero, false
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, key)
		return zero, false
	}
	return c.clone(e.value), true
}

// Set keeps v under key for ttl, making room first when the cache is full.
func (c *Cache[V]) Set(_ context.Context, key string, v V, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		c.evict(now)
	}
	c.entries[key] = entry[V]{value: c.clone(v), expires: now.Add(ttl)}
}

// evict drops expired entries, or else the one closest to expiry. The scan
// is linear: it runs only when a full cache takes a new key, which follows
// a call to a provider.
func (c *Cache[V]) evict(now time.Time) {
	var oldest string
	var oldestAt time.Time
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
			continue
		}
		if oldest == "" || e.expires.Before(oldestAt) {
			oldest, oldestAt = k, e.expires
		}
	}
	if len(c.entries) >= c.max {
		delete(c.entries, oldest)
	}
}
