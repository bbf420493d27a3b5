package accounts

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"cairn.dev/cairn/storage"
)

// The family rule, for both kinds of refresh token (sign-in's in
// refresh_tokens, the authorization server's in oauth_refresh_tokens): a
// first sign-in or code exchange starts a family; every refresh token and
// access token minted from it carries the family's id. A refresh token
// rotates once: a compare-and-set points it at its successor and stamps
// used_at. Presented again within RefreshGrace of that use (parallel
// refreshes at an access token's expiry, a retry after a lost answer) it
// answers the same successor with a fresh access token. Presented again
// later, someone holds a copy: the whole family ends, its refresh tokens
// expired and its access tokens revoked.

// ErrRefreshRefused is a refresh token that buys nothing: unknown, expired,
// of an ended family or of an anonymised account.
var ErrRefreshRefused = errors.New("the refresh token is not valid (unknown, already used or expired)")

// ErrRefreshReused is a refresh token presented again after the grace: its
// family has been ended.
var ErrRefreshReused = errors.New("the refresh token was already used; every token of its session is revoked")

// RefreshRow is what the family rule reads of a refresh token, whichever
// table holds it.
type RefreshRow struct {
	Digest     string           `bun:"digest"`
	UserID     string           `bun:"user_id"`
	Family     string           `bun:"family"`
	Sealed     string           `bun:"sealed"`
	ExpiresAt  time.Time        `bun:"expires_at"`
	UsedAt     storage.NullTime `bun:"used_at"`
	ReplacedBy *string          `bun:"replaced_by"`
	DeletedAt  storage.NullTime `bun:"deleted_at"` // the user's
}

// NewFamily is the id of a new family of tokens.
func NewFamily() string { return uuid.Must(uuid.NewV7()).String() }

// Digest is the lookup key a refresh token is stored under.
func Digest(token string) string { return digest(token) }

// NewRefreshToken draws a refresh token and seals it, so that a replay in
// the grace can answer it again.
func (a *Auth) NewRefreshToken() (token, sealed string) {
	token = randomHex(64)
	return token, a.sealToken(token)
}

// ReadRefresh reads a refresh token of table by its digest; nil when unknown.
func (a *Auth) ReadRefresh(ctx context.Context, table, dig string) (*RefreshRow, error) {
	r := new(RefreshRow)
	err := storage.Conn(ctx, a.store.db).NewSelect().TableExpr(table+" AS r").
		Join("JOIN users AS u ON u.id = r.user_id").
		ColumnExpr("r.digest, r.user_id, r.family, r.sealed, r.expires_at, r.used_at, r.replaced_by, u.deleted_at").
		Where("r.digest = ?", dig).Scan(ctx, r)
	if storage.NoRows(err) {
		return nil, nil
	}
	return r, err
}

// Rotation is the outcome of presenting a refresh token.
type Rotation struct {
	Row       *RefreshRow // the presented token
	Successor string      // the refresh token to hand out
	Replay    bool        // true: a replay inside the grace, Successor minted earlier
}

// Rotate applies the family rule to token in table. For a first use, mint
// inserts the successor row (successor's digest, sealed, the row's family)
// in the transaction that spends the presented one. A refusal is
// ErrRefreshRefused or ErrRefreshReused (the family then ended).
func (a *Auth) Rotate(ctx context.Context, table, token string, mint func(ctx context.Context, row *RefreshRow, successor, sealed string) error) (Rotation, error) {
	dig := digest(token)
	for range 3 {
		now := a.now()
		row, err := a.ReadRefresh(ctx, table, dig)
		if err != nil {
			return Rotation{}, err
		}
		if row == nil || row.DeletedAt.Valid || !now.Before(row.ExpiresAt) {
			return Rotation{}, ErrRefreshRefused
		}
		if row.ReplacedBy == nil && row.UsedAt.Valid {
			return Rotation{}, ErrRefreshRefused // spent without a successor: revoked
		}
		if row.ReplacedBy != nil {
			if !row.UsedAt.Valid || !now.Before(row.UsedAt.Time.Add(RefreshGrace)) {
				if err := a.EndFamily(ctx, table, row.Family); err != nil {
					return Rotation{}, err
				}
				return Rotation{}, ErrRefreshReused
			}
			next, err := a.ReadRefresh(ctx, table, *row.ReplacedBy)
			if err != nil {
				return Rotation{}, err
			}
			if next == nil || !now.Before(next.ExpiresAt) {
				return Rotation{}, ErrRefreshRefused
			}
			successor, err := a.openToken(next.Sealed)
			if err != nil {
				return Rotation{}, ErrRefreshRefused // an undecryptable successor (the secret changed)
			}
			return Rotation{Row: row, Successor: successor, Replay: true}, nil
		}
		successor, sealed := a.NewRefreshToken()
		err = storage.Tx{DB: a.store.db}.InTx(ctx, func(ctx context.Context) error {
			if err := mint(ctx, row, successor, sealed); err != nil {
				return err
			}
			res, err := storage.Conn(ctx, a.store.db).NewUpdate().Table(table).
				Set("replaced_by = ?", digest(successor)).Set("used_at = ?", now).
				Where("digest = ? AND replaced_by IS NULL", dig).Exec(ctx)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return errLostRace // someone rotated it first: undo our successor
			}
			return nil
		})
		if errors.Is(err, errLostRace) || (err != nil && storage.IsUniqueViolation(err)) {
			continue // read again: it is now a replay of the winner's rotation
		}
		if err != nil {
			return Rotation{}, err
		}
		return Rotation{Row: row, Successor: successor}, nil
	}
	return Rotation{}, ErrRefreshRefused
}

// EndFamily ends a family: its refresh tokens in table expire now and
// every access token minted in it is revoked.
func (a *Auth) EndFamily(ctx context.Context, table, family string) error {
	if family == "" {
		return nil
	}
	return storage.Tx{DB: a.store.db}.InTx(ctx, func(ctx context.Context) error {
		// Expired rather than deleted: what was issued stays on record
		// until the expired rows are swept, and refuses like any expiry.
		now := a.now()
		if _, err := storage.Conn(ctx, a.store.db).NewUpdate().Table(table).Set("expires_at = ?", now).
			Where("family = ? AND expires_at > ?", family, now).Exec(ctx); err != nil {
			return err
		}
		return a.store.RevokeFamily(ctx, family)
	})
}

// RevokeFamily revokes every access token minted in family.
func (s *Store) RevokeFamily(ctx context.Context, family string) error {
	if family == "" {
		return nil
	}
	_, err := s.revokeWhere(ctx, "family = ? AND revoked_at IS NULL", family)
	s.forget()
	return err
}

// FamilyOf is the family an access token was minted in ("" for none, or an
// unknown secret) and the user it is for.
func (s *Store) FamilyOf(ctx context.Context, secret string) (family, userID string, err error) {
	var row struct {
		Family string `bun:"family"`
		UserID string `bun:"user_id"`
	}
	err = storage.Conn(ctx, s.db).NewSelect().Table("access_tokens").Column("family", "user_id").
		Where("token_hash = ?", hashToken(secret)).Scan(ctx, &row)
	if storage.NoRows(err) {
		return "", "", nil
	}
	return row.Family, row.UserID, err
}
