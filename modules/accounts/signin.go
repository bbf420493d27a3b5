package accounts

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"strings"
	"time"

	"github.com/google/uuid"

	"cairn.dev/cairn/modules/mail"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// The lifetimes auth.md states.
const (
	AccessTokenTTL  = 15 * time.Minute
	MagicLinkTTL    = 30 * time.Minute
	RefreshTokenTTL = 30 * 24 * time.Hour
	RefreshGrace    = 30 * time.Second
	EmailChangeTTL  = 30 * time.Minute
	AccessLinkTTL   = 24 * time.Hour
)

// sessionToken names the access tokens sign-in mints, so that logging out
// revokes them and leaves personal access tokens alone.
const sessionToken = "session"

// Settings configure sign-in; the product decodes them from its keys.
type Settings struct {
	// FrontendURL is where mailed links point ({frontend}/auth/verify/{token}).
	FrontendURL string
	// Server, when FrontendURL is empty, is read at each mail instead:
	// the server's own URL, with its real port once it listens.
	Server func() string
	// Secret keys the refresh tokens' encryption and the access requests'
	// signatures. Empty: a random one per process (links and refresh
	// tokens then do not survive a restart, nor work across replicas).
	Secret string
}

// Auth is the human door: magic links, refresh tokens, the account and
// early access. Its access tokens live in the Store.
type Auth struct {
	store    *Store
	mail     mail.Sender
	log      *slog.Logger
	frontend func() string
	seal     cipher.AEAD
	signKey  []byte
	holders  []Holder
	words    Words
	now      func() time.Time
	courier  courier // sign-in links, off the request path
}

// Holder is a module keeping records of a user: the account's deletion
// forgets them (in its transaction, so queries go through storage.Conn) and
// its export includes them under Section.
type Holder interface {
	Section() string
	Forget(ctx context.Context, userID string) error
	Export(ctx context.Context, userID string) (any, error)
}

// NewAuth builds the human door over the store and the mail sender, in
// the product's words.
func NewAuth(store *Store, sender mail.Sender, set Settings, words Words, holders []Holder, log *slog.Logger) (*Auth, error) {
	words, err := words.complete()
	if err != nil {
		return nil, err
	}
	secret := set.Secret
	if secret == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		secret = hex.EncodeToString(b)
		log.Warn("auth_secret is not set: a random one is used, so refresh tokens and access-request links do not survive a restart")
	}
	if len(secret) < 16 {
		return nil, errors.New("auth_secret: must be at least 16 characters")
	}
	sealKey := sha256.Sum256([]byte("cairn refresh-token seal\x00" + secret))
	block, err := aes.NewCipher(sealKey[:])
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	signKey := sha256.Sum256([]byte("cairn access-request signature\x00" + secret))
	front := strings.TrimRight(set.FrontendURL, "/")
	frontend := func() string { return front }
	if front == "" && set.Server != nil {
		frontend = func() string { return strings.TrimRight(set.Server(), "/") }
	}
	return &Auth{store: store, mail: sender, log: log, frontend: frontend,
		seal: aead, signKey: signKey[:], holders: holders, words: words, now: func() time.Time { return time.Now().UTC() }}, nil
}

// Words are the product's words the door speaks, defaults filled in.
func (a *Auth) Words() Words { return a.words }

// randomHex is n random bytes, hex-encoded.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return hex.EncodeToString(b)
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func (a *Auth) sealToken(token string) string {
	nonce := make([]byte, a.seal.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.RawStdEncoding.EncodeToString(a.seal.Seal(nonce, nonce, []byte(token), nil))
}

func (a *Auth) openToken(sealed string) (string, error) {
	raw, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < a.seal.NonceSize() {
		return "", errors.New("sealed token is malformed")
	}
	plain, err := a.seal.Open(nil, raw[:a.seal.NonceSize()], raw[a.seal.NonceSize():], nil)
	if err != nil {
		return "", err
	}
	return string(plain), nil
}

// NormalizeEmail lower-cases and checks an address: a bare address of at
// most 180 characters. It answers the violation naming field otherwise.
func NormalizeEmail(field, raw string) (string, *registry.Error) {
	email := strings.ToLower(strings.TrimSpace(raw))
	if email == "" {
		return "", registry.Invalid("the email address is required", registry.Violation{Field: field, Reason: "must not be blank"})
	}
	addr, err := netmail.ParseAddress(email)
	if err != nil || addr.Address != email || addr.Name != "" || len(email) > 180 {
		return "", registry.Invalid("the email address is not valid", registry.Violation{Field: field, Reason: "must be an email address of at most 180 characters"})
	}
	return email, nil
}

func blank(field string) *registry.Error {
	return registry.Invalid("the "+field+" is required", registry.Violation{Field: field, Reason: "must not be blank"})
}

// userByEmail finds a live (not anonymised) user; nil when there is none.
func (a *Auth) userByEmail(ctx context.Context, email string) (*User, error) {
	u := new(User)
	err := storage.Conn(ctx, a.store.db).NewSelect().Model(u).Where("email = ? AND deleted_at IS NULL", email).Scan(ctx)
	if storage.NoRows(err) {
		return nil, nil
	}
	return u, err
}

// liveUser finds a live user by id; nil when unknown or anonymised.
func (a *Auth) liveUser(ctx context.Context, id string) (*User, error) {
	u := new(User)
	err := storage.Conn(ctx, a.store.db).NewSelect().Model(u).Where("id = ? AND deleted_at IS NULL", id).Scan(ctx)
	if storage.NoRows(err) {
		return nil, nil
	}
	return u, err
}

// Invite creates the user (or finds them), removes any access request for
// the address and mails a sign-in link: the administrator's command.
func (a *Auth) Invite(ctx context.Context, email, locale string) (*User, bool, error) {
	email, verr := NormalizeEmail("email", email)
	if verr != nil {
		return nil, false, fmt.Errorf("--email: %s", verr.Violations[0].Reason)
	}
	if locale == "" {
		locale = a.words.Locale
	}
	if !supported(locale) {
		return nil, false, fmt.Errorf("--locale: %q is not one of %s", locale, strings.Join(Locales, ", "))
	}
	var (
		u       *User
		created bool
	)
	err := storage.Tx{DB: a.store.db}.InTx(ctx, func(ctx context.Context) error {
		var err error
		if u, err = a.userByEmail(ctx, email); err != nil {
			return err
		}
		if u == nil {
			u = &User{ID: uuid.Must(uuid.NewV7()).String(), Email: email, Locale: locale, Roles: "user", CreatedAt: a.now()}
			if _, err := storage.Conn(ctx, a.store.db).NewInsert().Model(u).Exec(ctx); err != nil {
				return err
			}
			created = true
		}
		_, err = storage.Conn(ctx, a.store.db).NewDelete().Table("access_requests").Where("email = ?", email).Exec(ctx)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	link, err := a.newMagicLink(ctx, u.ID, true, "")
	if err != nil {
		return nil, false, err
	}
	if err := a.mail.Send(ctx, a.message("invitation", u.Locale, u.Email, link)); err != nil {
		return u, created, fmt.Errorf("the user exists but the invitation could not be mailed (run the command again): %w", err)
	}
	return u, created, nil
}

// newMagicLink stores a fresh link for the user and returns its address.
// Unless force, it makes none while a valid one is pending ("" then): one
// valid link per user at most. next is where the browser goes once signed
// in ("" for nowhere in particular): a path of this server (SafeNext).
func (a *Auth) newMagicLink(ctx context.Context, userID string, force bool, next string) (string, error) {
	token := randomHex(64)
	now := a.now()
	err := storage.Tx{DB: a.store.db}.InTx(ctx, func(ctx context.Context) error {
		db := storage.Conn(ctx, a.store.db)
		if force {
			// The new link replaces any pending one.
			if _, err := db.NewDelete().Table("magic_links").Where("user_id = ? AND consumed_at IS NULL", userID).Exec(ctx); err != nil {
				return err
			}
		} else {
			n, err := db.NewSelect().Table("magic_links").
				Where("user_id = ? AND consumed_at IS NULL AND expires_at > ?", userID, now).Count(ctx)
			if err != nil {
				return err
			}
			if n > 0 {
				token = ""
				return nil
			}
		}
		_, err := db.NewInsert().Model(&map[string]any{
			"id": uuid.Must(uuid.NewV7()).String(), "user_id": userID, "token_hash": digest(token),
			"created_at": now, "expires_at": now.Add(MagicLinkTTL), "next": next,
		}).TableExpr("magic_links").Exec(ctx)
		return err
	})
	if err != nil || token == "" {
		return "", err
	}
	return a.frontend() + "/auth/verify/" + token, nil
}

// Tokens is a signed-in session: a short-lived bearer token and the
// refresh token that gets the next one.
type Tokens struct {
	Token        string `json:"token" doc:"Bearer token for the API and /mcp; lives 15 minutes."`
	RefreshToken string `json:"refresh_token" doc:"Single-use token for POST /auth/refresh; lives 30 days."`
	Next         string `json:"next,omitempty" doc:"A path of this server the link was asked from (an OAuth consent), where the browser goes back once signed in."`

	keep bool // set the session cookie too (VerifyInput.KeepSignedIn)
}

// errBadLink is the one answer of a link that cannot sign anyone in.
var errBadLink = registry.Fail(registry.KindUnauthenticated, "the sign-in link is not valid (unknown, already used or expired); ask for a new one")

// errReusedRefresh answers a refresh token used again after its grace.
var errReusedRefresh = registry.Fail(registry.KindUnauthenticated, "the refresh token was already used, so every token of its session is revoked; sign in again")

// errBadRefresh is the one answer of a refresh token that cannot be used.
var errBadRefresh = registry.Fail(registry.KindUnauthenticated, "the refresh token is not valid (unknown, already used or expired); sign in again")

// VerifyLink consumes a magic link, once, and opens a session.
func (a *Auth) VerifyLink(ctx context.Context, token string) (Tokens, error) {
	now := a.now()
	var userID, next string
	err := storage.Tx{DB: a.store.db}.InTx(ctx, func(ctx context.Context) error {
		db := storage.Conn(ctx, a.store.db)
		// The conditional update is the consumption: of two concurrent
		// verifies, one changes the row and the other finds nothing.
		res, err := db.NewUpdate().Table("magic_links").Set("consumed_at = ?", now).
			Where("token_hash = ? AND consumed_at IS NULL AND expires_at > ?", digest(token), now).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return errBadLink
		}
		if err := db.NewSelect().Table("magic_links").Column("user_id", "next").Where("token_hash = ?", digest(token)).Scan(ctx, &userID, &next); err != nil {
			return err
		}
		if u, err := a.liveUser(ctx, userID); err != nil || u == nil {
			return errors.Join(err, errBadLink)
		}
		return nil
	})
	if err != nil {
		if e := registry.AsError(err); e.Kind == registry.KindUnauthenticated {
			return Tokens{}, errBadLink
		}
		return Tokens{}, err
	}
	t, err := a.openSession(ctx, userID)
	t.Next = SafeNext(next)
	return t, err
}

// SafeNext is next when it is a path of this server (one slash, then
// RFC 3986 path and query characters, at most 300), "" otherwise: a mailed
// link may only send the browser back here.
func SafeNext(next string) string {
	if len(next) > 300 || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
		return ""
	}
	for _, c := range next {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("-._~/?&=%", c)) {
			return ""
		}
	}
	return next
}

// openSession starts a family: an access token and a first refresh token.
func (a *Auth) openSession(ctx context.Context, userID string) (Tokens, error) {
	family := NewFamily()
	refresh, sealed := a.NewRefreshToken()
	if err := a.insertRefresh(ctx, userID, family, refresh, sealed); err != nil {
		return Tokens{}, err
	}
	access, err := a.access(ctx, userID, family)
	if err != nil {
		return Tokens{}, err
	}
	return Tokens{Token: access, RefreshToken: refresh}, nil
}

func (a *Auth) access(ctx context.Context, userID, family string) (string, error) {
	return a.store.CreateFamilyToken(ctx, userID, sessionToken, a.store.vocab.Scopes(), AccessTokenTTL, "", family)
}

func (a *Auth) insertRefresh(ctx context.Context, userID, family, token, sealed string) error {
	now := a.now()
	_, err := storage.Conn(ctx, a.store.db).NewInsert().Model(&map[string]any{
		"id": uuid.Must(uuid.NewV7()).String(), "user_id": userID, "digest": digest(token), "family": family,
		"sealed": sealed, "created_at": now, "expires_at": now.Add(RefreshTokenTTL),
	}).TableExpr("refresh_tokens").Exec(ctx)
	return err
}

type refreshRow struct {
	UserID    string           `bun:"user_id"`
	ExpiresAt time.Time        `bun:"expires_at"`
	UsedAt    storage.NullTime `bun:"used_at"`
	DeletedAt storage.NullTime `bun:"deleted_at"`
}

func (a *Auth) refreshRow(ctx context.Context, dig string) (*refreshRow, error) {
	r := new(refreshRow)
	err := storage.Conn(ctx, a.store.db).NewSelect().TableExpr("refresh_tokens AS r").
		Join("JOIN users AS u ON u.id = r.user_id").
		ColumnExpr("r.user_id, r.expires_at, r.used_at, u.deleted_at").
		Where("r.digest = ?", dig).Scan(ctx, r)
	if storage.NoRows(err) {
		return nil, nil
	}
	return r, err
}

// Refresh rotates a sign-in refresh token by the family rule (family.go):
// a successor and a fresh access token; a replay inside the grace answers
// the same successor; a reuse after it ends the session's family.
func (a *Auth) Refresh(ctx context.Context, token string) (Tokens, error) {
	rot, err := a.Rotate(ctx, "refresh_tokens", token, func(ctx context.Context, row *RefreshRow, successor, sealed string) error {
		return a.insertRefresh(ctx, row.UserID, row.Family, successor, sealed)
	})
	if errors.Is(err, ErrRefreshRefused) {
		return Tokens{}, errBadRefresh
	}
	if errors.Is(err, ErrRefreshReused) {
		return Tokens{}, errReusedRefresh
	}
	if err != nil {
		return Tokens{}, err
	}
	access, err := a.access(ctx, rot.Row.UserID, rot.Row.Family)
	if err != nil {
		return Tokens{}, err
	}
	return Tokens{Token: access, RefreshToken: rot.Successor}, nil
}

var errLostRace = errors.New("accounts: the refresh token was rotated meanwhile")

// Logout deletes every refresh token of the user and revokes the access
// tokens sign-in gave them (personal access tokens stay).
func (a *Auth) Logout(ctx context.Context, userID string) error {
	return storage.Tx{DB: a.store.db}.InTx(ctx, func(ctx context.Context) error {
		if _, err := storage.Conn(ctx, a.store.db).NewDelete().Table("refresh_tokens").Where("user_id = ?", userID).Exec(ctx); err != nil {
			return err
		}
		return a.store.RevokeTokens(ctx, userID, sessionToken)
	})
}

// Session is what GET /auth/session tells the web front.
type Session struct {
	Authenticated bool   `json:"authenticated"`
	UserID        string `json:"userId,omitempty"`
	Email         string `json:"email,omitempty"`
}

// SessionOf reads a refresh token without rotating it.
func (a *Auth) SessionOf(ctx context.Context, token string) (Session, error) {
	if token == "" {
		return Session{}, nil
	}
	row, err := a.refreshRow(ctx, digest(token))
	if err != nil || row == nil || row.DeletedAt.Valid || !a.now().Before(row.ExpiresAt) ||
		(row.UsedAt.Valid && !a.now().Before(row.UsedAt.Time.Add(RefreshGrace))) {
		return Session{}, err
	}
	u, err := a.liveUser(ctx, row.UserID)
	if err != nil || u == nil {
		return Session{}, err
	}
	return Session{Authenticated: true, UserID: u.ID, Email: u.Email}, nil
}

// sign is the access request's signature of email and expiry.
func (a *Auth) sign(email string, expires int64) string {
	m := hmac.New(sha256.New, a.signKey)
	fmt.Fprintf(m, "%s|%d", email, expires)
	return hex.EncodeToString(m.Sum(nil))
}

// signed reports, in constant time, whether signature is email's and expires'.
func (a *Auth) signed(email string, expires int64, signature string) bool {
	want := a.sign(email, expires)
	return hmac.Equal([]byte(want), []byte(strings.ToLower(signature)))
}
