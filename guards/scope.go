package guards

import (
	"context"

	"cairn.dev/cairn/registry"
)

// Scope refuses a credential that lacks the operation's scope (403).
type Scope struct{}

var _ Guard = Scope{}

// Name implements Guard.
func (Scope) Name() string { return NameScope }

// Check implements Guard.
func (Scope) Check(ctx context.Context, c *registry.Call, next Next) error {
	if !c.Principal.Has(c.Op.Scope) {
		return &registry.Error{
			Kind:   registry.KindForbidden,
			Detail: "the token lacks the scope " + string(c.Op.Scope) + "; create a token that carries it",
			Scope:  c.Op.Scope,
		}
	}
	return next(ctx, c)
}
