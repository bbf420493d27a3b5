package ttlcache_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/ttlcache"
)

func TestExpiryEvictionAndCopies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := ttlcache.New(2, func() time.Time { return now }, slices.Clone[[]int])

	v := []int{1, 2}
	c.Set(ctx, "a", v, time.Minute)
	v[0] = 99
	got, ok := c.Get(ctx, "a")
	require.True(t, ok)
	require.Equal(t, []int{1, 2}, got, "the cache keeps its own copy")
	got[1] = 42
	again, _ := c.Get(ctx, "a")
	require.Equal(t, []int{1, 2}, again, "and hands out copies")

	c.Set(ctx, "b", []int{3}, 2*time.Minute)
	c.Set(ctx, "c", []int{4}, 3*time.Minute) // full: "a", closest to expiry, goes
	_, ok = c.Get(ctx, "a")
	require.False(t, ok)
	_, ok = c.Get(ctx, "c")
	require.True(t, ok)

	now = now.Add(2 * time.Minute)
	_, ok = c.Get(ctx, "b")
	require.False(t, ok, "expired at its TTL")
	_, ok = c.Get(ctx, "c")
	require.True(t, ok)
}
