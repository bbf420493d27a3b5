package places

import (
	"context"
	"slices"
	"time"

	"cairn.dev/cairn/modules/route/ttlcache"
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

// MemoryCache is the in-process Cache.
type MemoryCache = ttlcache.Cache[[]Place]

var _ Cache = (*MemoryCache)(nil)

// NewMemoryCache returns an in-process cache of at most maxEntries answers
// (DefaultCacheEntries when not positive); now defaults to time.Now.
func NewMemoryCache(maxEntries int, now func() time.Time) *MemoryCache {
	if maxEntries <= 0 {
		maxEntries = DefaultCacheEntries
	}
	return ttlcache.New(maxEntries, now, slices.Clone[[]Place])
}
