package tokens_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/tokens"
	"cairn.dev/cairn/registry"
)

const (
	read  registry.Scope = "notes:read"
	write registry.Scope = "notes:write"
)

func vocabulary() *registry.Registry {
	reg := registry.New()
	reg.DeclareScope(read, registry.ReadScope, "Read notes.")
	reg.DeclareScope(write, registry.WriteScope, "Change notes.")
	return reg
}

func TestIssuedTokenAuthenticates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := tokens.NewMemory(vocabulary())
	tok, err := m.IssueToken(ctx, "ada@example.com", []registry.Scope{read})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(tok, tokens.Prefix), "token %q lacks the prefix", tok)

	p, err := m.Authenticate(ctx, tok)
	require.NoError(t, err)
	require.NotNil(t, p)
	require.NotEmpty(t, p.UserID)
	require.Equal(t, "ada@example.com", p.Email)
	require.Equal(t, []registry.Scope{read}, p.Scopes)
}

func TestUnknownCredentialsAreNobody(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := tokens.NewMemory(nil)
	tok, err := m.IssueToken(ctx, "ada@example.com", []registry.Scope{read})
	require.NoError(t, err)
	sum := sha256.Sum256([]byte(tok))
	for name, credential := range map[string]string{
		"empty":             "",
		"other prefix":      "cairn_pat_" + strings.TrimPrefix(tok, tokens.Prefix),
		"prefix alone":      tokens.Prefix,
		"one character off": tok[:len(tok)-1] + flip(tok[len(tok)-1]),
		"its digest":        hex.EncodeToString(sum[:]),
		"with a suffix":     tok + "x",
	} {
		t.Run(name, func(t *testing.T) {
			p, err := m.Authenticate(ctx, credential)
			require.NoError(t, err)
			require.Nil(t, p)
		})
	}
}

func flip(b byte) string {
	if b == 'A' {
		return "B"
	}
	return "A"
}

func TestUserIDIsStablePerEmail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := tokens.NewMemory(nil)
	who := func(email string, s registry.Scope) *registry.Principal {
		tok, err := m.IssueToken(ctx, email, []registry.Scope{s})
		require.NoError(t, err)
		p, err := m.Authenticate(ctx, tok)
		require.NoError(t, err)
		require.NotNil(t, p)
		return p
	}
	first, second := who("ada@example.com", read), who("ada@example.com", write)
	require.Equal(t, first.UserID, second.UserID, "one email, one user")
	require.Equal(t, []registry.Scope{read}, first.Scopes, "each token keeps its own scopes")
	require.Equal(t, []registry.Scope{write}, second.Scopes)
	require.Equal(t, first.UserID, who("Ada@Example.com", read).UserID, "an address is one person however it is capitalised")
	require.NotEqual(t, first.UserID, who("bob@example.com", read).UserID)
}

func TestEveryTokenIsNew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := tokens.NewMemory(nil)
	a, err := m.IssueToken(ctx, "ada@example.com", []registry.Scope{read})
	require.NoError(t, err)
	b, err := m.IssueToken(ctx, "ada@example.com", []registry.Scope{read})
	require.NoError(t, err)
	require.NotEqual(t, a, b)
	for _, tok := range []string{a, b} {
		p, err := m.Authenticate(ctx, tok)
		require.NoError(t, err)
		require.NotNil(t, p, "an earlier token stays valid")
	}
}

func TestIssueRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		email  string
		scopes []registry.Scope
		want   string
	}{
		{"undeclared scope", "ada@example.com", []registry.Scope{"notes:admin"}, `unknown scope "notes:admin"; declared scopes: notes:read, notes:write`},
		{"not an address", "ada", []registry.Scope{read}, "not a valid address"},
		{"a display name", "Ada <ada@example.com>", []registry.Scope{read}, "not a valid address"},
		{"too long", strings.Repeat("a", 180) + "@example.com", []registry.Scope{read}, "not a valid address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tokens.NewMemory(vocabulary()).IssueToken(context.Background(), tc.email, tc.scopes)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// A token without scopes authenticates and carries nothing: the scope guard
// refuses it everywhere but on public operations.
func TestTokenWithoutScopes(t *testing.T) {
	t.Parallel()
	m := tokens.NewMemory(vocabulary())
	tok, err := m.IssueToken(context.Background(), "ada@example.com", nil)
	require.NoError(t, err)
	p, err := m.Authenticate(context.Background(), tok)
	require.NoError(t, err)
	require.NotNil(t, p)
	require.Empty(t, p.Scopes)
}

func TestWithoutVocabularyAnyScopeIsIssued(t *testing.T) {
	t.Parallel()
	m := tokens.NewMemory(nil)
	tok, err := m.IssueToken(context.Background(), "ada@example.com", []registry.Scope{"anything:at_all"})
	require.NoError(t, err)
	p, err := m.Authenticate(context.Background(), tok)
	require.NoError(t, err)
	require.True(t, p.Has("anything:at_all"))
}

// The vocabulary is read when a token is issued, not when the store is
// made: under fx the registry is filled after the constructors ran.
func TestVocabularyIsReadAtIssue(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	m := tokens.NewMemory(reg)
	reg.DeclareScope(read, registry.ReadScope, "Read notes.")
	_, err := m.IssueToken(context.Background(), "ada@example.com", []registry.Scope{read})
	require.NoError(t, err)
}

func TestAPrincipalCannotChangeTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := tokens.NewMemory(nil)
	scs := []registry.Scope{read}
	tok, err := m.IssueToken(ctx, "ada@example.com", scs)
	require.NoError(t, err)
	scs[0] = write // the caller's slice, changed after issue
	p, err := m.Authenticate(ctx, tok)
	require.NoError(t, err)
	p.Scopes[0] = write // a guard's copy, changed after authenticate
	again, err := m.Authenticate(ctx, tok)
	require.NoError(t, err)
	require.Equal(t, []registry.Scope{read}, again.Scopes)
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := tokens.NewMemory(nil)
	const n = 16
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tok, err := m.IssueToken(ctx, "ada@example.com", []registry.Scope{read})
			if err != nil {
				t.Error(err)
				return
			}
			p, err := m.Authenticate(ctx, tok)
			if err != nil || p == nil {
				t.Error(fmt.Sprint("authenticate: ", p, err))
				return
			}
			ids[i] = p.UserID
		})
	}
	wg.Wait()
	for _, id := range ids {
		require.Equal(t, ids[0], id, "concurrent first issues for one email make one user")
	}
}
