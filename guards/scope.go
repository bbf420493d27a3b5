package guards

import (
	"context"
	"slices"

	"cairn.dev/cairn/registry"
)

// Scope refuses a credential that lacks the operation's scope (403).
type Scope struct{}

var _ Guard = Scope{}

// Name implements Guard.
func (Scope) Name() string { return NameScope }

// Check implements Guard.
func (g Scope) Check(ctx context.Context, c *registry.Call, next Next) error {
	if err := g.Refusal(c.Principal, c.Op); err != nil {
		return err
	}
	return next(ctx, c)
}

// Refusal is the guard's answer for principal p calling op: nil when op's
// scope does not apply or p carries it. The /mcp endpoint asks it before a
// session exists, so that a client can step up; the words are the same.
func (Scope) Refusal(p *registry.Principal, op *registry.Operation) error {
	if !Applies(NameScope, op) || p.Has(op.Scope) {
		return nil
	}
	return &registry.Error{
		Kind:   registry.KindForbidden,
		Detail: "the token lacks the scope " + string(op.Scope) + "; ask for a token that carries it",
		Scope:  op.Scope,
		Held:   slices.Clone(p.Scopes),
	}
}
