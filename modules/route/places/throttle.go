package places

import (
	"context"
	"time"

	"golang.org/x/time/rate"
)

// Throttle spaces requests to an upstream: at most one per interval, no
// burst, in the order callers arrive. It is safe for concurrent use.
type Throttle struct {
	lim   *rate.Limiter
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
}

// NewThrottle allows one request per every. now and sleep are the clock,
// nil for the real one; tests pass a fake pair to see every wait the
// throttle imposes without waiting.
func NewThrottle(every time.Duration, now func() time.Time, sleep func(context.Context, time.Duration) error) *Throttle {
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	return &Throttle{lim: rate.NewLimiter(rate.Every(every), 1), now: now, sleep: sleep}
}

// nominatimThrottle is shared by every Nominatim that is not given one: the
// usage policy's one request per second is per client address, so it holds
// for the process, however many Searchers the wiring builds.
var nominatimThrottle = NewThrottle(time.Second, nil, nil)

// Wait blocks until the caller may send one request, or ctx ends. A caller
// that gives up hands its slot back, so those queued behind it do not wait
// for a request that was never sent.
func (t *Throttle) Wait(ctx context.Context) error {
	now := t.now()
	r := t.lim.ReserveN(now, 1)
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	if err := t.sleep(ctx, d); err != nil {
		r.CancelAt(t.now())
		return err
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
