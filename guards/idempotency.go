package guards

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"

	"cairn.dev/cairn/registry"
)

// Key lengths accepted for a caller's idempotency key (ADR-077).
const (
	MinKeyLength = 16
	MaxKeyLength = 255
)

// Key lifetimes: a caller's key is honoured for a day, a derived one for
// five minutes (past that, the same arguments are a new intent).
const (
	KeyTTL        = 24 * time.Hour
	DerivedKeyTTL = 5 * time.Minute
)

// IdempotencyKey identifies one creation intent.
type IdempotencyKey struct {
	UserID, OpID, Key, Digest string
}

// Claimed is what a Claim found: nothing (the caller goes on), or the row of
// an earlier call with its digest and the id it created.
type Claimed struct {
	Existing  bool
	Digest    string
	CreatedID string
}

// IdempotencyStore records keys. Claim inserts the key row inside the
// current transaction, relying on a unique index: a concurrent claim of the
// same key waits for the first transaction and then sees its row. Claim
// first forgets a row of the same key older than ttl.
type IdempotencyStore interface {
	Claim(ctx context.Context, k IdempotencyKey, ttl time.Duration) (Claimed, error)
	Complete(ctx context.Context, k IdempotencyKey, createdID string) error
	CommittedKeys
}

// CommittedKeys tells a replay of a committed creation before the
// idempotency guard runs: Committed reports whether k, with the same digest,
// names a creation that committed less than ttl ago. The rate-limit guard
// asks it, so a retry is answered without spending quota.
type CommittedKeys interface {
	Committed(ctx context.Context, k IdempotencyKey, ttl time.Duration) (bool, error)
}

// Transactor runs fn in one transaction carried by ctx; nested calls join it.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Idempotency makes a creation and its key commit together: no orphan
// record, no key pointing at nothing. A repeat replays the first result,
// rebuilt from the stored id; the same key with other arguments is 409.
type Idempotency struct {
	Store IdempotencyStore
	Tx    Transactor
}

var _ Guard = Idempotency{}

// Name implements Guard.
func (Idempotency) Name() string { return NameIdempotency }

var errReplay = errors.New("replay")

// keyOf is the call's idempotency key and how long it is honoured, or the
// refusal of a missing or malformed key.
func keyOf(c *registry.Call) (IdempotencyKey, time.Duration, error) {
	if n := len(c.IdempotencyKey); n < MinKeyLength || n > MaxKeyLength {
		detail := "an idempotency key is required: 16 to 255 characters, the same on every retry of one intent"
		if n > 0 {
			detail = "the idempotency key must be 16 to 255 characters long"
		}
		return IdempotencyKey{}, 0, &registry.Error{Kind: registry.KindMalformed, Code: "idempotency_key", Detail: detail}
	}
	if strings.ContainsFunc(c.IdempotencyKey, unicode.IsControl) {
		return IdempotencyKey{}, 0, &registry.Error{Kind: registry.KindMalformed, Code: "idempotency_key",
			Detail: "the idempotency key must be printable text, without control characters"}
	}
	digest, err := Digest(c)
	if err != nil {
		return IdempotencyKey{}, 0, registry.Internal(err)
	}
	ttl := KeyTTL
	if c.KeyDerived {
		ttl = DerivedKeyTTL
	}
	return IdempotencyKey{UserID: c.UserID(), OpID: c.Op.ID, Key: c.IdempotencyKey, Digest: digest}, ttl, nil
}

// Check implements Guard.
func (g Idempotency) Check(ctx context.Context, c *registry.Call, next Next) error {
	key, ttl, err := keyOf(c)
	if err != nil {
		return err
	}
	digest := key.Digest
	var claimed Claimed
	err = g.Tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if claimed, err = g.Store.Claim(ctx, key, ttl); err != nil {
			return err
		}
		if claimed.Existing {
			return errReplay // roll back: this call writes nothing
		}
		if err := next(ctx, c); err != nil {
			return err
		}
		created, ok := c.Output.(registry.Created)
		if !ok {
			return registry.Internal(errors.New("a creation's output must implement registry.Created"))
		}
		return g.Store.Complete(ctx, key, created.CreatedID())
	})
	if !errors.Is(err, errReplay) {
		return err
	}
	if claimed.Digest != digest {
		return &registry.Error{Kind: registry.KindConflict, Code: "idempotency_key_reused",
			Detail: "this idempotency key was used with other arguments; use a new key for a new intent"}
	}
	out, err := c.Op.Idempotency.Replay(ctx, c, claimed.CreatedID)
	if err != nil {
		return err
	}
	c.Output, c.Replayed = out, true
	return nil
}
