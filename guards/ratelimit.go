package guards

import (
	"context"
	"math"
	"time"

	"cairn.dev/cairn/registry"
)

// Limiter counts calls in a sliding window. Allow records the call when it is
// allowed; otherwise it says how long until the oldest call leaves the window.
type Limiter interface {
	Allow(ctx context.Context, key string, limit int, window time.Duration) (ok bool, retryAfter time.Duration, err error)
}

// RateLimit applies the operation's declared per-user limit (429).
type RateLimit struct{ Limiter Limiter }

var _ Guard = RateLimit{}

// Name implements Guard.
func (RateLimit) Name() string { return NameRateLimit }

// Check implements Guard.
func (g RateLimit) Check(ctx context.Context, c *registry.Call, next Next) error {
	r := c.Op.RateLimit
	ok, wait, err := g.Limiter.Allow(ctx, c.Op.ID+":"+c.UserID(), r.Limit, r.Window)
	if err != nil {
		return registry.Internal(err)
	}
	if !ok {
		return &registry.Error{
			Kind:       registry.KindRateLimited,
			Detail:     "too many calls of this operation; wait before trying again",
			RetryAfter: int(math.Max(1, math.Ceil(wait.Seconds()))),
		}
	}
	return next(ctx, c)
}
