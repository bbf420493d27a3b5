// Package accounts holds users and their personal access tokens. A token is
// random (32 bytes), shown once, and stored only as its SHA-256; the same
// store authenticates the HTTP API and the MCP endpoint.
package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"go.uber.org/fx"

	"cairn.dev/cairn/modules/mail"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// Module provides the account store and the human door (sign-in, the
// account, early access). The application provides a mail.Sender, the
// Settings and the product's Words; modules keeping a user's records add a
// Holder in the group "account_holders".
var Module = fx.Module("accounts", fx.Provide(NewStore, provideAuth))

type authParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Store     *Store
	Mail      mail.Sender
	Settings  Settings
	Words     Words
	Holders   []Holder `group:"account_holders"`
	Log       *slog.Logger
}

type authResult struct {
	fx.Out
	Auth    *Auth
	Declare registry.Declarer `group:"declarations"`
}

func provideAuth(p authParams) (authResult, error) {
	a, err := NewAuth(p.Store, p.Mail, p.Settings, p.Words, p.Holders, p.Log)
	if err != nil {
		return authResult{}, err
	}
	p.Lifecycle.Append(fx.StopHook(a.Close)) // the links asked for are mailed before the process ends
	return authResult{Auth: a, Declare: a.Declare}, nil
}

// TokenPrefix marks the store's tokens so that secret scanners can find
// them.
const TokenPrefix = "cairn_pat_"

// User is a person with an account.
type User struct {
	bun.BaseModel `bun:"table:users"`

	ID        string     `bun:"id,pk"`
	Email     string     `bun:"email"`
	Locale    string     `bun:"locale"`
	Roles     string     `bun:"roles"` // space-separated
	CreatedAt time.Time  `bun:"created_at"`
	DeletedAt *time.Time `bun:"deleted_at"`
}

type accessToken struct {
	bun.BaseModel `bun:"table:access_tokens"`

	ID        string     `bun:"id,pk"`
	UserID    string     `bun:"user_id"`
	Name      string     `bun:"name"`
	TokenHash string     `bun:"token_hash"`
	Scopes    string     `bun:"scopes"` // space-separated, as in OAuth
	CreatedAt time.Time  `bun:"created_at"`
	ExpiresAt *time.Time `bun:"expires_at"`
	RevokedAt *time.Time `bun:"revoked_at"`
	Resource  string     `bun:"resource"` // RFC 8707 audience; "" for every resource of this server
	Family    string     `bun:"family"`   // the refresh-token family that minted it; "" for none
}

// Vocabulary is what the store checks a token's scopes against: the
// registry's declared scopes.
type Vocabulary interface {
	Scopes() []registry.Scope
	HasScope(s registry.Scope) bool
}

// Store keeps users and tokens.
type Store struct {
	db     *bun.DB
	vocab  Vocabulary
	lookup *storage.Stmt // run on every authenticated call

	// cacheTTL keeps a resolved token for a few seconds, so a burst of
	// calls costs one lookup. A revocation therefore takes up to cacheTTL
	// to reach other replicas; zero disables the cache.
	cacheTTL time.Duration
	mu       sync.Mutex
	cache    map[string]cached
}

type cached struct {
	p       registry.Principal
	expires time.Time
}

// maxCached bounds the cache; past it, the cache starts afresh.
const maxCached = 10_000

// NewStore returns a store over db, granting the scopes of vocab (the
// registry, filled before any token is created).
func NewStore(db *bun.DB, vocab *registry.Registry) *Store {
	return &Store{db: db, vocab: vocab, cache: map[string]cached{}, lookup: storage.Prepare(db,
		`SELECT t.user_id, u.email, t.scopes, t.expires_at, t.revoked_at, u.deleted_at, t.resource
		 FROM access_tokens AS t JOIN users AS u ON u.id = t.user_id WHERE t.token_hash = ?`)}
}

// SetCacheTTL sets how long a resolved token is remembered in process.
func (s *Store) SetCacheTTL(ttl time.Duration) { s.cacheTTL = ttl }

// EnsureUser returns the user with this email, creating it when absent.
func (s *Store) EnsureUser(ctx context.Context, email string) (*User, bool, error) {
	addr, err := netmail.ParseAddress(email)
	if err != nil || addr.Address != email || len(email) > 180 {
		return nil, false, fmt.Errorf("email %s is not a valid address", registry.Quote(email))
	}
	email = strings.ToLower(email)
	u := new(User)
	err = storage.Conn(ctx, s.db).NewSelect().Model(u).Where("email = ?", email).Scan(ctx)
	if err == nil {
		return u, false, nil
	}
	if !storage.NoRows(err) {
		return nil, false, err
	}
	u = &User{ID: uuid.Must(uuid.NewV7()).String(), Email: email, Locale: "en", Roles: "user", CreatedAt: time.Now().UTC()}
	if _, err := storage.Conn(ctx, s.db).NewInsert().Model(u).Exec(ctx); err != nil {
		if storage.IsUniqueViolation(err) { // created meanwhile by another process
			return s.EnsureUser(ctx, email)
		}
		return nil, false, err
	}
	return u, true, nil
}

// CreateToken mints a token for the user with the given scopes and returns
// the secret, which is never stored and cannot be shown again.
func (s *Store) CreateToken(ctx context.Context, userID, name string, scs []registry.Scope, ttl time.Duration) (string, error) {
	return s.CreateBoundToken(ctx, userID, name, scs, ttl, "")
}

// CreateBoundToken is CreateToken for a token accepted only at resource
// (RFC 8707 audience, e.g. the MCP endpoint's URL); "" binds it to none.
func (s *Store) CreateBoundToken(ctx context.Context, userID, name string, scs []registry.Scope, ttl time.Duration, resource string) (string, error) {
	return s.CreateFamilyToken(ctx, userID, name, scs, ttl, resource, "")
}

// CreateFamilyToken is CreateBoundToken for a token minted by a refresh
// token's family (family.go): ending the family revokes it.
func (s *Store) CreateFamilyToken(ctx context.Context, userID, name string, scs []registry.Scope, ttl time.Duration, resource, family string) (string, error) {
	if len(scs) == 0 {
		return "", fmt.Errorf("a token needs at least one scope (%s)", registry.JoinScopes(s.vocab.Scopes()))
	}
	for _, sc := range scs {
		if !s.vocab.HasScope(sc) {
			return "", fmt.Errorf("unknown scope %s; known scopes: %s", registry.Quote(string(sc)), registry.JoinScopes(s.vocab.Scopes()))
		}
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	secret := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	now := time.Now().UTC()
	t := &accessToken{
		ID: uuid.Must(uuid.NewV7()).String(), UserID: userID, Name: name,
		TokenHash: hashToken(secret), Scopes: registry.JoinScopes(scs), CreatedAt: now, Resource: resource, Family: family,
	}
	if ttl > 0 {
		exp := now.Add(ttl)
		t.ExpiresAt = &exp
	}
	if _, err := storage.Conn(ctx, s.db).NewInsert().Model(t).Exec(ctx); err != nil {
		return "", err
	}
	return secret, nil
}

// Authenticate resolves a token into its principal; (nil, nil) when the
// token is unknown, revoked, expired, or its user was deleted. It implements
// guards.Authenticator.
func (s *Store) Authenticate(ctx context.Context, credential string) (*registry.Principal, error) {
	if !strings.HasPrefix(credential, TokenPrefix) {
		return nil, nil
	}
	h := hashToken(credential)
	now := time.Now()
	if s.cacheTTL > 0 {
		s.mu.Lock()
		c, ok := s.cache[h]
		s.mu.Unlock()
		if ok && now.Before(c.expires) {
			p := c.p
			return &p, nil
		}
	}
	row, err := s.lookup.QueryRow(ctx, h)
	if err != nil {
		return nil, err
	}
	var (
		p                           registry.Principal
		scs                         string
		expires, revoked, deletedAt storage.NullTime
	)
	err = row.Scan(&p.UserID, &p.Email, &scs, &expires, &revoked, &deletedAt, &p.Resource)
	if storage.NoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if revoked.Valid || deletedAt.Valid || (expires.Valid && expires.Time.Before(now)) {
		return nil, nil
	}
	for _, sc := range strings.Fields(scs) {
		p.Scopes = append(p.Scopes, registry.Scope(sc))
	}
	if s.cacheTTL > 0 {
		until := now.Add(s.cacheTTL)
		if expires.Valid && expires.Time.Before(until) {
			until = expires.Time
		}
		s.mu.Lock()
		if len(s.cache) >= maxCached {
			s.cache = map[string]cached{}
		}
		s.cache[h] = cached{p: p, expires: until}
		s.mu.Unlock()
	}
	return &p, nil
}

// RevokeTokens revokes every token of the user with the given name.
func (s *Store) RevokeTokens(ctx context.Context, userID, name string) error {
	_, err := s.revokeWhere(ctx, "user_id = ? AND name = ? AND revoked_at IS NULL", userID, name)
	// Forgotten even when another process revoked them first: what this
	// process remembers of them is stale either way.
	s.forget()
	return err
}

// forget empties the cache of resolved tokens: this process refuses a
// revoked token at once, other replicas within cacheTTL.
func (s *Store) forget() {
	s.mu.Lock()
	s.cache = map[string]cached{}
	s.mu.Unlock()
}

func hashToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// IssueToken creates the user when absent and a token carrying scopes; it
// implements app.TokenIssuer, for tests and development.
func (s *Store) IssueToken(ctx context.Context, email string, scs []registry.Scope) (string, error) {
	u, _, err := s.EnsureUser(ctx, email)
	if err != nil {
		return "", err
	}
	return s.CreateToken(ctx, u.ID, "issued", scs, 0)
}

// RevokeSecret revokes the token whose secret this is, whoever holds it
// (OAuth revocation, RFC 7009: the secret is the proof); an unknown or
// already revoked secret revokes nothing, without error.
func (s *Store) RevokeSecret(ctx context.Context, secret string) error {
	_, err := s.revokeWhere(ctx, "token_hash = ? AND revoked_at IS NULL", hashToken(secret))
	return err
}
