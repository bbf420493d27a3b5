// Package door is the human door any product composes: accounts, with
// sign-in by a mailed link and the account's operations
// (modules/accounts); OAuth 2.1 for MCP clients, with the consent a
// signed-in person gives in the browser and the page of connected
// applications (modules/oauth); and the mail that carries the links
// (modules/mail), an SMTP server or a local outbox. The product gives its
// words (Words); its scopes are those its modules declare, and OAuth
// clients are offered those of its MCP tools, each with its doc on the
// consent page.
//
// A product lists its modules, then the door's, and says that it serves
// its own authorization server:
//
//	Modules: append([]app.Module{
//		{Name: "notes", Options: notes.Module, Migrations: []migrations.Source{notes.Migrations}},
//	}, door.Modules(door.Words{Title: "Notes", MailFrom: "Notes <no-reply@notes.example>"})...),
//	OwnAuthorizationServer: true,
//
// The door then provides the product's guards.Authenticator and
// app.TokenIssuer (the account store), and its configuration keys (Keys).
// A module keeping a person's records provides an accounts.Holder in the
// group "account_holders", so that the account's export holds them and its
// deletion forgets them.
package door

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/fx"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/mail"
	"cairn.dev/cairn/modules/oauth"
	"cairn.dev/cairn/outbound"
	"cairn.dev/cairn/registry"
)

// Words are what the door says of the product.
type Words struct {
	// Title names the product to people: "Sign in to Notes" on the
	// mailed link's page, "Allow … to use your Notes account?" on the
	// consent, "Your Notes sign-in link" in the mails. Required.
	Title string
	// MailFrom is the default of mail_from, the mails' sender; empty:
	// "{Title} <no-reply@localhost>".
	MailFrom string
	// ExportName starts the name of the account's export file,
	// {ExportName}-{YYYY-MM-DD}.json; empty: the title in lower case, then
	// "-export".
	ExportName string
	// Locale is the language (fr or en) of an invitation that names none
	// and of an early-access mail; empty: en.
	Locale string
	// Notifications are the categories of notifications a person turns on
	// or off (accounts.NotificationsOf); without any, the notification
	// preference operations are not declared.
	Notifications accounts.Notifications
}

func (w Words) accounts() accounts.Words {
	return accounts.Words{Title: w.Title, ExportName: w.ExportName, Locale: w.Locale, Notifications: w.Notifications}
}

func (w Words) mailFrom() string {
	if w.MailFrom != "" {
		return w.MailFrom
	}
	return w.Title + " <no-reply@localhost>"
}

// Settings are the door's configuration keys (Keys), decoded.
type Settings struct {
	AuthCacheTTL time.Duration `koanf:"auth_cache_ttl"`
	SMTPURL      string        `koanf:"smtp_url"`
	MailFrom     string        `koanf:"mail_from"`
	FrontendURL  string        `koanf:"frontend_url"`
	AuthSecret   string        `koanf:"auth_secret"`
	// OAuthMetadataAllow and OAuthMetadataRoots widen what the client
	// metadata documents may be fetched from.
	OAuthMetadataAllow string `koanf:"oauth_metadata_allow"`
	OAuthMetadataRoots string `koanf:"oauth_metadata_roots"`
}

// Decode reads the door's settings from a loaded configuration.
func Decode(cfg config.Config) (Settings, error) {
	var s Settings
	if err := cfg.Decode(&s); err != nil {
		return s, err
	}
	if s.AuthCacheTTL < 0 {
		return s, errors.New("auth_cache_ttl: must not be negative")
	}
	return s, nil
}

func mailKeys(w Words) []config.Key {
	return []config.Key{
		{Name: "smtp_url", Default: "", Doc: "smtp://[user:password@]host[:port] (STARTTLS when offered; ?tls=none or ?tls=required) or smtps://… to send mail; empty: mail goes to the outbox in data_dir"},
		{Name: "mail_from", Default: w.mailFrom(), Doc: "sender address of the mails"},
	}
}

var accountKeys = []config.Key{
	{Name: "auth_cache_ttl", Default: "5s", Doc: "how long a replica remembers a resolved token (a revocation reaches other replicas within it); 0 disables"},
	{Name: "frontend_url", Default: "", Doc: "where mailed links point ({frontend_url}/auth/verify/{token}); empty: public_url"},
	{Name: "auth_secret", Default: "", Doc: "secret (at least 16 characters) keying the refresh tokens' encryption and the early-access signatures; the same on every replica; empty: one drawn once and kept in data_dir/auth_secret"},
}

var oauthKeys = []config.Key{
	{Name: "oauth_metadata_allow", Default: "", Doc: "comma-separated address ranges OAuth client metadata documents may be fetched from despite the SSRF rules (a client on a private network; 127.0.0.1/32 for a local test server); empty by default"},
	{Name: "oauth_metadata_roots", Default: "", Doc: "a PEM file of certificate authorities trusted, besides the system's, for OAuth client metadata documents (a private CA); empty by default"},
}

// Keys are the door's configuration keys, as Modules carries them.
func Keys(w Words) []config.Key {
	return append(append(mailKeys(w), accountKeys...), oauthKeys...)
}

// Modules are the door's modules, in the product's words: the mail, the
// accounts (sign-in, the account, early access; the product's
// guards.Authenticator and app.TokenIssuer) and the OAuth authorization
// server, whose issuer is the server itself (set the product's
// OwnAuthorizationServer).
func Modules(w Words) []app.Module {
	return []app.Module{
		{
			Name:    "mail",
			Options: fx.Provide(func(cfg config.Config, log *slog.Logger) (mail.Sender, error) { return senderOf(cfg, log) }),
			Keys:    mailKeys(w),
		},
		{
			Name: "accounts",
			Options: fx.Options(accounts.Module,
				fx.Supply(w.accounts()),
				fx.Provide(authSettingsOf,
					func(s *accounts.Store) guards.Authenticator { return s },
					func(s *accounts.Store) app.TokenIssuer { return s }),
				fx.Decorate(func(s *accounts.Store, cfg config.Config) (*accounts.Store, error) {
					set, err := Decode(cfg)
					s.SetCacheTTL(set.AuthCacheTTL)
					return s, err
				})),
			Migrations: []migrations.Source{accounts.Migrations},
			Keys:       accountKeys,
		},
		{
			Name: "oauth",
			Options: fx.Options(oauth.Module,
				fx.Provide(func(s *app.Server) oauth.Issuer { return s.URL },
					func(s *app.Server) oauth.Names { return s.Names },
					func(l guards.Limiter) oauth.Limiter { return l },
					func(cfg config.Config) (oauth.Fetcher, error) {
						set, err := Decode(cfg)
						if err != nil {
							return nil, err
						}
						return MetadataFetcher(set)
					})),
			Migrations: []migrations.Source{oauth.Migrations},
			Keys:       oauthKeys,
		},
	}
}

// OutboxDir is where mail goes when no smtp_url is configured.
func OutboxDir(cfg config.Config) string { return filepath.Join(cfg.DataDir, "outbox") }

// Mailer is the SMTP sender, or the outbox on the embedded default.
func Mailer(cfg config.Config, set Settings, log *slog.Logger) (mail.Sender, error) {
	return mail.New(set.SMTPURL, set.MailFrom, OutboxDir(cfg), log)
}

func senderOf(cfg config.Config, log *slog.Logger) (mail.Sender, error) {
	set, err := Decode(cfg)
	if err != nil {
		return nil, err
	}
	return Mailer(cfg, set, log)
}

// authSettingsOf are the running server's settings: without frontend_url
// or public_url, links point at the server's own URL, with its real port.
func authSettingsOf(cfg config.Config, srv *app.Server) (accounts.Settings, error) {
	set, err := Decode(cfg)
	if err != nil {
		return accounts.Settings{}, err
	}
	as, err := AuthSettings(cfg, set)
	if set.FrontendURL == "" && cfg.PublicURL == "" {
		as.FrontendURL, as.Server = "", srv.URL
	}
	return as, err
}

// AuthSettings points mailed links at the front, by default the server
// itself (public_url, else the address the running server of data_dir
// keeps in app.URLFile, else the configured address). Without auth_secret, a secret is drawn once and kept in
// data_dir, so that refresh tokens and links survive a restart and the
// product's commands share it with the server; replicas must set
// auth_secret.
func AuthSettings(cfg config.Config, set Settings) (accounts.Settings, error) {
	front := set.FrontendURL
	if front == "" {
		front = cfg.PublicURL
	}
	if front == "" {
		front = app.RecordedURL(cfg) // a command: where the server of this data_dir listens
	}
	if front == "" {
		front = "http://" + cfg.Addr
	}
	secret := set.AuthSecret
	if secret == "" {
		var err error
		if secret, err = localSecret(cfg.DataDir); err != nil {
			return accounts.Settings{}, fmt.Errorf("auth_secret is not set and none could be kept in %s: %w", cfg.DataDir, err)
		}
	}
	return accounts.Settings{FrontendURL: strings.TrimRight(front, "/"), Secret: secret}, nil
}

// localSecret reads the secret kept in dir, drawing it the first time.
func localSecret(dir string) (string, error) {
	path := filepath.Join(dir, "auth_secret")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 16 {
		return strings.TrimSpace(string(b)), nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	secret := hex.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) { // drawn meanwhile by another process
		b, err := os.ReadFile(path)
		return strings.TrimSpace(string(b)), err
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.WriteString(secret + "\n")
	return secret, err
}

// MetadataFetcher is the client metadata documents' fetch client: the
// outbound SSRF rules, with the ranges and roots the deployment adds (none
// by default).
func MetadataFetcher(set Settings) (oauth.Fetcher, error) {
	var p oauth.FetchPolicy
	var err error
	if p.Allow, err = outbound.ParseAllow(set.OAuthMetadataAllow); err != nil {
		return nil, fmt.Errorf("oauth_metadata_allow: %w", err)
	}
	if set.OAuthMetadataRoots != "" {
		pem, err := os.ReadFile(set.OAuthMetadataRoots)
		if err != nil {
			return nil, fmt.Errorf("oauth_metadata_roots: %w", err)
		}
		if p.RootCAs, err = x509.SystemCertPool(); err != nil {
			p.RootCAs = x509.NewCertPool()
		}
		if !p.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("oauth_metadata_roots: %s holds no PEM certificate", set.OAuthMetadataRoots)
		}
	}
	return oauth.NewFetcher(p), nil
}

// NewAuth opens the door over store outside a running server, as a
// product's commands do (an invitation, the early-access requests): the
// configured mail, the kept secret, the product's words. Holders are not
// consulted, so it neither deletes nor exports an account.
func NewAuth(cfg config.Config, w Words, store *accounts.Store, log *slog.Logger) (*accounts.Auth, error) {
	set, err := Decode(cfg)
	if err != nil {
		return nil, err
	}
	sender, err := Mailer(cfg, set, log)
	if err != nil {
		return nil, err
	}
	as, err := AuthSettings(cfg, set)
	if err != nil {
		return nil, err
	}
	return accounts.NewAuth(store, sender, as, w.accounts(), nil, log)
}

// DevToken creates the development user when absent, revokes its previous
// development tokens and mints a fresh one carrying every scope of reg:
// tokens are stored only as hashes, so a token can be shown once and never
// again.
func DevToken(ctx context.Context, store *accounts.Store, reg *registry.Registry, email string) (string, error) {
	u, _, err := store.EnsureUser(ctx, email)
	if err != nil {
		return "", err
	}
	if err := store.RevokeTokens(ctx, u.ID, "dev"); err != nil {
		return "", err
	}
	return store.CreateToken(ctx, u.ID, "dev", reg.Scopes(), 0)
}
