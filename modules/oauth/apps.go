package oauth

import (
	"context"
	"crypto/subtle"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// The person's page of connected applications and tokens: the OAuth
// grants given to clients and the personal access tokens, each revocable,
// and a form creating a personal access token. Server-rendered, without
// script, loading nothing from elsewhere. Like the consent, these are
// operations a browser calls with the session cookie and a CSRF token;
// none is an MCP tool, so an agent never lists or mints the person's
// credentials.
const (
	AppsPath      = "/account/apps"
	sessionTokens = "session" // the access tokens of the mailed sign-in, which are not the person's to manage here
)

// declareApps adds the page's operations.
func (s *Server) declareApps(reg *registry.Registry) {
	browser := registry.NotATool(registry.MotiveBrowserAndMailbox)
	registry.Add(reg, registry.Op[accounts.NoInput, AppsPage]{
		ID: "oauth.connected_apps", Summary: "The person's page of connected applications and personal access tokens",
		HTTP: registry.Get(AppsPath).WithPages(refusalPage), Tool: browser,
		Scope: registry.Public, Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation,
		Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: func(ctx context.Context, c *registry.Call, _ *accounts.NoInput) (AppsPage, error) {
			sess, err := s.session(ctx, c)
			if err != nil {
				return AppsPage{}, err
			}
			return s.appsPage(ctx, c, sess, "")
		},
	})
	registry.Add(reg, pageForm(registry.Op[GrantInput, AppsAnswer]{
		ID: "oauth.revoke_grant", Summary: "End an application's access: its refresh and access tokens are revoked",
		HTTP:    registry.Post(AppsPath+"/grants/revoke", http.StatusSeeOther).WithForm().WithPages(refusalPage),
		Hints:   registry.Hints{Destructive: true, Idempotent: true},
		Confirm: registry.NoConfirmBecause("the person revokes with one button on the connected-apps page; the application connects again by asking for consent"),
		Handle:  s.revokeGrant,
	}, func(in *GrantInput) []registry.Violation {
		return append(required("csrf", in.CSRF), required("clientId", in.ClientID)...)
	}))
	registry.Add(reg, pageForm(registry.Op[NewTokenInput, AppsAnswer]{
		ID: "oauth.create_personal_token", Summary: "Create a personal access token, shown once on the page",
		HTTP:   registry.Post(AppsPath+"/tokens", http.StatusOK).WithForm().WithPages(refusalPage),
		Handle: s.createPersonalToken,
	}, s.checkNewToken))
	registry.Add(reg, pageForm(registry.Op[TokenRefInput, AppsAnswer]{
		ID: "oauth.revoke_personal_token", Summary: "Revoke one of the person's personal access tokens",
		HTTP:    registry.Post(AppsPath+"/tokens/revoke", http.StatusSeeOther).WithForm().WithPages(refusalPage),
		Hints:   registry.Hints{Destructive: true, Idempotent: true},
		Confirm: registry.NoConfirmBecause("the person revokes with one button on the connected-apps page; a new token is made on the same page"),
		Handle:  s.revokePersonalToken,
	}, func(in *TokenRefInput) []registry.Violation {
		return append(required("csrf", in.CSRF), required("tokenId", in.TokenID)...)
	}))
}

// pageForm fills the guards the page's forms share: public by
// declaration (the session cookie stands for the person), their input
// judged as their record, nothing locked, versioned, confirmed or
// replayed.
func pageForm[I any, PI interface {
	*I
	registry.Record
}](o registry.Op[I, AppsAnswer], check func(*I) []registry.Violation) registry.Op[I, AppsAnswer] {
	o.Tool, o.Scope, o.Owner, o.RateLimit = registry.NotATool(registry.MotiveBrowserAndMailbox), registry.Public, registry.CallerOwned, registry.NoRateLimit
	o.Lock, o.Precondition = registry.NoLock, registry.NoPrecondition
	if !o.Confirm.Declared() {
		o.Confirm = registry.NoConfirm
	}
	o.Idempotency = registry.NotACreation
	return recorded[I, AppsAnswer, PI](o, check)
}

// GrantInput names the application whose access ends.
type GrantInput struct {
	CSRF     string `json:"csrf" maxLength:"64" doc:"The CSRF token of the page's forms."`
	ClientID string `json:"clientId" maxLength:"255" doc:"The application whose access ends."`
}

// NewTokenInput is the form creating a personal access token.
type NewTokenInput struct {
	CSRF          string   `json:"csrf" maxLength:"64" doc:"The CSRF token of the page's forms."`
	Name          string   `json:"name" maxLength:"100" doc:"The new token's name."`
	Scopes        []string `json:"scopes,omitempty" maxItems:"8" doc:"The new token's scopes."`
	ExpiresInDays int      `json:"expiresInDays,omitempty" minimum:"0" maximum:"365" doc:"Days until the new token expires; 0 never."`
}

// TokenRefInput names a personal access token to revoke.
type TokenRefInput struct {
	CSRF    string `json:"csrf" maxLength:"64" doc:"The CSRF token of the page's forms."`
	TokenID string `json:"tokenId" maxLength:"64" doc:"The personal access token to revoke."`
}

// RecordVersion implements registry.Record: the form's fields are what
// the page's writes record, judged before any handler runs.
func (*GrantInput) RecordVersion() int64 { return 0 }

// RecordVersion implements registry.Record.
func (*NewTokenInput) RecordVersion() int64 { return 0 }

// RecordVersion implements registry.Record.
func (*TokenRefInput) RecordVersion() int64 { return 0 }

// AppsAnswer is the answer of a form of the page: back to the page (303),
// or the page itself showing a new token once.
type AppsAnswer struct {
	page *AppsPage
}

// ResourceLocation implements registry.Located: the page, after a
// revocation.
func (a AppsAnswer) ResourceLocation() string { return AppsPath }

// AsPage implements registry.Negotiated: the page with the new token; a
// revocation is a redirect.
func (a AppsAnswer) AsPage() registry.Page {
	if a.page == nil {
		return nil
	}
	return a.page
}

// WritePage implements registry.Page: the page with the new token.
func (a AppsAnswer) WritePage(w io.Writer) error {
	if a.page == nil {
		return appsTemplate.Execute(w, appsView{})
	}
	return a.page.WritePage(w)
}

// ContentSecurityPolicy implements registry.PagePolicy.
func (a AppsAnswer) ContentSecurityPolicy() string { return appsPolicy }

// appsPolicy: no script, forms posting here only, never framed.
const appsPolicy = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// session is the person the session cookie names, or the refusal.
func (s *Server) session(ctx context.Context, c *registry.Call) (accounts.Session, error) {
	sess, err := s.auth.SessionOf(ctx, c.Cookies[accounts.RefreshCookie])
	if err != nil {
		return sess, registry.Unavailable("the session could not be read; try again", err)
	}
	if !sess.Authenticated {
		return sess, errSignIn
	}
	return sess, nil
}

// pageCSRF is the CSRF token of the page's forms: a digest of the session
// cookie, which no other page can read.
func pageCSRF(c *registry.Call) string {
	return digest("apps-csrf:" + c.Cookies[accounts.RefreshCookie])[:43]
}

// formSession is the session of a form of the page, with its CSRF token
// checked.
func (s *Server) formSession(ctx context.Context, c *registry.Call, csrf string) (accounts.Session, error) {
	sess, err := s.session(ctx, c)
	if err != nil {
		return sess, err
	}
	if subtle.ConstantTimeCompare([]byte(csrf), []byte(pageCSRF(c))) != 1 {
		return sess, registry.Invalid("the form is out of date; open the page again",
			registry.Violation{Field: "csrf", Reason: "is not this page's token; open the page again"})
	}
	return sess, nil
}

func (s *Server) revokeGrant(ctx context.Context, c *registry.Call, in *GrantInput) (AppsAnswer, error) {
	sess, err := s.formSession(ctx, c, in.CSRF)
	if err != nil {
		return AppsAnswer{}, err
	}
	s.withdraw(ctx, in.ClientID, sess.UserID) // an application without a grant: nothing to end
	return AppsAnswer{}, nil
}

func (s *Server) revokePersonalToken(ctx context.Context, c *registry.Call, in *TokenRefInput) (AppsAnswer, error) {
	sess, err := s.formSession(ctx, c, in.CSRF)
	if err != nil {
		return AppsAnswer{}, err
	}
	tokens, err := s.personalTokens(ctx, sess.Email)
	if err != nil {
		return AppsAnswer{}, err
	}
	if !slices.ContainsFunc(tokens, func(t accounts.TokenInfo) bool { return t.ID == in.TokenID }) {
		return AppsAnswer{}, registry.Fail(registry.KindNotFound, registry.NotFoundDetail)
	}
	if _, err := s.store.RevokeToken(ctx, sess.Email, in.TokenID); err != nil {
		return AppsAnswer{}, registry.Internal(err)
	}
	return AppsAnswer{}, nil
}

func (s *Server) createPersonalToken(ctx context.Context, c *registry.Call, in *NewTokenInput) (AppsAnswer, error) {
	sess, err := s.formSession(ctx, c, in.CSRF)
	if err != nil {
		return AppsAnswer{}, err
	}
	var scopes []registry.Scope
	for _, sc := range in.Scopes {
		scopes = append(scopes, registry.Scope(sc))
	}
	secret, err := s.store.CreateToken(ctx, sess.UserID, strings.TrimSpace(in.Name), scopes, time.Duration(in.ExpiresInDays)*24*time.Hour)
	if err != nil {
		return AppsAnswer{}, registry.Internal(err)
	}
	pg, err := s.appsPage(ctx, c, sess, secret)
	if err != nil {
		return AppsAnswer{}, err
	}
	return AppsAnswer{page: &pg}, nil
}

// tokenScopes are the scopes a personal access token may carry: every
// declared one but the account's.
func (s *Server) tokenScopes() []registry.ScopeDoc {
	var out []registry.ScopeDoc
	for _, d := range s.reg.ScopeDocs() {
		if d.Scope != accounts.ScopeAccount {
			out = append(out, d)
		}
	}
	return out
}

// checkNewToken judges a new token's form: a name of the person's own,
// and known scopes.
func (s *Server) checkNewToken(in *NewTokenInput) []registry.Violation {
	vs := required("csrf", in.CSRF)
	name := strings.TrimSpace(in.Name)
	if name == "" || strings.HasPrefix(name, tokenNamePrefix) || name == sessionTokens {
		vs = append(vs, registry.Violation{Field: "name", Reason: "is required, and not one of the names this server gives its own tokens"})
	}
	for _, sc := range in.Scopes {
		switch {
		case registry.Scope(sc) == accounts.ScopeAccount:
			vs = append(vs, registry.Violation{Field: "scopes", Reason: "account is not given to tokens: what it permits is done in the browser, signed in"})
		case !s.reg.HasScope(registry.Scope(sc)):
			vs = append(vs, registry.Violation{Field: "scopes", Reason: "names an unknown scope: " + registry.Clip(sc)})
		}
	}
	if len(in.Scopes) == 0 {
		vs = append(vs, registry.Violation{Field: "scopes", Reason: "is required: tick at least one"})
	}
	return vs
}

// personalTokens are the person's live personal access tokens: neither
// the sign-in's own nor those issued to OAuth clients (shown as grants).
func (s *Server) personalTokens(ctx context.Context, email string) ([]accounts.TokenInfo, error) {
	all, err := s.store.ListTokens(ctx, email)
	if err != nil {
		return nil, registry.Internal(err)
	}
	now := s.now()
	var out []accounts.TokenInfo
	for _, t := range all {
		if t.RevokedAt != nil || (t.ExpiresAt != nil && !now.Before(*t.ExpiresAt)) || t.Name == sessionTokens || strings.HasPrefix(t.Name, tokenNamePrefix) {
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// grant is an application's live access for the person.
type grant struct {
	ClientID, Name, Kind, Host, Scope string
	Since                             time.Time
}

// grants are the applications holding a live refresh token of the
// person's, newest first.
func (s *Server) grants(ctx context.Context, userID string) ([]grant, error) {
	var rows []refreshToken
	err := storage.Conn(ctx, s.db).NewSelect().Model(&rows).
		Where("user_id = ? AND used_at IS NULL AND expires_at > ?", userID, s.now()).OrderExpr("created_at DESC").Scan(ctx)
	if err != nil && !storage.NoRows(err) {
		return nil, registry.Internal(err)
	}
	var out []grant
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.ClientID] {
			continue
		}
		seen[r.ClientID] = true
		c, err := s.storedClient(ctx, r.ClientID)
		if err != nil || c == nil {
			continue // forgotten meanwhile
		}
		g := grant{ClientID: c.ID, Name: c.Name, Kind: "Registered", Scope: r.Scope, Since: r.CreatedAt}
		host := c.redirects()[0]
		if c.selfDescribed() {
			g.Kind, host = "Self-described", c.ID
		}
		if u, err := url.Parse(host); err == nil {
			g.Host = u.Host
		}
		out = append(out, g)
	}
	return out, nil
}

// AppsPage is the page, as the person's browser shows it.
type AppsPage struct{ view appsView }

// WritePage implements registry.Page.
func (p AppsPage) WritePage(w io.Writer) error { return appsTemplate.Execute(w, p.view) }

// AsPage implements registry.Negotiated: the page, whoever asks.
func (p AppsPage) AsPage() registry.Page { return p }

// ContentSecurityPolicy implements registry.PagePolicy.
func (p AppsPage) ContentSecurityPolicy() string { return appsPolicy }

type appsView struct {
	Product, Email, CSRF, NewToken string
	Grants                         []grant
	Tokens                         []tokenLine
	Scopes                         []registry.ScopeDoc
}

type tokenLine struct {
	ID, Name, Scopes, Created, Expires string
}

func (s *Server) appsPage(ctx context.Context, c *registry.Call, sess accounts.Session, newToken string) (AppsPage, error) {
	gs, err := s.grants(ctx, sess.UserID)
	if err != nil {
		return AppsPage{}, err
	}
	ts, err := s.personalTokens(ctx, sess.Email)
	if err != nil {
		return AppsPage{}, err
	}
	v := appsView{Product: s.auth.Words().Title, Email: sess.Email, CSRF: pageCSRF(c), NewToken: newToken, Grants: gs, Scopes: s.tokenScopes()}
	for _, t := range ts {
		l := tokenLine{ID: t.ID, Name: t.Name, Scopes: registry.JoinScopes(t.Scopes), Created: t.CreatedAt.Format("2006-01-02"), Expires: "never"}
		if t.ExpiresAt != nil {
			l.Expires = t.ExpiresAt.Format("2006-01-02 15:04 UTC")
		}
		v.Tokens = append(v.Tokens, l)
	}
	return AppsPage{view: v}, nil
}

var appsTemplate = template.Must(template.New("apps").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Connected apps and tokens: {{.Product}}</title>` + style + `</head><body>
<h1>Connected apps and tokens</h1>
<p class="who">Signed in to {{.Product}} as {{.Email}}.</p>
{{if .NewToken}}<div id="new-token"><p>Your new token, shown this once: copy it now.</p><code id="token">{{.NewToken}}</code></div>{{end}}
<h2>Applications</h2>
{{if .Grants}}<table id="grants"><tr><th>Application</th><th>From</th><th>May</th><th>Since</th><th></th></tr>
{{range .Grants}}<tr><td>{{.Name}} <span class="kind">{{.Kind}}</span></td><td>{{.Host}}</td><td><code>{{.Scope}}</code></td><td class="date">{{.Since.Format "2006-01-02"}}</td>
<td><form method="post" action="/account/apps/grants/revoke"><input type="hidden" name="csrf" value="{{$.CSRF}}"><input type="hidden" name="clientId" value="{{.ClientID}}"><button type="submit">Revoke</button></form></td></tr>
{{end}}</table>{{else}}<p id="no-grants">No application has access.</p>{{end}}
<h2>Personal access tokens</h2>
{{if .Tokens}}<table id="tokens"><tr><th>Name</th><th>Scopes</th><th>Created</th><th>Expires</th><th></th></tr>
{{range .Tokens}}<tr><td>{{.Name}}</td><td><code>{{.Scopes}}</code></td><td class="date">{{.Created}}</td><td class="date">{{.Expires}}</td>
<td><form method="post" action="/account/apps/tokens/revoke"><input type="hidden" name="csrf" value="{{$.CSRF}}"><input type="hidden" name="tokenId" value="{{.ID}}"><button type="submit">Revoke</button></form></td></tr>
{{end}}</table>{{else}}<p id="no-tokens">No personal access token.</p>{{end}}
<h2>New personal access token</h2>
<form id="create" method="post" action="/account/apps/tokens">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<p><label>Name <input name="name" required maxlength="100"></label></p>
{{range .Scopes}}<p><label><input type="checkbox" name="scopes" value="{{.Scope}}"> <code>{{.Scope}}</code>: {{.Doc}}</label></p>{{end}}
<p><label>Expires <select name="expiresInDays"><option value="30">in 30 days</option><option value="90">in 90 days</option><option value="365">in a year</option><option value="0">never</option></select></label></p>
<button type="submit">Create</button>
</form></body></html>
`))
