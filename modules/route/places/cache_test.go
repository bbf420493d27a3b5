package places_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"cairn.dev/cairn/modules/route/places"
)

func setupCache(t *testing.T, max int) (*places.MemoryCache, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	return places.NewMemoryCache(max, clock.Now), clock
}

func TestMemoryCacheExpires(t *testing.T) {
	t.Parallel()
	c, clock := setupCache(t, 0)
	ctx := context.Background()
	c.Set(ctx, "k", []places.Place{{Name: "Lyon"}}, time.Hour)

	clock.Advance(time.Hour - time.Nanosecond)
	got, ok := c.Get(ctx, "k")
	assert.True(t, ok)
	assert.Equal(t, []places.Place{{Name: "Lyon"}}, got)

	clock.Advance(time.Nanosecond)
	_, ok = c.Get(ctx, "k")
	assert.False(t, ok)
}

func TestMemoryCacheCopies(t *testing.T) {
	t.Parallel()
	c, _ := setupCache(t, 0)
	ctx := context.Background()
	in := []places.Place{{Name: "Lyon"}}
	c.Set(ctx, "k", in, time.Hour)
	in[0].Name = "changed by the caller"

	got, _ := c.Get(ctx, "k")
	got[0].Name = "changed by a reader"
	again, _ := c.Get(ctx, "k")
	assert.Equal(t, "Lyon", again[0].Name)
}

func TestMemoryCacheEvictsClosestToExpiry(t *testing.T) {
	t.Parallel()
	c, _ := setupCache(t, 3)
	ctx := context.Background()
	for i, ttl := range []time.Duration{3 * time.Hour, time.Hour, 2 * time.Hour} {
		c.Set(ctx, fmt.Sprint(i), nil, ttl)
	}
	c.Set(ctx, "new", nil, time.Hour)

	tests := []struct {
		give string
		want bool
	}{
		{give: "0", want: true},
		{give: "1", want: false},
		{give: "2", want: true},
		{give: "new", want: true},
	}
	for _, tt := range tests {
		_, ok := c.Get(ctx, tt.give)
		assert.Equal(t, tt.want, ok, tt.give)
	}
}
