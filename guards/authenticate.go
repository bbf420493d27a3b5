package guards

import (
	"context"

	"cairn/registry"
)

// Authenticator resolves a bearer credential into a principal. It answers
// (nil, nil) for a credential it does not know.
type Authenticator interface {
	Authenticate(ctx context.Context, credential string) (*registry.Principal, error)
}

// Authenticate refuses a call without a valid credential (401).
type Authenticate struct{ Tokens Authenticator }

var _ Guard = Authenticate{}

// Name implements Guard.
func (Authenticate) Name() string { return NameAuthenticate }

// Check implements Guard.
func (g Authenticate) Check(ctx context.Context, c *registry.Call, next Next) error {
	if c.Op.Scope == registry.Public {
		return next(ctx, c)
	}
	if c.Credential == "" {
		return registry.Fail(registry.KindUnauthenticated, "a bearer token is required")
	}
	p, err := g.Tokens.Authenticate(ctx, c.Credential)
	if err != nil {
		return registry.Internal(err)
	}
	if p == nil {
		return registry.Fail(registry.KindUnauthenticated, "the bearer token is not valid (unknown, revoked or expired)")
	}
	c.Principal = p
	return next(ctx, c)
}
