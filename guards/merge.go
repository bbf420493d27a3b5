package guards

import (
	"context"

	"cairn.dev/cairn/registry"
)

// Merge applies the input onto a copy of Previous (or onto defaults, for a
// creation) and keeps the result as Merged.
type Merge struct{}

var _ Guard = Merge{}

// Name implements Guard.
func (Merge) Name() string { return NameMerge }

// Check implements Guard.
func (Merge) Check(ctx context.Context, c *registry.Call, next Next) error {
	merged, err := c.Op.Merge(ctx, c)
	if err != nil {
		return err
	}
	c.Merged = merged
	return next(ctx, c)
}
