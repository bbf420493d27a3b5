package guards

import (
	"context"

	"cairn.dev/cairn/registry"
)

// Lock refuses a write to a locked record (423), judged on Previous.
type Lock struct{}

var _ Guard = Lock{}

// Name implements Guard.
func (Lock) Name() string { return NameLock }

// Check implements Guard.
func (Lock) Check(ctx context.Context, c *registry.Call, next Next) error {
	l := c.Op.Lock
	if l.Locked(c.Previous, c.Now) {
		return registry.Fail(registry.KindLocked, l.Reason)
	}
	return next(ctx, c)
}
