package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// TokenInfo describes a token without its secret, which is never stored.
type TokenInfo struct {
	ID        string
	Name      string
	Scopes    []registry.Scope
	CreatedAt time.Time
	ExpiresAt *time.Time // nil: no expiry
	RevokedAt *time.Time // nil: not revoked
}

// ErrNoSuchUser is returned for an email no user has.
var ErrNoSuchUser = errors.New("no user has this email")

// ErrNoSuchToken is returned when a revocation names no active token.
var ErrNoSuchToken = errors.New("no active token matches")

// userByEmail finds a user by email, as EnsureUser stored it (lower case).
func (s *Store) userByEmail(ctx context.Context, email string) (*User, error) {
	u := new(User)
	err := storage.Conn(ctx, s.db).NewSelect().Model(u).Where("email = ?", strings.ToLower(email)).Scan(ctx)
	if storage.NoRows(err) {
		return nil, fmt.Errorf("%w: %s", ErrNoSuchUser, registry.Quote(email))
	}
	return u, err
}

// ListTokens lists every token of the user with this email, revoked and
// expired ones included, oldest first.
func (s *Store) ListTokens(ctx context.Context, email string) ([]TokenInfo, error) {
	u, err := s.userByEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	var rows []accessToken
	err = storage.Conn(ctx, s.db).NewSelect().Model(&rows).Where("user_id = ?", u.ID).OrderExpr("created_at, id").Scan(ctx)
	if err != nil && !storage.NoRows(err) {
		return nil, err
	}
	out := make([]TokenInfo, 0, len(rows))
	for _, r := range rows {
		info := TokenInfo{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt}
		for _, sc := range strings.Fields(r.Scopes) {
			info.Scopes = append(info.Scopes, registry.Scope(sc))
		}
		out = append(out, info)
	}
	return out, nil
}

// RevokeToken revokes the active tokens of the user with this email that
// have the id ref or, failing that, the name ref (several tokens may share
// a name), and says how many it revoked; none is ErrNoSuchToken. This
// process forgets them at once; other replicas within their cache's TTL.
func (s *Store) RevokeToken(ctx context.Context, email, ref string) (int, error) {
	u, err := s.userByEmail(ctx, email)
	if err != nil {
		return 0, err
	}
	if ref == "" {
		return 0, errors.New("name the token to revoke by its id or its name")
	}
	n, err := s.revokeWhere(ctx, "user_id = ? AND id = ? AND revoked_at IS NULL", u.ID, ref)
	if err == nil && n == 0 {
		n, err = s.revokeWhere(ctx, "user_id = ? AND name = ? AND revoked_at IS NULL", u.ID, ref)
	}
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("%w %s for %s (the person's list of tokens shows them)", ErrNoSuchToken, registry.Quote(ref), registry.Quote(email))
	}
	return n, nil
}

func (s *Store) revokeWhere(ctx context.Context, where string, args ...any) (int, error) {
	res, err := storage.Conn(ctx, s.db).NewUpdate().Model((*accessToken)(nil)).
		Set("revoked_at = ?", time.Now().UTC()).Where(where, args...).Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if n > 0 {
		s.forget()
	}
	return int(n), err
}
