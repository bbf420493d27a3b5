package accounts

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"cairn.dev/cairn/modules/mail"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// NoInput is the input of an operation that takes no argument.
type NoInput struct{}

// NoOutput is the output of an operation answering 204.
type NoOutput struct{}

// EmailInput carries one email address.
type EmailInput struct {
	Email string `json:"email" maxLength:"254" doc:"An email address."`
}

// TokenInput carries the token of a mailed link.
type TokenInput struct {
	Token string `json:"token" maxLength:"256" doc:"The token of the mailed link."`
}

// RefreshInput carries a refresh token.
type RefreshInput struct {
	RefreshToken string `json:"refresh_token" maxLength:"256" doc:"The refresh token of the session."`
}

// Accepted is a neutral answer: it says nothing of what was found.
type Accepted struct {
	Message string `json:"message"`
}

// The neutral texts.
const (
	linkRequested  = "If this address belongs to an account, a sign-in link is on its way."
	accessAccepted = "Thank you. If this address can be given early access, a confirmation link is on its way."
	accessDone     = "Thank you: your request is recorded."
	changeAccepted = "A confirmation link is on its way to the new address."
)

func (a *Auth) requestLink(ctx context.Context, c *registry.Call, in *EmailInput) (Accepted, error) {
	email, verr := NormalizeEmail("email", in.Email)
	if verr != nil {
		return Accepted{}, verr
	}
	neutral := Accepted{Message: linkRequested}
	if !c.Limited { // a silent limit: the same answer, nothing done
		a.handOver(ctx, email, "") // courier.go: the same work whoever asks
	}
	return neutral, nil
}

func (a *Auth) verify(ctx context.Context, _ *registry.Call, in *VerifyInput) (Tokens, error) {
	if strings.TrimSpace(in.Token) == "" {
		return Tokens{}, blank("token")
	}
	t, err := a.VerifyLink(ctx, strings.TrimSpace(in.Token))
	t.keep = in.KeepSignedIn
	return t, err
}

// VerifyInput carries a mailed link's token, and whether this server's own
// pages (OAuth consent) should know the person too.
type VerifyInput struct {
	Token        string `json:"token" maxLength:"256" doc:"The token of the mailed link."`
	KeepSignedIn bool   `json:"keepSignedIn,omitempty" doc:"Also keep the refresh token in an HttpOnly cookie of this server, for its own pages (OAuth consent)."`
}

// SetCookies implements registry.CookieSetter: the session cookie, when
// asked for.
func (t Tokens) SetCookies() []*http.Cookie {
	if !t.keep || t.RefreshToken == "" {
		return nil
	}
	// Lax, so the cookie comes along when an MCP client sends the person
	// to the consent page; HttpOnly, so no script reads it.
	return []*http.Cookie{{Name: RefreshCookie, Value: t.RefreshToken, Path: "/", MaxAge: int(RefreshTokenTTL.Seconds()),
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode}}
}

func (a *Auth) refresh(ctx context.Context, _ *registry.Call, in *RefreshInput) (Tokens, error) {
	if strings.TrimSpace(in.RefreshToken) == "" {
		return Tokens{}, blank("refresh_token")
	}
	return a.Refresh(ctx, strings.TrimSpace(in.RefreshToken))
}

func (a *Auth) logout(ctx context.Context, c *registry.Call, _ *NoInput) (NoOutput, error) {
	return NoOutput{}, a.Logout(ctx, c.UserID())
}

// RefreshCookie is the cookie the web front keeps the refresh token in.
const RefreshCookie = "refresh_token"

func (a *Auth) session(ctx context.Context, c *registry.Call, _ *NoInput) (Session, error) {
	return a.SessionOf(ctx, c.Cookies[RefreshCookie])
}

// Me is the caller's profile.
type Me struct {
	UserID string `json:"userId"`
	Email  string `json:"email"`
	Locale string `json:"locale" enum:"fr,en"`
}

// me reads the caller; an account anonymised since the token was resolved
// is unknown, as it is to the authenticate guard.
func (a *Auth) caller(ctx context.Context, c *registry.Call) (*User, error) {
	u, err := a.liveUser(ctx, c.UserID())
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, registry.Fail(registry.KindUnauthenticated, "the bearer token is not valid (unknown, revoked or expired)")
	}
	return u, nil
}

func (a *Auth) me(ctx context.Context, c *registry.Call, _ *NoInput) (Me, error) {
	u, err := a.caller(ctx, c)
	if err != nil {
		return Me{}, err
	}
	return Me{UserID: u.ID, Email: u.Email, Locale: u.Locale}, nil
}

// PatchMeInput changes the profile.
type PatchMeInput struct {
	Locale *string `json:"locale,omitempty" doc:"fr or en."`
}

func (a *Auth) updateMe(ctx context.Context, c *registry.Call, in *PatchMeInput) (Me, error) {
	if in.Locale != nil {
		if !supported(*in.Locale) {
			return Me{}, registry.Invalid("the locale is not supported", registry.Violation{Field: "locale", Reason: "must be fr or en"})
		}
		if _, err := storage.Conn(ctx, a.store.db).NewUpdate().Table("users").Set("locale = ?", *in.Locale).
			Where("id = ? AND deleted_at IS NULL", c.UserID()).Exec(ctx); err != nil {
			return Me{}, err
		}
	}
	return a.me(ctx, c, nil)
}

// deleteMe anonymises the account, in one transaction and in the order of
// exports-and-sharing.md: the user's records (each Holder's), refresh
// tokens and magic links, access requests for the
// address, then the user row. Devices, notification preferences, pending
// address changes, every access token and the guards' records of the
// person go too, and kept mail to the address after the commit: nothing
// is left that a token or a link could reach, nor a row that names them.
// AccountDeleted answers the deletion (204); it clears the refresh
// cookie when the call carried one.
type AccountDeleted struct{ clear bool }

// SetCookies implements registry.CookieSetter.
func (d AccountDeleted) SetCookies() []*http.Cookie {
	if !d.clear {
		return nil
	}
	return []*http.Cookie{{Name: RefreshCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode}}
}

// deleteImpact is what deleting the account loses, shown before anything
// is deleted: what each module keeping the person's records holds, and
// the sign-in itself.
func (a *Auth) deleteImpact(context.Context, *registry.Call) (registry.Impact, error) {
	im := registry.Impact{Summary: "deletes your account and everything it holds; it cannot be undone",
		Loses: []string{"your address, your sign-in and every token and connected application"}}
	for _, h := range a.holders {
		im.Loses = append(im.Loses, "your "+h.Section())
	}
	return im, nil
}

func (a *Auth) deleteMe(ctx context.Context, c *registry.Call, _ *NoInput) (AccountDeleted, error) {
	id := c.UserID()
	var email string
	err := storage.Tx{DB: a.store.db}.InTx(ctx, func(ctx context.Context) error {
		u, err := a.caller(ctx, c)
		if err != nil {
			return err
		}
		for _, h := range a.holders {
			if err := h.Forget(ctx, id); err != nil {
				return err
			}
		}
		db := storage.Conn(ctx, a.store.db)
		for _, table := range []string{"refresh_tokens", "magic_links"} {
			if _, err := db.NewDelete().Table(table).Where("user_id = ?", id).Exec(ctx); err != nil {
				return err
			}
		}
		if _, err := db.NewDelete().Table("access_requests").Where("email = ?", u.Email).Exec(ctx); err != nil {
			return err
		}
		if _, err := db.NewUpdate().Table("users").
			Set("deleted_at = ?", a.now()).Set("email = ?", "deleted-"+id+"@deleted.invalid").
			Set("roles = ''").Set("locale = ?", a.words.Locale).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		for _, table := range []string{"device_tokens", "notification_preferences", "email_change_tokens"} {
			if _, err := db.NewDelete().Table(table).Where("user_id = ?", id).Exec(ctx); err != nil {
				return err
			}
		}
		// Every token row goes, not only its validity: nothing is kept
		// that names the account. The guards' records of the person too:
		// idempotency keys and confirmation tokens.
		for _, table := range []string{"access_tokens", "idempotency_keys", "confirmation_tokens"} {
			if _, err := db.NewDelete().Table(table).Where("user_id = ?", id).Exec(ctx); err != nil {
				return err
			}
		}
		email = u.Email
		return nil
	})
	a.store.forget() // this replica refuses the tokens at once; others within the cache's TTL
	if err != nil {
		return AccountDeleted{}, err
	}
	if f, ok := a.mail.(mail.Forgetter); ok {
		// Kept mail (the outbox) names the address and carries its links.
		if err := f.Forget(ctx, email); err != nil {
			a.log.ErrorContext(ctx, "the deleted account's kept mail could not be removed", "user", id, "err", err)
		}
	}
	return AccountDeleted{clear: c.Cookies[RefreshCookie] != ""}, nil
}

// Profile is the export's account part.
type Profile struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Locale    string    `json:"locale"`
	Roles     []string  `json:"roles"`
	CreatedAt time.Time `json:"createdAt"`
}

// Export is the account's export, sent as a JSON attachment.
type Export struct {
	ExportedAt time.Time `json:"exportedAt"`
	Profile    Profile   `json:"profile"`
	sections   map[string]any
	name       string // Words.ExportName
}

// ContentType implements registry.Download.
func (Export) ContentType() string { return "application/json" }

// FileName implements registry.Download.
func (e Export) FileName() string {
	return e.name + "-" + e.ExportedAt.Format("2006-01-02") + ".json"
}

// WriteFile implements registry.Download: the profile, then each holder's
// section under its name.
func (e Export) WriteFile(w io.Writer) error {
	doc := map[string]any{"exportedAt": e.ExportedAt, "profile": e.Profile}
	for k, v := range e.sections {
		doc[k] = v
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func (a *Auth) export(ctx context.Context, c *registry.Call, _ *NoInput) (Export, error) {
	u, err := a.caller(ctx, c)
	if err != nil {
		return Export{}, err
	}
	e := Export{ExportedAt: a.now(), sections: map[string]any{}, name: a.words.ExportName,
		Profile: Profile{ID: u.ID, Email: u.Email, Locale: u.Locale, Roles: strings.Fields(u.Roles), CreatedAt: u.CreatedAt.UTC()}}
	if e.Profile.Roles == nil {
		e.Profile.Roles = []string{}
	}
	for _, h := range a.holders {
		v, err := h.Export(ctx, u.ID)
		if err != nil {
			return Export{}, err
		}
		e.sections[h.Section()] = v
	}
	return e, nil
}

// DeviceInput registers a device.
type DeviceInput struct {
	Token    string `json:"token" maxLength:"255" doc:"The push token of the device."`
	Platform string `json:"platform" doc:"android or ios."`
}

// Device is a registered device; 201 when new, 200 when it was known.
type Device struct {
	Token    string `json:"token"`
	Platform string `json:"platform"`
	status   int
}

// ResponseStatus implements registry.StatusChooser.
func (d Device) ResponseStatus() int { return d.status }

func (a *Auth) registerDevice(ctx context.Context, c *registry.Call, in *DeviceInput) (Device, error) {
	var vs []registry.Violation
	tok := strings.TrimSpace(in.Token)
	if tok == "" {
		vs = append(vs, registry.Violation{Field: "token", Reason: "must not be blank"})
	} else if len(tok) > 255 {
		vs = append(vs, registry.Violation{Field: "token", Reason: "must be at most 255 characters"})
	}
	if in.Platform != "android" && in.Platform != "ios" {
		vs = append(vs, registry.Violation{Field: "platform", Reason: "must be android or ios"})
	}
	if len(vs) > 0 {
		return Device{}, registry.Invalid("the device cannot be registered", vs...)
	}
	now := a.now()
	db := storage.Conn(ctx, a.store.db)
	// Only the caller's own row is updated: a token someone else holds is
	// never moved (whoever learnt it would take that person's
	// notifications). Its owner forgets it first, as an app does at
	// sign-out.
	res, err := db.NewUpdate().Table("device_tokens").Set("platform = ?", in.Platform).
		Set("updated_at = ?", now).Where("token = ? AND user_id = ?", tok, c.UserID()).Exec(ctx)
	if err != nil {
		return Device{}, err
	}
	if n, _ := res.RowsAffected(); n == 1 { // re-registered
		return Device{Token: tok, Platform: in.Platform, status: http.StatusOK}, nil
	}
	_, err = db.NewInsert().Model(&map[string]any{"token": tok, "platform": in.Platform, "user_id": c.UserID(),
		"created_at": now, "updated_at": now}).TableExpr("device_tokens").Exec(ctx)
	if storage.IsUniqueViolation(err) {
		// Another account holds it, or a parallel call of the caller's
		// inserted it first: either way nothing moves.
		return Device{}, ErrDeviceTaken
	}
	if err != nil {
		return Device{}, err
	}
	return Device{Token: tok, Platform: in.Platform, status: http.StatusCreated}, nil
}

// ErrDeviceTaken refuses a push token another account has registered: it
// stays that account's until it forgets it.
var ErrDeviceTaken = registry.Fail(registry.KindConflict,
	"this push token is registered to another account; it must be forgotten there first (DELETE /users/me/device-tokens/{token}, as an app does at sign-out)")

// ownsDevice searches the caller's devices only: someone else's and an
// unknown token are the same 404.
func (a *Auth) ownsDevice(ctx context.Context, userID, token string) (bool, error) {
	n, err := storage.Conn(ctx, a.store.db).NewSelect().Table("device_tokens").
		Where("token = ? AND user_id = ?", token, userID).Count(ctx)
	return n > 0, err
}

func (a *Auth) deleteDevice(ctx context.Context, c *registry.Call, _ *NoInput) (NoOutput, error) {
	_, err := storage.Conn(ctx, a.store.db).NewDelete().Table("device_tokens").
		Where("token = ? AND user_id = ?", c.Var("token"), c.UserID()).Exec(ctx)
	return NoOutput{}, err
}

// EmailChangeInput names the new address.
type EmailChangeInput struct {
	NewEmail string `json:"newEmail" maxLength:"254" doc:"The new address; a link goes to it."`
}

// EmailChanged is the address after a confirmed change.
type EmailChanged struct {
	Email string `json:"email"`
}

func (a *Auth) emailChange(ctx context.Context, c *registry.Call, in *EmailChangeInput) (Accepted, error) {
	email, verr := NormalizeEmail("newEmail", in.NewEmail)
	if verr != nil {
		return Accepted{}, verr
	}
	u, err := a.caller(ctx, c)
	if err != nil {
		return Accepted{}, err
	}
	if email == u.Email {
		return Accepted{}, registry.Invalid("the new address is the current one", registry.Violation{Field: "newEmail", Reason: "must differ from the current address"})
	}
	owner, err := a.userByEmail(ctx, email)
	if err != nil {
		return Accepted{}, err
	}
	if owner != nil {
		// The same answer as for a free address, so that the change
		// cannot tell who has an account; the address's owner is told
		// instead, and nothing can be confirmed.
		if err := a.mail.Send(ctx, a.message("email-taken", owner.Locale, email, "")); err != nil {
			return Accepted{}, registry.Unavailable("the confirmation could not be mailed; try again shortly", err)
		}
		return Accepted{Message: changeAccepted}, nil
	}
	token := randomHex(64)
	now := a.now()
	db := storage.Conn(ctx, a.store.db)
	if _, err := db.NewInsert().Model(&map[string]any{"id": uuid.Must(uuid.NewV7()).String(), "user_id": u.ID,
		"token_hash": digest(token), "new_email": email, "created_at": now, "expires_at": now.Add(EmailChangeTTL)}).
		TableExpr("email_change_tokens").Exec(ctx); err != nil {
		return Accepted{}, err
	}
	link := a.frontend() + "/account/email-change/" + token
	if err := a.mail.Send(ctx, a.message("email-change", u.Locale, email, link)); err != nil {
		_, _ = db.NewDelete().Table("email_change_tokens").Where("token_hash = ?", digest(token)).Exec(ctx)
		return Accepted{}, registry.Unavailable("the confirmation could not be mailed; try again shortly", err)
	}
	return Accepted{Message: changeAccepted}, nil
}

func (a *Auth) emailChangeVerify(ctx context.Context, c *registry.Call, in *TokenInput) (EmailChanged, error) {
	tok := strings.TrimSpace(in.Token)
	if tok == "" {
		return EmailChanged{}, blank("token")
	}
	bad := registry.Invalid("the confirmation token is not valid (unknown, already used or expired)",
		registry.Violation{Field: "token", Reason: "is unknown, already used or expired"})
	var out EmailChanged
	err := storage.Tx{DB: a.store.db}.InTx(ctx, func(ctx context.Context) error {
		db := storage.Conn(ctx, a.store.db)
		var row struct {
			UserID   string `bun:"user_id"`
			NewEmail string `bun:"new_email"`
		}
		now := a.now()
		err := db.NewSelect().Table("email_change_tokens").Column("user_id", "new_email").
			Where("token_hash = ? AND consumed_at IS NULL AND expires_at > ?", digest(tok), now).Scan(ctx, &row)
		if storage.NoRows(err) {
			return bad
		}
		if err != nil {
			return err
		}
		if row.UserID != c.UserID() { // not consumed: its owner can still use it
			return &registry.Error{Kind: registry.KindForbidden, Code: "foreign_token", Scope: ScopeAccount,
				Detail: "this confirmation token belongs to another account"}
		}
		res, err := db.NewUpdate().Table("email_change_tokens").Set("consumed_at = ?", now).
			Where("token_hash = ? AND consumed_at IS NULL", digest(tok)).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return bad
		}
		if _, err := db.NewUpdate().Table("users").Set("email = ?", row.NewEmail).Where("id = ? AND deleted_at IS NULL", row.UserID).Exec(ctx); err != nil {
			if storage.IsUniqueViolation(err) {
				return registry.Invalid("the new address was taken meanwhile", registry.Violation{Field: "token", Reason: "its address is now used by another account"})
			}
			return err
		}
		out.Email = row.NewEmail
		return nil
	})
	a.store.forget() // cached principals carry the old address
	return out, err
}

// AccessVerifyInput is what the signed early-access link carries.
type AccessVerifyInput struct {
	Email     string `json:"email" maxLength:"254" doc:"The address, as in the link."`
	Expires   string `json:"expires" maxLength:"20" doc:"Unix seconds, as in the link."`
	Signature string `json:"signature" maxLength:"128" doc:"The signature, as in the link."`
}

func (a *Auth) requestAccess(ctx context.Context, c *registry.Call, in *EmailInput) (Accepted, error) {
	email, verr := NormalizeEmail("email", in.Email)
	if verr != nil {
		return Accepted{}, verr
	}
	neutral := Accepted{Message: accessAccepted}
	if u, err := a.userByEmail(ctx, email); err != nil || u != nil {
		return neutral, err
	}
	db := storage.Conn(ctx, a.store.db)
	_, err := db.NewInsert().Model(&map[string]any{"email": email, "ip": c.ClientAddr, "status": "pending_verification",
		"created_at": a.now()}).TableExpr("access_requests").Exec(ctx)
	if storage.IsUniqueViolation(err) {
		return neutral, nil // already requested
	}
	if err != nil {
		return Accepted{}, err
	}
	expires := a.now().Add(AccessLinkTTL).Unix()
	q := url.Values{"email": {email}, "expires": {strconv.FormatInt(expires, 10)}, "signature": {a.sign(email, expires)}}
	link := a.frontend() + "/access-requests/verify?" + q.Encode()
	if err := a.mail.Send(ctx, a.message("access-request", a.words.Locale, email, link)); err != nil {
		// Removed, so that asking again makes a new request and a new mail.
		_, _ = db.NewDelete().Table("access_requests").Where("email = ?", email).Exec(ctx)
		return Accepted{}, registry.Internal(err)
	}
	return neutral, nil
}

// verifyAccess always answers the same confirmation: whether the link was
// valid, expired, forged or for an existing user is never told.
func (a *Auth) verifyAccess(ctx context.Context, c *registry.Call, in *AccessVerifyInput) (Accepted, error) {
	done := Accepted{Message: accessDone}
	email := strings.ToLower(strings.TrimSpace(in.Email))
	expires, err := strconv.ParseInt(strings.TrimSpace(in.Expires), 10, 64)
	if err != nil || !a.signed(email, expires, strings.TrimSpace(in.Signature)) || a.now().Unix() > expires {
		return done, nil
	}
	if u, err := a.userByEmail(ctx, email); err != nil || u != nil {
		return done, err
	}
	now := a.now()
	_, err = storage.Conn(ctx, a.store.db).NewRaw(`INSERT INTO access_requests (email, ip, status, created_at, verified_at)
		VALUES (?, ?, 'verified', ?, ?) ON CONFLICT (email) DO UPDATE SET status = 'verified', verified_at = EXCLUDED.verified_at`,
		email, c.ClientAddr, now, now).Exec(ctx)
	return done, err
}

// AccessRequest is one early-access request, for the administrator.
type AccessRequest struct {
	Email      string     `bun:"email" json:"email"`
	IP         string     `bun:"ip" json:"ip"`
	Status     string     `bun:"status" json:"status"`
	CreatedAt  time.Time  `bun:"created_at" json:"createdAt"`
	VerifiedAt *time.Time `bun:"verified_at" json:"verifiedAt,omitempty"`
}

// AccessRequests lists the requests, verified ones only unless all.
func (a *Auth) AccessRequests(ctx context.Context, all bool) ([]AccessRequest, error) {
	var out []AccessRequest
	q := storage.Conn(ctx, a.store.db).NewSelect().Table("access_requests").
		Column("email", "ip", "status", "created_at", "verified_at").Order("created_at")
	if !all {
		q = q.Where("status = 'verified'")
	}
	err := q.Scan(ctx, &out)
	if storage.NoRows(err) {
		err = nil
	}
	return out, err
}
