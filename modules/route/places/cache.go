package places

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Cache keeps answers of an upstream Searcher by key. It is an interface so
// that a shared Redis-backed cache can replace MemoryCache when several
// servers run, which also keeps them all within one upstream's good graces.
// A cache never fails a search: an implementation that cannot reach its
// store reports a miss, and logs.
type Cache interface {
	// Get returns the places stored under key, if they have not expired.
	// An empty answer that was stored is a hit: "nothing found" is reused
	// like any other answer.
	Get(ctx context.Context, key string) ([]Place, bool)
	// Set stores places under key for ttl.
	Set(ctx context.Context, key string, places []Place, ttl time.Duration)
}

// DefaultCacheTTL is how long an upstream answer is reused (operations.md:
// cached 24 h).
const DefaultCacheTTL = 24 * time.Hour

// DefaultCacheEntries bounds a MemoryCache: an answer is ten places, about
// 2 KB, so the default stays under 10 MB.
const DefaultCacheEntries = 4096

// MemoryCache is an in-process Cache holding at most a fixed number of
// answers; when full, the entry closest to expiry goes first. Answers are
// copied in and out, so callers may change what they get.
type MemoryCache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
	max     int
	now     func() time.Time
}

type cacheEntry struct {
	places  []Place
	expires time.Time
}

var _ Cache = (*MemoryCache)(nil)

// NewMemoryCache returns a cache of at most maxEntries answers (0 means
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
func (c *MemoryCache) Get(_ context.Context, key string) ([]Place, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, key)
		return nil, false
	}
	return slices.Clone(e.places), true
}

// Set implements Cache.
func (c *MemoryCache) Set(_ context.Context, key string, places []Place, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		c.evict(now)
	}
	c.entries[key] = cacheEntry{places: slices.Clone(places), expires: now.Add(ttl)}
}

// evict drops expired entries, or else the one closest to expiry. The scan
// is linear, but it runs only on a miss that reached the upstream, at most
// once a second.
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
