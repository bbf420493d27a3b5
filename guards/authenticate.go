package guards

import (
	"context"

	"cairn.dev/cairn/registry"
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
	p, err := g.Principal(ctx, c.Credential)
	if err != nil {
		return err
	}
	c.Principal = p
	return next(ctx, c)
}

// Principal resolves a credential or answers the refusal. The MCP endpoint
// uses it too, to refuse a session before one exists, with the same words.
func (g Authenticate) Principal(ctx context.Context, credential string) (*registry.Principal, error) {
	if credential == "" {
		return nil, registry.Fail(registry.KindUnauthenticated, "a bearer token is required")
	}
	p, err := g.Tokens.Authenticate(ctx, credential)
	if err != nil {
		return nil, registry.Internal(err)
	}
	if p == nil {
		return nil, registry.Fail(registry.KindUnauthenticated, "the bearer token is not valid (unknown, revoked or expired)")
	}
	return p, nil
}
