package guards

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"time"

	"cairn.dev/cairn/registry"
)

// Limiter counts calls in a sliding window. Allow records the call when it is
// allowed; otherwise it says how long until the oldest call leaves the window.
type Limiter interface {
	Allow(ctx context.Context, key string, limit int, window time.Duration) (ok bool, retryAfter time.Duration, err error)
}

// Refunder is a Limiter that can take back one call it allowed under key:
// the call was refused for what it sent, and spends nothing.
type Refunder interface {
	Refund(ctx context.Context, key string) error
}

// RateLimit applies the operation's declared limits, per user, per client
// address or per argument value (429, or Call.Limited for a silent one).
//
// A retry of a creation that already committed is answered from its record
// by the idempotency guard further in, and writes nothing: it spends no
// quota, so a client that lost an answer can always get it back.
//
// A call refused for its arguments before its handler runs (400 or 422,
// by the arguments or validate guard) spends nothing either: its count
// is taken back (Refunder), so a client correcting a mistake is not
// locked out by it. What a handler refuses itself (a GPX file that cannot
// be read, after it was parsed) has cost the work and stays counted, and
// so does every other refusal (a 404 of someone else's id is a probe),
// but a 503: a call a dependency could not serve did nothing.
//
// While Limiter fails (the shared count in Redis cannot be reached), a rule
// that is not SharedOnly is counted by Fallback, in process; a SharedOnly
// rule, or any rule without a Fallback, is refused as unavailable (503 with
// Retry-After). An outage is never a 500.
type RateLimit struct {
	Limiter  Limiter
	Fallback Limiter       // in process; nil refuses every limited call while Limiter fails
	Replays  CommittedKeys // nil: every call counts
	// OnFallback, when set, is told each time Fallback counts a call
	// because Limiter failed with err: for logs and metrics.
	OnFallback func(ctx context.Context, c *registry.Call, err error)
}

var _ Guard = RateLimit{}

// Name implements Guard.
func (RateLimit) Name() string { return NameRateLimit }

// Check implements Guard.
func (g RateLimit) Check(ctx context.Context, c *registry.Call, next Next) error {
	if g.replay(ctx, c) {
		return next(ctx, c)
	}
	var spent []spending
	for _, r := range c.Op.RateLimit.Rules() {
		key, counted := rateKey(c, r)
		if !counted {
			continue
		}
		ok, wait, by, err := g.allow(ctx, c, r, key)
		if err != nil {
			return err
		}
		if ok {
			spent = append(spent, spending{by, key})
			continue
		}
		if r.Silent {
			// The handler answers as if it acted; later limits do not
			// count a call that does nothing.
			c.Limited = true
			break
		}
		return &registry.Error{
			Kind:       registry.KindRateLimited,
			Detail:     "too many calls of this operation; wait before trying again",
			RetryAfter: int(math.Max(1, math.Ceil(wait.Seconds()))),
			Rule:       &r,
		}
	}
	err := next(ctx, c)
	if refunded(c, err) {
		for _, s := range spent {
			if rf, ok := s.by.(Refunder); ok {
				_ = rf.Refund(ctx, s.key) // best effort: a refund lost counts the call, as before
			}
		}
	}
	return err
}

// refunded reports whether a call answered err spends nothing: refused for
// its arguments before its handler ran, or refused because a dependency is
// down (nothing was done; the client is told to come back).
func refunded(c *registry.Call, err error) bool {
	if err == nil {
		return false
	}
	switch registry.AsError(err).Kind {
	case registry.KindInvalid, registry.KindMalformed:
		return !c.Handling
	case registry.KindUnavailable:
		return true
	}
	return false
}

// spending is one count a call made: by which limiter, under which key.
type spending struct {
	by  Limiter
	key string
}

// allow counts the call under key for rule r, in the shared limiter or,
// while it fails, in process.
func (g RateLimit) allow(ctx context.Context, c *registry.Call, r registry.RateRule, key string) (bool, time.Duration, Limiter, error) {
	ok, wait, err := g.Limiter.Allow(ctx, key, r.Limit, r.Window)
	if err != nil {
		if r.SharedOnly || g.Fallback == nil {
			return false, 0, nil, registry.Unavailable("the rate limiter is unavailable; try again shortly", err)
		}
		if g.OnFallback != nil {
			g.OnFallback(ctx, c, err)
		}
		if ok, wait, err = g.Fallback.Allow(ctx, key, r.Limit, r.Window); err != nil {
			return false, 0, nil, registry.Internal(err)
		}
		return ok, wait, g.Fallback, nil
	}
	return ok, wait, g.Limiter, nil
}

// rateKey is what rule r counts the call under; false when the call has
// nothing to count by (no address known, the argument not sent). A per-user
// rule keeps the key it always had: "<op>:<user>".
func rateKey(c *registry.Call, r registry.RateRule) (string, bool) {
	switch r.Key {
	case registry.KeyAddress:
		return c.Op.ID + ":addr:" + c.ClientAddr, c.ClientAddr != ""
	case registry.KeyArgument:
		var v string
		if raw, ok := c.Args[r.Arg]; !ok || json.Unmarshal(raw, &v) != nil {
			return "", false
		}
		v = strings.ToLower(strings.TrimSpace(v))
		return c.Op.ID + ":arg:" + r.Arg + ":" + v, v != ""
	case registry.KeyVariable:
		v := c.Vars[r.Arg]
		return c.Op.ID + ":var:" + r.Arg + ":" + v + ":" + c.UserID(), v != ""
	}
	return c.Op.ID + ":" + c.UserID(), true
}

// replay reports whether the call repeats a committed creation with the
// same key and arguments. A key the idempotency guard would refuse, or a
// store that cannot answer, counts as no replay: the call is counted.
func (g RateLimit) replay(ctx context.Context, c *registry.Call) bool {
	if g.Replays == nil || !Applies(NameIdempotency, c.Op) {
		return false
	}
	key, ttl, err := keyOf(c)
	if err != nil {
		return false
	}
	committed, err := g.Replays.Committed(ctx, key, ttl)
	return err == nil && committed
}
