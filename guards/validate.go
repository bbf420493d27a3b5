package guards

import (
	"context"

	"cairn.dev/cairn/registry"
)

// Validate judges the merged record and lists every violation (422). It
// never judges the stored record: that would let new values in unexamined.
type Validate struct{}

var _ Guard = Validate{}

// Name implements Guard.
func (Validate) Name() string { return NameValidate }

// Check implements Guard.
func (Validate) Check(ctx context.Context, c *registry.Call, next Next) error {
	if vs := c.Op.Validate.Check(c.Merged); len(vs) > 0 {
		return registry.Invalid("the record would break these rules; nothing was written", vs...)
	}
	return next(ctx, c)
}
