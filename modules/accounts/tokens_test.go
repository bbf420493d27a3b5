package accounts_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage/storagetest"
)

// TestListAndRevokeTokens: on both engines, a user's tokens are listed
// without their secrets, and revoking one by id, or several by name, stops
// them authenticating at once in this process; another user's token of
// the same name is untouched.
func TestListAndRevokeTokens(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{accounts.Migrations}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := accounts.NewStore(db, vocabulary())
		s.SetCacheTTL(time.Minute) // a revocation must reach this process's cache
		u, _, err := s.EnsureUser(ctx, "owner@example.com")
		require.NoError(t, err)
		other, _, err := s.EnsureUser(ctx, "other@example.com")
		require.NoError(t, err)
		read := []registry.Scope{readScope}
		a, err := s.CreateToken(ctx, u.ID, "ci", read, 0)
		require.NoError(t, err)
		b, err := s.CreateToken(ctx, u.ID, "ci", []registry.Scope{readScope, writeScope}, time.Hour)
		require.NoError(t, err)
		c, err := s.CreateToken(ctx, other.ID, "ci", read, 0)
		require.NoError(t, err)
		for _, tok := range []string{a, b, c} {
			p, err := s.Authenticate(ctx, tok) // now cached
			require.NoError(t, err)
			require.NotNil(t, p)
		}

		list, err := s.ListTokens(ctx, "Owner@Example.com")
		require.NoError(t, err)
		require.Len(t, list, 2)
		require.Equal(t, read, list[0].Scopes)
		require.Nil(t, list[0].ExpiresAt)
		require.NotNil(t, list[1].ExpiresAt)
		require.Len(t, list[1].Scopes, 2)
		for _, info := range list {
			require.Equal(t, "ci", info.Name)
			require.Nil(t, info.RevokedAt)
			require.False(t, info.CreatedAt.IsZero())
		}

		n, err := s.RevokeToken(ctx, "owner@example.com", list[0].ID)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		p, err := s.Authenticate(ctx, a)
		require.NoError(t, err)
		require.Nil(t, p, "revoked by id")
		p, err = s.Authenticate(ctx, b)
		require.NoError(t, err)
		require.NotNil(t, p, "the other token stays")

		n, err = s.RevokeToken(ctx, "owner@example.com", "ci")
		require.NoError(t, err)
		require.Equal(t, 1, n, "the active one of that name")
		p, err = s.Authenticate(ctx, b)
		require.NoError(t, err)
		require.Nil(t, p, "revoked by name")
		p, err = s.Authenticate(ctx, c)
		require.NoError(t, err)
		require.NotNil(t, p, "another user's token of the same name stays")

		_, err = s.RevokeToken(ctx, "owner@example.com", "ci")
		require.ErrorIs(t, err, accounts.ErrNoSuchToken)
		_, err = s.RevokeToken(ctx, "owner@example.com", list[0].ID)
		require.ErrorIs(t, err, accounts.ErrNoSuchToken, "already revoked")
		_, err = s.ListTokens(ctx, "nobody@example.com")
		require.ErrorIs(t, err, accounts.ErrNoSuchUser)
		list, err = s.ListTokens(ctx, "owner@example.com")
		require.NoError(t, err)
		for _, info := range list {
			require.NotNil(t, info.RevokedAt)
		}
	})
}
