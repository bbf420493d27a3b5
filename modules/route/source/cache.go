package source

import (
	"context"
	"time"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/ttlcache"
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

// MemoryCache is the in-process Cache.
type MemoryCache = ttlcache.Cache[Route]

var _ Cache = (*MemoryCache)(nil)

// NewMemoryCache returns an in-process cache of at most maxEntries routes
// (DefaultCacheEntries when not positive); now defaults to time.Now.
func NewMemoryCache(maxEntries int, now func() time.Time) *MemoryCache {
	if maxEntries <= 0 {
		maxEntries = DefaultCacheEntries
	}
	return ttlcache.New(maxEntries, now, cloneRoute)
}

func cloneRoute(r Route) Route {
	tracks := make([][]geo.Point, len(r.Tracks))
	for i, t := range r.Tracks {
		tracks[i] = append([]geo.Point(nil), t...)
	}
	r.Tracks = tracks
	return r
}
