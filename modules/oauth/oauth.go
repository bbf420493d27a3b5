// Package oauth is the product's OAuth 2.1 authorization server for MCP
// clients: metadata (RFC 8414), clients known by a Client ID Metadata
// Document (cimd.go) or by Dynamic Client Registration (RFC 7591), the
// authorization code grant with PKCE S256 only, a consent that only a
// signed-in person approves in the browser, audience-bound access tokens
// (RFC 8707) issued into the account store, rotating refresh tokens and
// revocation (RFC 7009).
//
// Its endpoints are infrastructure (registry.Infrastructure): their shapes
// are fixed by the standards. The consent, and the person's page of
// connected applications and tokens, are registry operations a browser
// calls with the session cookie, never MCP tools: an agent must not be
// able to authorize itself.
package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"go.uber.org/fx"

	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/registry"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the module's tables.
var Migrations = migrations.Dir("oauth", migrationFiles, "migrations")

// Issuer is this server's URL, read when asked (the real port once
// listening): the authorization server's issuer identifier, and the base
// of the resources its tokens are for.
type Issuer func() string

// Names are every origin the server is known by, the issuer's first (its
// public_url, the aliases declared, the loopback twins of a loopback
// address): a token may be bound to the resources under any of them.
type Names func() []string

// Lifetimes of what the server issues.
const (
	AccessTokenTTL   = time.Hour
	RefreshTokenTTL  = 30 * 24 * time.Hour
	PendingTTL       = 10 * time.Minute // from the authorization request to the consent
	CodeTTL          = time.Minute      // from the consent to the token request
	tokenNamePrefix  = "oauth: "
	statusPending    = "pending"
	statusApproved   = "approved"
	statusDenied     = "denied"
	statusExchanged  = "exchanged"
	maxRegistration  = 16 << 10
	maxRedirectURIs  = 8
	maxClientNameLen = 100
)

// Module provides the authorization server's routes. The application
// provides an Issuer.
var Module = fx.Module("oauth", fx.Provide(New,
	fx.Annotate(routes, fx.ResultTags(`group:"infrastructure,flatten"`)),
	fx.Annotate(func(s *Server) registry.Declarer { return s.Declare }, fx.ResultTags(`group:"declarations"`)),
	fx.Annotate(func(db *bun.DB) accounts.Holder { return NewGrants(db) }, fx.ResultTags(`group:"account_holders"`))))

type params struct {
	fx.In
	DB       *bun.DB
	Store    *accounts.Store
	Auth     *accounts.Auth
	Registry *registry.Registry
	Issuer   Issuer
	Names    Names `optional:"true"`
	Limiter  Limiter
	// Fetcher fetches client metadata documents; without one, clients
	// register (Dynamic Client Registration) and metadata documents are
	// refused.
	Fetcher Fetcher `optional:"true"`
}

// Limiter counts calls per key in a window (the application's rate
// limiter; the same interface as guards.Limiter).
type Limiter interface {
	Allow(ctx context.Context, key string, limit int, window time.Duration) (ok bool, retryAfter time.Duration, err error)
}

// Registrations are limited per client address, and a registration unused
// for UnusedClientTTL is forgotten.
const (
	RegistrationsPerHour = 20
	UnusedClientTTL      = 30 * 24 * time.Hour
)

// Server is the authorization server.
type Server struct {
	db      *bun.DB
	store   *accounts.Store
	auth    *accounts.Auth
	reg     *registry.Registry
	issuer  Issuer
	names   Names
	limiter Limiter
	fetcher Fetcher
	now     func() time.Time
}

// New returns the authorization server.
func New(p params) *Server {
	return &Server{db: p.DB, store: p.Store, auth: p.Auth, reg: p.Registry, issuer: p.Issuer, names: p.Names, limiter: p.Limiter, fetcher: p.Fetcher, now: func() time.Time { return time.Now().UTC() }}
}

// Paths of the endpoints.
const (
	MetadataPath  = "/.well-known/oauth-authorization-server"
	AuthorizePath = "/oauth/authorize"
	TokenPath     = "/oauth/token"
	RegisterPath  = "/oauth/register"
	RevokePath    = "/oauth/revoke"
	PendingPath   = "/oauth/pending-authorizations/"
)

func routes(s *Server) []registry.Infrastructure {
	return []registry.Infrastructure{
		{Pattern: "GET " + MetadataPath, Handler: http.HandlerFunc(s.metadata)},
		{Pattern: "POST " + RegisterPath, Handler: http.HandlerFunc(s.register)},
		{Pattern: "GET " + AuthorizePath, Handler: http.HandlerFunc(s.authorize)},
		{Pattern: "POST " + TokenPath, Handler: http.HandlerFunc(s.token)},
		{Pattern: "POST " + RevokePath, Handler: http.HandlerFunc(s.revoke)},
	}
}

// Routes lists the routes, for a product composing the server by hand.
func (s *Server) Routes() []registry.Infrastructure { return routes(s) }

// scopes are what a client may ask for: the scopes of the MCP tools. The
// account's own scope is not offered: what it permits (deleting the
// account, changing its address) is for the person, in the browser.
func (s *Server) scopes() []registry.Scope {
	var out []registry.Scope
	for _, op := range s.reg.Operations() {
		if op.Tool.IsTool() && op.Scope != registry.Public && !slices.Contains(out, op.Scope) {
			out = append(out, op.Scope)
		}
	}
	slices.Sort(out)
	return out
}

// resources are the audiences a token may be bound to: the MCP endpoint
// (the default) and the HTTP API, under each of the server's names.
func (s *Server) resources() []string {
	out := []string{s.issuer() + "/mcp", s.issuer()}
	if s.names == nil {
		return out
	}
	for _, n := range s.names() {
		if !slices.Contains(out, n) {
			out = append(out, n+"/mcp", n)
		}
	}
	return out
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// s256 is the PKCE S256 transform of a verifier (RFC 7636 §4.2).
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func parseScopes(s string) []registry.Scope {
	var out []registry.Scope
	for _, f := range strings.Fields(s) {
		if !slices.Contains(out, registry.Scope(f)) {
			out = append(out, registry.Scope(f))
		}
	}
	return out
}
