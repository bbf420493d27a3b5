package guards

import (
	"context"
	"strings"

	"cairn.dev/cairn/registry"
)

// Owner authorizes by URI variable before anything is read (404).
type Owner struct{}

var _ Guard = Owner{}

// Name implements Guard.
func (Owner) Name() string { return NameOwner }

// Check implements Guard.
func (Owner) Check(ctx context.Context, c *registry.Call, next Next) error {
	rule := c.Op.Owner
	id := c.Var(rule.Var)
	if id == "" {
		return &registry.Error{Kind: registry.KindInvalid, Detail: "a required argument is missing",
			Violations: []registry.Violation{{Field: rule.Var, Reason: "is required"}}}
	}
	if e := rule.Misshapen(id); e != nil {
		return e // no record has such an id: named as malformed, before any lookup
	}
	if strings.ContainsRune(id, 0) {
		// No record has such an id; asking the store would fail on
		// PostgreSQL. It is unknown, and answered as any unknown id.
		return registry.Fail(registry.KindNotFound, registry.NotFoundDetail)
	}
	ok, err := rule.Check(ctx, c.UserID(), id)
	if err != nil {
		return registry.Internal(err)
	}
	if !ok {
		return registry.Fail(registry.KindNotFound, registry.NotFoundDetail)
	}
	return next(ctx, c)
}
