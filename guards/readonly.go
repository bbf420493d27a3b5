package guards

import (
	"context"
	"errors"

	"cairn.dev/cairn/registry"
)

// ReadOnly runs fn where a write fails loudly, naming what wrote
// (storage.Tx.ReadOnly): the read, the merge and the confirmation's impact
// run the declaration's functions there, since each of them runs before
// the call is judged and a write there would outlive a refusal.
type ReadOnly interface {
	ReadOnly(ctx context.Context, what string, fn func(ctx context.Context) error) error
}

// readOnly runs fn through r, or at once without one (a chain built for a
// test without storage). A write that r refused is a failure of the
// module, reported as such (500, its cause naming the function).
func readOnly(ctx context.Context, r ReadOnly, what string, fn func(ctx context.Context) error) error {
	if r == nil {
		return fn(ctx)
	}
	err := r.ReadOnly(ctx, what, fn)
	if errors.Is(err, registry.ErrWroteWhileReading) {
		return registry.Internal(err)
	}
	return err
}
