// Package doortest holds what a product's tests need of the human door
// (package door): the conformance fixtures of the door's operations, which
// a product composing the door adds to its own (Fixtures), and a person at
// a browser who signs in by a mailed link and answers a consent (Browser).
// The mail is read from the outbox, where it goes when no smtp_url is set,
// as in apptest's applications.
package doortest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/door"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/mail"
	"cairn.dev/cairn/modules/mail/mailtest"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
)

// WithSMTP points the product's mail at an SMTP server started in the
// test (mailtest.Start), with a fixed auth_secret, instead of the outbox.
func WithSMTP(s *mailtest.Server) apptest.Option {
	return func(_ testing.TB, c *config.Config) {
		*c = c.With("smtp_url", s.URL).With("auth_secret", "a test secret of enough length")
	}
}

// ClientName is the name the tests' OAuth clients register under; Consent
// checks that the page shows it.
const ClientName = "Test agent"

// OutboxLink is the part after marker of the newest link mailed to addr,
// read from the outbox: the token of a sign-in link for "/auth/verify/".
func OutboxLink(t testing.TB, a *apptest.App, addr, marker string) string {
	t.Helper()
	ms, err := mail.NewOutbox(door.OutboxDir(a.Config), nil).List()
	require.NoError(t, err)
	for i := len(ms) - 1; i >= 0; i-- {
		if l := ms[i].Link; ms[i].To == addr && strings.Contains(l, marker) {
			return l[strings.Index(l, marker)+len(marker):]
		}
	}
	t.Fatalf("no mail to %s with a link to %s in the outbox", addr, marker)
	return ""
}

var addresses atomic.Uint32

// ClientAddress is a client address of its own (X-Forwarded-For) for a
// set-up call, so that per-address limits never count it with the calls
// under test.
func ClientAddress() string {
	n := addresses.Add(1)
	return fmt.Sprintf("203.0.%d.%d", n>>8&0xff, n&0xff)
}

// LinkToken asks for a sign-in link for email, a known person's, and
// returns its token, read from the outbox.
func LinkToken(t testing.TB, a *apptest.App, email string) string {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": email},
		"X-Forwarded-For", ClientAddress())
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	Settle(t)
	return OutboxLink(t, a, email, "/auth/verify/")
}

// Settle waits for the sign-in links asked for so far to be mailed: they
// are mailed off the request path.
func Settle(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, accounts.Settle(ctx), "the sign-in links asked for are mailed")
}

// SignIn signs a known person in by the mailed link, as the sign-in page
// does, and returns the session: its bearer token and its refresh token,
// which a browser keeps as the session cookie.
func SignIn(t testing.TB, a *apptest.App, email string) (token, refresh string) {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/auth/verify", "", map[string]any{"token": LinkToken(t, a, email), "keepSignedIn": true})
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	body := res.JSON(t)
	return body["token"].(string), body["refresh_token"].(string)
}

// Browser is a person at a browser: it carries the session cookie and
// does not follow redirects, so that a test sees each step.
type Browser struct {
	T       testing.TB
	Session string // the session cookie: a sign-in's refresh token
	HTTP    *http.Client
}

// NewBrowser is a browser holding session ("" for none).
func NewBrowser(t testing.TB, session string) *Browser {
	return &Browser{T: t, Session: session, HTTP: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}}
}

// Do sends a request, a form when form is not nil, and reads the answer.
func (b *Browser) Do(method, u string, form url.Values) (*http.Response, string) {
	b.T.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	require.NoError(b.T, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if b.Session != "" {
		req.AddCookie(&http.Cookie{Name: accounts.RefreshCookie, Value: b.Session})
	}
	res, err := b.HTTP.Do(req)
	require.NoError(b.T, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(b.T, err)
	return res, string(raw)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// CSRF is the CSRF token of a page's forms; it fails the test when the
// page has none.
func (b *Browser) CSRF(page string) string {
	b.T.Helper()
	m := csrfField.FindStringSubmatch(page)
	require.Len(b.T, m, 2, page)
	return m[1]
}

// Consent follows an authorization URL to the consent page, checks that
// it names ClientName and each scope, runs no script and loads nothing,
// and answers it ("approve" or "deny"); it returns where the server sends
// the browser back.
func (b *Browser) Consent(base, authorizeURL, decision string, scopes ...string) *url.URL {
	b.T.Helper()
	pending, page := b.Pending(base, authorizeURL)
	require.Contains(b.T, page, ClientName)
	require.NotContains(b.T, page, "<script", "the consent runs no script")
	for _, sc := range scopes {
		require.Contains(b.T, page, "<code>"+sc+"</code>")
	}
	res, answer := b.Do(http.MethodPost, pending.String()+"/"+decision, url.Values{"csrf": {b.CSRF(page)}})
	require.Equal(b.T, http.StatusSeeOther, res.StatusCode, answer)
	back, err := url.Parse(res.Header.Get("Location"))
	require.NoError(b.T, err)
	return back
}

// Pending follows an authorization URL to its pending authorization and
// opens its consent page: the page's address and the page.
func (b *Browser) Pending(base, authorizeURL string) (*url.URL, string) {
	b.T.Helper()
	res, _ := b.Do(http.MethodGet, authorizeURL, nil)
	require.Equal(b.T, http.StatusFound, res.StatusCode)
	pending, err := url.Parse(base)
	require.NoError(b.T, err)
	pending, err = pending.Parse(res.Header.Get("Location"))
	require.NoError(b.T, err)
	require.True(b.T, strings.HasPrefix(pending.Path, "/oauth/pending-authorizations/"), pending.Path)
	res, page := b.Do(http.MethodGet, pending.String(), nil)
	require.Equal(b.T, http.StatusOK, res.StatusCode, page)
	require.Contains(b.T, res.Header.Get("Content-Security-Policy"), "default-src 'none'", "the consent loads nothing from elsewhere")
	return pending, page
}

// AuthorizeURL is an authorization request of client for scope, with a
// PKCE S256 challenge of verifier.
func AuthorizeURL(base, client, redirect, verifier, scope string) string {
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"st"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "scope": {scope}}
	return base + "/oauth/authorize?" + q.Encode()
}

// Register registers an OAuth client named ClientName (Dynamic Client
// Registration) and returns its id.
func Register(t testing.TB, a *apptest.App, redirects ...string) string {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/oauth/register", "", map[string]any{"client_name": ClientName, "redirect_uris": redirects},
		"X-Forwarded-For", ClientAddress())
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	return res.JSON(t)["client_id"].(string)
}

// toolScope is a scope of the registry's MCP tools: what an OAuth client
// may ask for.
func toolScope(t testing.TB, reg *registry.Registry) registry.Scope {
	t.Helper()
	for _, op := range reg.Operations() {
		if op.Tool.IsTool() && op.Scope != registry.Public {
			return op.Scope
		}
	}
	t.Fatal("the product has no MCP tool with a scope: an OAuth client has nothing to ask for")
	return ""
}

// pendingAuthorization registers a client, starts an authorization as it
// would and opens the consent page as u's browser: the pending
// authorization's id, the session cookie and the page's CSRF token.
func pendingAuthorization(t testing.TB, a *apptest.App, u conformance.User) (id, cookie, csrf string) {
	t.Helper()
	const redirect = "http://127.0.0.1:5002/cb"
	_, session := SignIn(t, a, u.Email)
	b := NewBrowser(t, session)
	pending, page := b.Pending(a.URL, AuthorizeURL(a.URL, Register(t, a, redirect), redirect, strings.Repeat("f", 50), string(toolScope(t, a.Server.Registry))))
	return pending.Path[strings.LastIndex(pending.Path, "/")+1:], accounts.RefreshCookie + "=" + b.Session, b.CSRF(page)
}

// anonymousPending opens an authorization request in a browser that is
// not signed in and returns the pending authorization's id.
func anonymousPending(t testing.TB, a *apptest.App) string {
	t.Helper()
	const redirect = "http://127.0.0.1:5002/cb"
	b := NewBrowser(t, "")
	res, page := b.Do(http.MethodGet, AuthorizeURL(a.URL, Register(t, a, redirect), redirect, strings.Repeat("f", 50), string(toolScope(t, a.Server.Registry))), nil)
	require.Equal(t, http.StatusFound, res.StatusCode, page)
	loc := res.Header.Get("Location")
	return loc[strings.LastIndex(loc, "/")+1:]
}

// consentCall is a valid call of a consent operation: the person's
// browser, its cookie and the form's CSRF token (the bearer token the kit
// adds is not what the operation reads).
func consentCall(withCSRF bool) func(testing.TB, *apptest.App, conformance.User) apptest.Request {
	return func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		id, cookie, csrf := pendingAuthorization(t, a, u)
		r := apptest.Request{Vars: map[string]string{"id": id}, Header: map[string]string{"Cookie": cookie}}
		if withCSRF {
			r.Args = map[string]any{"csrf": csrf}
		}
		return r
	}
}

// ownToken marks the argument appsCall replaces with the id of a personal
// access token of u's own, made for the call.
const ownToken = "own token"

// tokenRevoke reads the id of the page's first token named fixture.
var tokenRevoke = regexp.MustCompile(`<td>fixture</td>[^\n]*\n[^\n]*name="tokenId" value="([^"]+)"`)

// appsCall is a valid call of the page of connected applications: u's
// browser, its cookie and the page's CSRF token; args adds the form's
// other fields (a scope of "" the registry's first tool scope).
func appsCall(args map[string]any) func(testing.TB, *apptest.App, conformance.User) apptest.Request {
	return func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		_, session := SignIn(t, a, u.Email)
		b := NewBrowser(t, session)
		res, page := b.Do(http.MethodGet, a.URL+"/account/apps", nil)
		require.Equal(t, http.StatusOK, res.StatusCode, page)
		r := apptest.Request{Header: map[string]string{"Cookie": accounts.RefreshCookie + "=" + b.Session}, Args: map[string]any{}}
		if args == nil {
			return r
		}
		csrf := b.CSRF(page)
		r.Args["csrf"] = csrf
		scope := string(toolScope(t, a.Server.Registry))
		for k, v := range args {
			switch v {
			case ownToken:
				res, page := b.Do(http.MethodPost, a.URL+"/account/apps/tokens", url.Values{"csrf": {csrf}, "name": {"fixture"}, "scopes": {scope}})
				require.Equal(t, http.StatusOK, res.StatusCode, page)
				v = tokenRevoke.FindStringSubmatch(page)[1]
			case nil:
				v = []string{scope}
			}
			r.Args[k] = v
		}
		return r
	}
}

func fixed(r apptest.Request) func(testing.TB, *apptest.App, conformance.User) apptest.Request {
	return func(testing.TB, *apptest.App, conformance.User) apptest.Request { return r }
}

// withArgs is an Invalid fixture: the valid call with args replacing its own.
func withArgs(args map[string]any) func(testing.TB, *apptest.App, conformance.User, apptest.Request) apptest.Request {
	return func(_ testing.TB, _ *apptest.App, _ conformance.User, r apptest.Request) apptest.Request {
		out := r
		out.Args = map[string]any{}
		for k, v := range r.Args {
			out.Args[k] = v
		}
		for k, v := range args {
			out.Args[k] = v
		}
		return out
	}
}

func newAddress() string { return "new-" + uuid.NewString() + "@example.com" }

// Fixtures are the conformance fixtures of the door's operations (the
// accounts module's and the OAuth server's) for a product whose registry
// is reg; a product's conformance test adds its own:
//
//	fx := doortest.Fixtures(a.Server.Registry)
//	maps.Copy(fx, productFixtures)
//	conformance.Exercise(t, a, fx)
func Fixtures(reg *registry.Registry) conformance.Fixtures {
	fx := conformance.Fixtures{
		"auth.request_link": {Valid: func(_ testing.TB, _ *apptest.App, u conformance.User) apptest.Request {
			return apptest.Request{Args: map[string]any{"email": u.Email}}
		}, Invalid: withArgs(map[string]any{"email": "not-an-address"})},
		"auth.verify": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			return apptest.Request{Args: map[string]any{"token": LinkToken(t, a, u.Email)}}
		}, Invalid: withArgs(map[string]any{"token": " "})},
		"auth.verify_page": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			return apptest.Request{Vars: map[string]string{"token": LinkToken(t, a, u.Email)}}
		}},
		"auth.refresh": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			_, refresh := SignIn(t, a, u.Email)
			return apptest.Request{Args: map[string]any{"refresh_token": refresh}}
		}, Invalid: withArgs(map[string]any{"refresh_token": ""})},
		"auth.logout":  {Valid: fixed(apptest.Request{})},
		"auth.session": {Valid: fixed(apptest.Request{})},
		"account.me":   {Valid: fixed(apptest.Request{})},
		"account.update": {Valid: fixed(apptest.Request{Args: map[string]any{"locale": "en"}}),
			Invalid: withArgs(map[string]any{"locale": "de"})},
		"account.delete": {Valid: fixed(apptest.Request{}),
			// Deleting anonymises the person: no live user holds the address.
			Written: func(t testing.TB, a *apptest.App, u conformance.User, _ apptest.Request) bool {
				n, err := a.DB.NewSelect().Table("users").Where("email = ? AND deleted_at IS NULL", u.Email).Count(context.Background())
				require.NoError(t, err)
				return n == 0
			}},
		"account.export": {Valid: fixed(apptest.Request{})},
		"account.register_device": {Valid: func(testing.TB, *apptest.App, conformance.User) apptest.Request {
			return apptest.Request{Args: map[string]any{"token": "device-" + uuid.NewString(), "platform": "ios"}}
		}, Invalid: withArgs(map[string]any{"platform": "windows"})},
		"account.delete_device": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			tok := "device-" + uuid.NewString()
			res := a.Do(t, http.MethodPost, "/users/me/device-tokens", u.Token, map[string]any{"token": tok, "platform": "android"})
			require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
			return apptest.Request{Vars: map[string]string{"token": tok}}
		}},
		"account.email_change": {Valid: func(testing.TB, *apptest.App, conformance.User) apptest.Request {
			return apptest.Request{Args: map[string]any{"newEmail": newAddress()}}
		}, Invalid: withArgs(map[string]any{"newEmail": "alice@"})},
		"account.email_change_verify": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			to := newAddress()
			res := a.Do(t, http.MethodPost, "/users/me/email-change", u.Token, map[string]any{"newEmail": to},
				"X-Forwarded-For", ClientAddress())
			require.Equal(t, http.StatusOK, res.Status, string(res.Body))
			return apptest.Request{Args: map[string]any{"token": OutboxLink(t, a, to, "/account/email-change/")}}
		}, Invalid: withArgs(map[string]any{"token": ""})},
		"access.request": {Valid: func(testing.TB, *apptest.App, conformance.User) apptest.Request {
			return apptest.Request{Args: map[string]any{"email": "early-" + uuid.NewString() + "@example.com"}}
		}, Invalid: withArgs(map[string]any{"email": ""})},
		"access.verify": {Valid: fixed(apptest.Request{Args: map[string]any{
			"email": "early@example.com", "expires": "0", "signature": "00"}}),
			Invalid: withArgs(map[string]any{"expires": "soon"})},

		"oauth.pending_authorization": {Valid: consentCall(false)},
		"oauth.approve_authorization": {Valid: consentCall(true), Invalid: withArgs(map[string]any{"csrf": " "})},
		"oauth.deny_authorization":    {Valid: consentCall(true), Invalid: withArgs(map[string]any{"csrf": " "})},
		"oauth.pending_sign_in": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			return apptest.Request{Vars: map[string]string{"id": anonymousPending(t, a)}, Args: map[string]any{"email": u.Email}}
		}, Invalid: withArgs(map[string]any{"email": " "})},
		"oauth.connected_apps": {Valid: appsCall(nil)},
		"oauth.revoke_grant": {Valid: appsCall(map[string]any{"clientId": "dcr_none"}),
			Invalid: withArgs(map[string]any{"clientId": ""})},
		"oauth.create_personal_token": {Valid: appsCall(map[string]any{"name": "laptop", "scopes": nil}),
			Invalid: withArgs(map[string]any{"scopes": []string{"nonsense"}})},
		"oauth.revoke_personal_token": {Valid: appsCall(map[string]any{"tokenId": ownToken}),
			Invalid: withArgs(map[string]any{"tokenId": " "})},
	}
	// The notification preferences exist when the product names
	// categories (door.Words.Notifications).
	if op, ok := reg.Lookup("account.set_notification_preference"); ok {
		fx["account.notification_preferences"] = conformance.Fixture{Valid: fixed(apptest.Request{})}
		fx["account.set_notification_preference"] = conformance.Fixture{Valid: fixed(apptest.Request{
			Vars: map[string]string{"category": op.Owner.Terms()[0]}, Args: map[string]any{"enabled": true}}),
			Invalid: func(_ testing.TB, _ *apptest.App, _ conformance.User, r apptest.Request) apptest.Request {
				r.Args = map[string]any{} // enabled is required: never a silent opt-out
				return r
			}}
	}
	return fx
}

// DeleteAccount deletes the account of token's user as a person does: the
// first DELETE answers what it loses and a confirmation token, the second,
// carrying it, deletes. headers go with both requests.
func DeleteAccount(t testing.TB, a *apptest.App, token string, headers ...string) *apptest.Response {
	t.Helper()
	asked := a.Do(t, http.MethodDelete, "/users/me", token, nil, headers...)
	require.Equal(t, http.StatusConflict, asked.Status, "deleting an account asks first: %s", asked.Body)
	require.Equal(t, operations.ConfirmationType, asked.JSON(t)["type"])
	tok, _ := asked.JSON(t)["confirmationToken"].(string)
	return a.Do(t, http.MethodDelete, "/users/me", token, nil, append(headers, operations.HeaderConfirmationToken, tok)...)
}
