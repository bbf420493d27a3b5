package guards_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// down is a limiter whose store cannot be reached.
type down struct{}

func (down) Allow(context.Context, string, int, time.Duration) (bool, time.Duration, error) {
	return false, 0, errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")
}

// counting allows n calls, then refuses.
type counting struct{ n int }

func (c *counting) Allow(context.Context, string, int, time.Duration) (bool, time.Duration, error) {
	c.n--
	return c.n >= 0, time.Second, nil
}

// committed answers whether a key is a committed replay.
type committed bool

func (c committed) Committed(context.Context, guards.IdempotencyKey, time.Duration) (bool, error) {
	return bool(c), nil
}

// TestRateLimitWhileItsStoreIsDown: a limit counts in process while the
// shared limiter fails, unless it is SharedOnly or there is no fallback:
// then 503 with Retry-After. Never a 500.
func TestRateLimitWhileItsStoreIsDown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		rule     registry.RateRule
		fallback guards.Limiter
		want     registry.Kind // 0: let through
	}{
		{"counted in process", registry.PerUser(1, time.Minute), &counting{n: 1}, 0},
		{"over the limit in process", registry.PerUser(1, time.Minute), &counting{n: 0}, registry.KindRateLimited},
		{"a shared-only limit", registry.PerUser(1, time.Minute).Shared(), &counting{n: 1}, registry.KindUnavailable},
		{"no fallback", registry.PerUser(1, time.Minute), nil, registry.KindUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fallbacks int
			g := guards.RateLimit{Limiter: down{}, Fallback: tt.fallback,
				OnFallback: func(context.Context, *registry.Call, error) { fallbacks++ }}
			op := &registry.Operation{ID: "x.create", RateLimit: tt.rule}
			err := g.Check(context.Background(), &registry.Call{Op: op}, func(context.Context, *registry.Call) error { return nil })
			if tt.want == 0 {
				require.NoError(t, err)
				require.Equal(t, 1, fallbacks, "the fallback is reported")
				return
			}
			e := registry.AsError(err)
			require.Equal(t, tt.want, e.Kind)
			require.Positive(t, e.RetryAfter, "the refusal says when to come back")
		})
	}
}

// TestRateLimitLetsACommittedReplayThrough: a retry of a committed
// creation spends nothing, even with the quota spent; a call that is not
// one is counted.
func TestRateLimitLetsACommittedReplayThrough(t *testing.T) {
	t.Parallel()
	creation := &registry.Operation{ID: "x.create", RateLimit: registry.PerUser(1, time.Minute),
		Idempotency: registry.CreationReplayedBy(func(context.Context, *registry.Call, string) (any, error) { return nil, nil })}
	tests := []struct {
		name      string
		committed committed
		key       string
		want      registry.Kind
	}{
		{"a committed replay", true, "a-key-of-sixteen-chars", 0},
		{"not committed", false, "a-key-of-sixteen-chars", registry.KindRateLimited},
		{"a key the idempotency guard refuses", true, "short", registry.KindRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limiter := &counting{n: 0} // the quota is spent
			g := guards.RateLimit{Limiter: limiter, Replays: tt.committed}
			c := &registry.Call{Op: creation, IdempotencyKey: tt.key, Principal: &registry.Principal{UserID: "u1"}}
			err := g.Check(context.Background(), c, func(context.Context, *registry.Call) error { return nil })
			if tt.want == 0 {
				require.NoError(t, err)
				require.Zero(t, limiter.n, "nothing was counted")
				return
			}
			require.Equal(t, tt.want, registry.AsError(err).Kind)
		})
	}
}
