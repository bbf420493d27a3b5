package accounts_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage/storagetest"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{accounts.Migrations}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := accounts.NewStore(db, vocabulary())
		u, created, err := s.EnsureUser(ctx, "Rider@Example.com")
		require.NoError(t, err)
		require.True(t, created)
		require.Equal(t, "rider@example.com", u.Email)
		again, created, err := s.EnsureUser(ctx, "rider@example.com")
		require.NoError(t, err)
		require.False(t, created)
		require.Equal(t, u.ID, again.ID)

		tok, err := s.CreateToken(ctx, u.ID, "cli", []registry.Scope{readScope}, 0)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(tok, accounts.TokenPrefix))
		require.GreaterOrEqual(t, len(tok)-len(accounts.TokenPrefix), 43, "32 random bytes")

		var stored []string
		require.NoError(t, db.NewSelect().Table("access_tokens").Column("token_hash").Scan(ctx, &stored))
		for _, h := range stored {
			require.NotContains(t, h, strings.TrimPrefix(tok, accounts.TokenPrefix), "only a hash is stored")
		}

		p, err := s.Authenticate(ctx, tok)
		require.NoError(t, err)
		require.Equal(t, u.ID, p.UserID)
		require.True(t, p.Has(readScope))
		require.False(t, p.Has(writeScope))

		for _, bad := range []string{"", "nonsense", accounts.TokenPrefix + "unknown", tok + "x"} {
			p, err := s.Authenticate(ctx, bad)
			require.NoError(t, err)
			require.Nil(t, p, "%q is not a token", bad)
		}

		short, err := s.CreateToken(ctx, u.ID, "short", all, time.Hour)
		require.NoError(t, err)
		p, err = s.Authenticate(ctx, short)
		require.NoError(t, err)
		require.NotNil(t, p, "valid until it expires")
		_, err = db.NewUpdate().Table("access_tokens").Set("expires_at = ?", time.Now().UTC().Add(-time.Minute)).
			Where("name = ?", "short").Exec(ctx)
		require.NoError(t, err)
		p, err = s.Authenticate(ctx, short)
		require.NoError(t, err)
		require.Nil(t, p, "an expired token is refused")

		require.NoError(t, s.RevokeTokens(ctx, u.ID, "cli"))
		p, err = s.Authenticate(ctx, tok)
		require.NoError(t, err)
		require.Nil(t, p, "a revoked token is refused")

		_, err = s.CreateToken(ctx, u.ID, "x", []registry.Scope{"items:admin"}, 0)
		require.ErrorContains(t, err, "unknown scope")
		_, err = s.CreateToken(ctx, u.ID, "x", nil, 0)
		require.ErrorContains(t, err, "at least one scope")
		_, _, err = s.EnsureUser(ctx, "not an email")
		require.ErrorContains(t, err, "not a valid address")
	})
}

func TestTokenCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storagetest.SQLite(t, accounts.Migrations)
	s := accounts.NewStore(db, vocabulary())
	s.SetCacheTTL(time.Minute)
	u, _, err := s.EnsureUser(ctx, "cached@example.com")
	require.NoError(t, err)
	tok, err := s.CreateToken(ctx, u.ID, "cli", all, 0)
	require.NoError(t, err)
	p, err := s.Authenticate(ctx, tok)
	require.NoError(t, err)
	require.NotNil(t, p)

	// Revoked behind this process's back: remembered until the TTL ends.
	_, err = db.NewUpdate().Table("access_tokens").Set("revoked_at = ?", time.Now().UTC()).Where("user_id = ?", u.ID).Exec(ctx)
	require.NoError(t, err)
	p, err = s.Authenticate(ctx, tok)
	require.NoError(t, err)
	require.NotNil(t, p, "served from the cache within its TTL")

	// Revoked through the store: this process forgets at once.
	require.NoError(t, s.RevokeTokens(ctx, u.ID, "cli"))
	p, err = s.Authenticate(ctx, tok)
	require.NoError(t, err)
	require.Nil(t, p)
}

// The scopes of the tests' vocabulary: any product's.
const (
	readScope  registry.Scope = "items:read"
	writeScope registry.Scope = "items:write"
)

var all = []registry.Scope{readScope, writeScope}

func vocabulary() *registry.Registry {
	reg := registry.New()
	reg.DeclareScope(readScope, registry.ReadScope, "read")
	reg.DeclareScope(writeScope, registry.WriteScope, "write")
	return reg
}
