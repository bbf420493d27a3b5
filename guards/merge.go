package guards

import (
	"context"

	"cairn.dev/cairn/registry"
)

// Merge applies the input onto a copy of Previous (or onto defaults, for a
// creation) and keeps the result as Merged. Merge runs where it cannot
// write (ReadOnly): it runs before validation, so what it wrote would stay
// behind a refusal.
type Merge struct{ Tx ReadOnly }

var _ Guard = Merge{}

// Name implements Guard.
func (Merge) Name() string { return NameMerge }

// Check implements Guard.
func (g Merge) Check(ctx context.Context, c *registry.Call, next Next) error {
	err := readOnly(ctx, g.Tx, c.Op.ID+": Merge", func(ctx context.Context) error {
		merged, err := c.Op.Merge(ctx, c)
		c.Merged = merged
		return err
	})
	if err != nil {
		c.Merged = nil
		return err
	}
	return next(ctx, c)
}
