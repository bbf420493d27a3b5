package source

import (
	"context"
	"sync"
	"time"

	"cairn/modules/route/geo"
)

// Cache keeps fetched routes by key ("komoot_tour:123"), so a route shared
// by many trips is fetched once a day. It is an interface so that a shared
// Redis-backed cache can replace MemoryCache when several servers run.
// A cache never fails a fetch: an implementation that cannot reach its
// store reports a miss, and logs.
type Cache interface {
	// Get returns the route stored under key, if it has not expired.
	Get(ctx context.Context, key string) (Route, bool)
	// Set stores r under key for ttl.
	Set(ctx context.Context, key string, r Route, ttl time.Duration)
}

// DefaultCacheEntries bounds a MemoryCache: a long route is about half a
// megabyte of points.
const DefaultCacheEntries = 256

// MemoryCache is an in-process Cache holding at most a fixed number of
// routes; when full, the entry closest to expiry goes first. Routes are
// copied in and out, so callers may change what they get.
type MemoryCache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
	max     int
	now     func() time.Time
}

type cacheEntry struct {
	route   Route
	expires time.Time
}

var _ Cache = (*MemoryCache)(nil)

// NewMemoryCache returns a cache of at most maxEntries routes (0 means
// DefaultCacheEntries). now is the clock, nil for time.Now; tests pass a
// fake one to expire entries without waiting.
func NewMemoryCache(maxEntries int, now func() time.Time) *MemoryCache {
	if maxEntries <= 0 {
		maxEntries = DefaultCacheEntries
	}
	if now == nil {
		now = time.Now
	}
	return &MemoryCache{entries: map[string]cacheEntry{}, max: maxEntries, now: now}
}

// Get implements Cache.
func (c *MemoryCache) Get(_ context.Context, key string) (Route, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return Route{}, false
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, key)
		return Route{}, false
	}
	return cloneRoute(e.route), true
}

// Set implements Cache.
func (c *MemoryCache) Set(_ context.Context, key string, r Route, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		c.evict(now)
	}
	c.entries[key] = cacheEntry{route: cloneRoute(r), expires: now.Add(ttl)}
}

// evict drops expired entries, or else the one closest to expiry. A linear
// scan is fine at a few hundred entries and one call per fetch.
func (c *MemoryCache) evict(now time.Time) {
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

func cloneRoute(r Route) Route {
	tracks := make([][]geo.Point, len(r.Tracks))
	for i, t := range r.Tracks {
		tracks[i] = append([]geo.Point(nil), t...)
	}
	r.Tracks = tracks
	return r
}
