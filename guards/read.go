package guards

import (
	"context"

	"cairn.dev/cairn/registry"
)

// Read loads the stored record as Previous. Nothing after it may modify
// Previous: the lock and the precondition judge it as stored.
type Read struct{}

var _ Guard = Read{}

// Name implements Guard.
func (Read) Name() string { return NameRead }

// Check implements Guard.
func (Read) Check(ctx context.Context, c *registry.Call, next Next) error {
	prev, err := c.Op.Load(ctx, c)
	if err != nil {
		return err
	}
	c.Previous = prev
	return next(ctx, c)
}
