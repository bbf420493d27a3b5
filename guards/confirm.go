package guards

import (
	"context"
	"errors"
	"time"

	"cairn.dev/cairn/registry"
)

// ConfirmationTTL is how long a confirmation token stays usable by default.
const ConfirmationTTL = 5 * time.Minute

// ErrTokenRefused is returned by a ConfirmationStore for a token that is
// unknown, used, expired, or bound to another user, operation or digest.
var ErrTokenRefused = errors.New("confirmation token refused")

// ConfirmationStore issues random single-use tokens bound to a user, an
// operation and a digest of the arguments, and consumes them once.
type ConfirmationStore interface {
	Issue(ctx context.Context, userID, opID, digest string, ttl time.Duration) (token string, expires time.Time, err error)
	Consume(ctx context.Context, token, userID, opID, digest string) error
}

// Confirm is the innermost short circuit. Without a token it writes nothing
// and answers the impact and a fresh token; with one, it goes on only when
// the token matches these exact arguments. When the face can ask the person
// (MCP elicitation), it asks instead and goes on only on an explicit accept.
// An operation declared with registry.ConfirmWhenLoses goes on without
// asking when its impact loses nothing.
type Confirm struct {
	Store ConfirmationStore
	TTL   time.Duration
	Tx    ReadOnly // where the impact runs: it describes, it never acts
}

var _ Guard = Confirm{}

// Name implements Guard.
func (Confirm) Name() string { return NameConfirm }

// Check implements Guard.
func (g Confirm) Check(ctx context.Context, c *registry.Call, next Next) error {
	digest, err := Digest(c)
	if err != nil {
		return registry.Internal(err)
	}
	if c.DeclinedToken != "" {
		// Spent, whatever it names: a declined confirmation is never
		// accepted after all. One already spent or unknown is declined too.
		if err := g.Store.Consume(ctx, c.DeclinedToken, c.UserID(), c.Op.ID, digest); err != nil && !errors.Is(err, ErrTokenRefused) {
			return registry.Internal(err)
		}
		return errDeclined()
	}
	if c.ConfirmationToken != "" {
		if err := g.Store.Consume(ctx, c.ConfirmationToken, c.UserID(), c.Op.ID, digest); err != nil {
			if errors.Is(err, ErrTokenRefused) {
				return &registry.Error{Kind: registry.KindConflict, Code: "confirmation_refused",
					Detail: "the confirmation token is unknown, used, expired or was issued for other arguments; " +
						c.ByFace("send the request again without the Confirmation-Token header to get a fresh one",
							"call the tool again without confirmationToken to get a fresh one")}
			}
			return registry.Internal(err)
		}
		return next(ctx, c)
	}
	var impact registry.Impact
	err = readOnly(ctx, g.Tx, c.Op.ID+": the confirmation's impact", func(ctx context.Context) error {
		impact, err = c.Op.Confirm.Impact(ctx, c)
		return err
	})
	if err != nil {
		return err
	}
	if c.Op.Confirm.OnlyWhenLoses() && len(impact.Loses) == 0 {
		return next(ctx, c) // nothing to lose: nothing to ask
	}
	if c.Asker != nil {
		ok, err := c.Asker.Ask(ctx, impact)
		if err != nil {
			return registry.Internal(err)
		}
		if !ok {
			return errDeclined()
		}
		return next(ctx, c)
	}
	ttl := g.TTL
	if ttl <= 0 {
		ttl = ConfirmationTTL
	}
	token, expires, err := g.Store.Issue(ctx, c.UserID(), c.Op.ID, digest, ttl)
	if err != nil {
		return registry.Internal(err)
	}
	c.Confirmation = &registry.ConfirmationRequest{Impact: impact, Token: token, ExpiresAt: expires}
	return nil
}

// errDeclined is the refusal of a confirmation the person declined.
func errDeclined() error {
	return &registry.Error{Kind: registry.KindConflict, Code: "confirmation_declined",
		Detail: "the person declined; nothing was written"}
}
