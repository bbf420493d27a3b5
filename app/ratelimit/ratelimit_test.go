package ratelimit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/ratelimit"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/storage/storagetest"
)

func limiters(t *testing.T) map[string]guards.Limiter {
	rc, prefix := storagetest.Redis(t)
	return map[string]guards.Limiter{
		"memory": ratelimit.NewMemory(),
		"redis":  ratelimit.Redis{Client: rc, Prefix: prefix},
	}
}

func TestSlidingWindow(t *testing.T) {
	t.Parallel()
	for name, l := range limiters(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			for i := range 3 {
				ok, _, err := l.Allow(ctx, "create:u1", 3, time.Second)
				require.NoError(t, err)
				require.True(t, ok, "call %d is within the limit", i+1)
			}
			ok, wait, err := l.Allow(ctx, "create:u1", 3, time.Second)
			require.NoError(t, err)
			require.False(t, ok, "the fourth call in the window is refused")
			require.Greater(t, wait, time.Duration(0))
			require.LessOrEqual(t, wait, time.Second)

			ok, _, err = l.Allow(ctx, "create:u2", 3, time.Second)
			require.NoError(t, err)
			require.True(t, ok, "another user has a count of their own")

			time.Sleep(wait + 50*time.Millisecond)
			ok, _, err = l.Allow(ctx, "create:u1", 3, time.Second)
			require.NoError(t, err)
			require.True(t, ok, "once the oldest call leaves the window, one more is allowed")
		})
	}
}

// TestConcurrentCallsNeverExceedTheLimit: the check and the record are one
// atomic step, in process and across Redis clients alike.
func TestConcurrentCallsNeverExceedTheLimit(t *testing.T) {
	t.Parallel()
	for name, l := range limiters(t) {
		t.Run(name, func(t *testing.T) {
			var allowed atomic.Int32
			var wg sync.WaitGroup
			for range 40 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ok, _, err := l.Allow(context.Background(), "burst", 10, time.Minute)
					require.NoError(t, err)
					if ok {
						allowed.Add(1)
					}
				}()
			}
			wg.Wait()
			require.EqualValues(t, 10, allowed.Load())
		})
	}
}

// TestARefundTakesBackOneCall: a call taken back leaves room for one more,
// no more, in process and in Redis; a refund of a key never counted does
// nothing.
func TestARefundTakesBackOneCall(t *testing.T) {
	t.Parallel()
	for name, l := range limiters(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			rf := l.(guards.Refunder)
			require.NoError(t, rf.Refund(ctx, "refund:none"))
			for range 2 {
				ok, _, err := l.Allow(ctx, "refund:u1", 2, time.Minute)
				require.NoError(t, err)
				require.True(t, ok)
			}
			require.NoError(t, rf.Refund(ctx, "refund:u1"))
			ok, _, err := l.Allow(ctx, "refund:u1", 2, time.Minute)
			require.NoError(t, err)
			require.True(t, ok, "the refunded call left room for one")
			ok, _, err = l.Allow(ctx, "refund:u1", 2, time.Minute)
			require.NoError(t, err)
			require.False(t, ok, "and for one only")
		})
	}
}
