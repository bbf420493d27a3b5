package guards

import (
	"context"

	"cairn.dev/cairn/registry"
)

// Read loads the stored record as Previous. Nothing after it may modify
// Previous: the lock and the precondition judge it as stored. Load runs
// where it cannot write (ReadOnly).
type Read struct{ Tx ReadOnly }

var _ Guard = Read{}

// Name implements Guard.
func (Read) Name() string { return NameRead }

// Check implements Guard.
func (g Read) Check(ctx context.Context, c *registry.Call, next Next) error {
	err := readOnly(ctx, g.Tx, c.Op.ID+": Load", func(ctx context.Context) error {
		prev, err := c.Op.Load(ctx, c)
		c.Previous = prev
		return err
	})
	if err != nil {
		c.Previous = nil
		return err
	}
	return next(ctx, c)
}
