package planner_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/door"
	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/mail/mailtest"
	"cairn.dev/cairn/planner"
	"cairn.dev/cairn/planner/plannertest"
)

// doFrom sends a request as if from the client address addr.
func doFrom(t *testing.T, a *plannertest.App, addr, method, path, token string, body any) *apptest.Response {
	t.Helper()
	return a.Do(t, method, path, token, body, "X-Forwarded-For", addr)
}

func TestAccountProfileAndPreferences(t *testing.T) {
	a, _ := signInApp(t, nil)
	tok := a.Token(t, "profile@example.com")

	res := a.Do(t, http.MethodGet, "/users/me", tok, nil)
	require.Equal(t, http.StatusOK, res.Status)
	me := res.JSON(t)
	require.Equal(t, "profile@example.com", me["email"])
	require.NotEmpty(t, me["userId"])

	res = a.Do(t, http.MethodPatch, "/users/me", tok, map[string]any{"locale": "fr"})
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, "fr", res.JSON(t)["locale"])
	res = a.Do(t, http.MethodPatch, "/users/me", tok, map[string]any{"locale": "de"})
	require.Equal(t, http.StatusUnprocessableEntity, res.Status)
	require.Contains(t, string(res.Body), `"field":"locale"`)

	res = a.Do(t, http.MethodGet, "/users/me/notification-preferences", tok, nil)
	require.Equal(t, http.StatusOK, res.Status)
	require.Equal(t, map[string]any{"weatherSafety": true, "analysisDone": true, "zoneOpening": false}, res.JSON(t), "defaults")

	for _, tc := range []struct {
		name, category string
		body           any
		status         int
		field          string
	}{
		{"enabled missing", "weatherSafety", map[string]any{}, http.StatusUnprocessableEntity, "enabled"},
		{"unknown category", "marketing", map[string]any{"enabled": true}, http.StatusNotFound, ""},
		{"turned off", "weatherSafety", map[string]any{"enabled": false}, http.StatusOK, ""},
	} {
		res := a.Do(t, http.MethodPut, "/users/me/notification-preferences/"+tc.category, tok, tc.body)
		require.Equal(t, tc.status, res.Status, "%s: %s", tc.name, res.Body)
		if tc.field != "" {
			require.Contains(t, string(res.Body), `"field":"`+tc.field+`"`, tc.name)
		}
	}
	res = a.Do(t, http.MethodGet, "/users/me/notification-preferences", tok, nil)
	require.Equal(t, false, res.JSON(t)["weatherSafety"], "the change holds; nothing else moved")
	require.Equal(t, true, res.JSON(t)["analysisDone"])
}

// TestDeviceTokens: a device registers, re-registers and is forgotten by
// its owner only; registering someone else's push token never takes it
// over (409, the owner keeps it and can still forget it), on both engines.
func TestDeviceTokens(t *testing.T) {
	onEngines(t, testDeviceTokens)
}

func testDeviceTokens(t *testing.T, engine apptest.Option) {
	a, _ := signInApp(t, engine)
	alice := a.Token(t, "alice@example.com")
	bob := a.Token(t, "bob@example.com")
	reg := func(tok, device, platform string) *apptest.Response {
		return a.Do(t, http.MethodPost, "/users/me/device-tokens", tok, map[string]any{"token": device, "platform": platform})
	}
	require.Equal(t, http.StatusCreated, reg(alice, "phone-1", "ios").Status, "new")
	require.Equal(t, http.StatusOK, reg(alice, "phone-1", "ios").Status, "re-registered")
	res := reg(alice, "phone-2", "windows")
	require.Equal(t, http.StatusUnprocessableEntity, res.Status)
	require.Contains(t, string(res.Body), `"field":"platform"`)
	res = reg(alice, strings.Repeat("x", 256), "ios")
	require.Equal(t, http.StatusUnprocessableEntity, res.Status)

	// Bob cannot delete Alice's device: the same 404 as an unknown one.
	foreign := a.Do(t, http.MethodDelete, "/users/me/device-tokens/phone-1", bob, nil)
	unknown := a.Do(t, http.MethodDelete, "/users/me/device-tokens/phone-9", bob, nil)
	require.Equal(t, http.StatusNotFound, foreign.Status)
	require.Equal(t, http.StatusNotFound, unknown.Status)

	// Bob sends Alice's token: refused, and it stays hers.
	taken := reg(bob, "phone-1", "android")
	require.Equal(t, http.StatusConflict, taken.Status, "someone else's token is not taken over: %s", taken.Body)
	require.NotContains(t, string(taken.Body), "alice", "the refusal names nobody")
	require.Equal(t, http.StatusNotFound, a.Do(t, http.MethodDelete, "/users/me/device-tokens/phone-1", bob, nil).Status, "still not Bob's")
	require.Equal(t, http.StatusOK, reg(alice, "phone-1", "ios").Status, "still Alice's")

	// The phone changes hands the way its app does it: the one signed in
	// forgets it at sign-out, then the next registers it.
	require.Equal(t, http.StatusNoContent, a.Do(t, http.MethodDelete, "/users/me/device-tokens/phone-1", alice, nil).Status)
	require.Equal(t, http.StatusCreated, reg(bob, "phone-1", "android").Status, "free again")
	require.Equal(t, http.StatusNoContent, a.Do(t, http.MethodDelete, "/users/me/device-tokens/phone-1", bob, nil).Status)
}

func TestEmailChange(t *testing.T) {
	a, smtp := signInApp(t, nil)
	alice := a.Token(t, "alice@example.com")
	bob := a.Token(t, "bob@example.com")
	carol := a.Token(t, "carol@example.com")
	change := func(tok, addr string) *apptest.Response {
		return a.Do(t, http.MethodPost, "/users/me/email-change", tok, map[string]any{"newEmail": addr})
	}
	// Carol's refused calls count against her own limit (every call that
	// reaches the limiter does), not Alice's.
	for _, tc := range []struct{ name, addr string }{
		{"same as current", "carol@example.com"},
		{"malformed", "carol"},
	} {
		res := change(carol, tc.addr)
		require.Equal(t, http.StatusUnprocessableEntity, res.Status, tc.name)
		require.Contains(t, string(res.Body), `"field":"newEmail"`, tc.name)
	}
	require.Empty(t, smtp.Messages(), "no mail for a refused change")

	res := change(alice, "Alice.New@Example.com")
	require.Equal(t, http.StatusOK, res.Status)
	accepted := string(res.Body)
	m := smtp.Next(t, 1)
	require.Equal(t, []string{"alice.new@example.com"}, m.To, "mailed to the new address, lower-cased")
	token := m.Link()[strings.LastIndex(m.Link(), "/")+1:]

	// An address another account uses gets the same answer: the change
	// cannot tell who has an account. Its owner is told, with no link.
	res = change(carol, "bob@example.com")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, accepted, string(res.Body), "the same answer as for a free address")
	notice := smtp.Next(t, 2)
	require.Equal(t, []string{"bob@example.com"}, notice.To)
	require.NotContains(t, notice.Body, "/account/email-change/", "no link: the address stays Bob's")
	require.Zero(t, rows(t, a, "email_change_tokens", "new_email = ?", "bob@example.com"), "nothing to confirm")

	verify := func(tok, token string) *apptest.Response {
		return a.Do(t, http.MethodPost, "/users/me/email-change/verify", tok, map[string]any{"token": token})
	}
	res = verify(bob, token)
	require.Equal(t, http.StatusForbidden, res.Status, "another user's token: %s", res.Body)
	res = verify(alice, token)
	require.Equal(t, http.StatusOK, res.Status, "not consumed by Bob's attempt: %s", res.Body)
	require.Equal(t, "alice.new@example.com", res.JSON(t)["email"])
	res = verify(alice, token)
	require.Equal(t, http.StatusUnprocessableEntity, res.Status, "consumed")
	require.Contains(t, string(res.Body), `"field":"token"`)
	require.Equal(t, "alice.new@example.com", a.Do(t, http.MethodGet, "/users/me", alice, nil).JSON(t)["email"])

	// 3 per user per 15 minutes, then 429 with Retry-After.
	for i := range 2 {
		require.Equal(t, http.StatusOK, change(alice, "third"+string(rune('a'+i))+"@example.com").Status)
	}
	res = change(alice, "over@example.com")
	require.Equal(t, http.StatusTooManyRequests, res.Status)
	require.NotEmpty(t, res.Header.Get("Retry-After"))
}

func TestAccountExport(t *testing.T) {
	a, _ := signInApp(t, nil)
	tok := a.Token(t, "export@example.com")
	res := a.Do(t, http.MethodPost, "/trips", tok, map[string]any{"sourceUrl": plannertest.StravaRoute(120)}, "Idempotency-Key", "export-trip-key-0001")
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	id := res.JSON(t)["id"].(string)
	a.WaitSettled(t, tok, id)

	res = a.Do(t, http.MethodGet, "/users/me/export", tok, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	require.Regexp(t, `attachment; filename=bike-trip-planner-export-\d{4}-\d{2}-\d{2}\.json`, res.Header.Get("Content-Disposition"))
	var doc struct {
		ExportedAt string         `json:"exportedAt"`
		Profile    map[string]any `json:"profile"`
		Trips      []struct {
			ID          string           `json:"id"`
			SourceURL   string           `json:"sourceUrl"`
			Preferences map[string]any   `json:"preferences"`
			Stages      []map[string]any `json:"stages"`
		} `json:"trips"`
	}
	require.NoError(t, json.Unmarshal(res.Body, &doc))
	require.NotEmpty(t, doc.ExportedAt)
	require.Equal(t, "export@example.com", doc.Profile["email"])
	require.Contains(t, doc.Profile, "roles")
	require.Len(t, doc.Trips, 1)
	require.Equal(t, id, doc.Trips[0].ID)
	for _, k := range []string{"fatigueFactor", "elevationPenalty", "ebikeMode", "departureHour", "maxDistancePerDay", "averageSpeed", "enabledAccommodationTypes"} {
		require.Contains(t, doc.Trips[0].Preferences, k)
	}
	require.NotEmpty(t, doc.Trips[0].Stages)
	require.Equal(t, float64(1), doc.Trips[0].Stages[0]["dayNumber"])
}

func TestSessionReadsTheCookie(t *testing.T) {
	a, smtp := signInApp(t, nil)
	a.Token(t, "cookie@example.com")
	_, refreshTok := signIn(t, a, smtp, "cookie@example.com", 1)
	res := a.Do(t, http.MethodGet, "/auth/session", "", nil, "Cookie", "refresh_token="+refreshTok)
	require.Equal(t, http.StatusOK, res.Status)
	require.Equal(t, true, res.JSON(t)["authenticated"])
	require.Equal(t, "cookie@example.com", res.JSON(t)["email"])
	require.Empty(t, res.Header.Get("Set-Cookie"), "never sets cookies")
	res = a.Do(t, http.MethodGet, "/auth/session", "", nil, "Cookie", "refresh_token=nonsense")
	require.Equal(t, http.StatusOK, res.Status, "never 401")
	require.Equal(t, map[string]any{"authenticated": false}, res.JSON(t))
	// Reading the session did not rotate the token.
	require.Equal(t, http.StatusOK, refresh(t, a, refreshTok).Status)
}

// authOf builds the human door over a's database and configured mail, as
// the commands do.
func authOf(t *testing.T, a *plannertest.App) *accounts.Auth {
	t.Helper()
	au, err := door.NewAuth(a.Config, planner.Words(), accounts.NewStore(a.DB, a.Server.Registry), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return au
}

func TestEarlyAccessAndInvitation(t *testing.T) {
	a, smtp := signInApp(t, nil)
	au := authOf(t, a)
	ctx := context.Background()

	res := doFrom(t, a, "198.51.100.1", http.MethodPost, "/access-requests", "", map[string]any{"email": "Early@Example.com"})
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	neutral := string(res.Body)
	m := smtp.Next(t, 1)
	link, err := url.Parse(m.Link())
	require.NoError(t, err)
	q := link.Query()
	require.Equal(t, "early@example.com", q.Get("email"))

	// Asked again, or by an existing user: the same answer, no second mail.
	res = doFrom(t, a, "198.51.100.2", http.MethodPost, "/access-requests", "", map[string]any{"email": "early@example.com"})
	require.Equal(t, neutral, string(res.Body))
	a.Token(t, "member@example.com")
	res = doFrom(t, a, "198.51.100.2", http.MethodPost, "/access-requests", "", map[string]any{"email": "member@example.com"})
	require.Equal(t, neutral, string(res.Body))
	require.Len(t, smtp.Messages(), 1)

	verify := func(email, expires, signature string) string {
		res := a.Do(t, http.MethodPost, "/access-requests/verify", "", map[string]any{"email": email, "expires": expires, "signature": signature})
		require.Equal(t, http.StatusOK, res.Status)
		return string(res.Body)
	}
	forged := verify(q.Get("email"), q.Get("expires"), strings.Repeat("0", 64))
	expired := verify(q.Get("email"), "1", q.Get("signature"))
	pending, err := au.AccessRequests(ctx, false)
	require.NoError(t, err)
	require.Empty(t, pending, "a forged or expired link verifies nothing")
	good := verify(q.Get("email"), q.Get("expires"), q.Get("signature"))
	require.Equal(t, forged, good, "always the same outcome")
	require.Equal(t, expired, good)
	verified, err := au.AccessRequests(ctx, false)
	require.NoError(t, err)
	require.Len(t, verified, 1)
	require.Equal(t, "198.51.100.1", verified[0].IP, "the address the request came from")

	// 3 per hour per address, then 429.
	for i := range 2 {
		doFrom(t, a, "198.51.100.9", http.MethodPost, "/access-requests", "", map[string]any{"email": "x" + string(rune('a'+i)) + "@example.com"})
	}
	doFrom(t, a, "198.51.100.9", http.MethodPost, "/access-requests", "", map[string]any{"email": "xc@example.com"})
	res = doFrom(t, a, "198.51.100.9", http.MethodPost, "/access-requests", "", map[string]any{"email": "xd@example.com"})
	require.Equal(t, http.StatusTooManyRequests, res.Status)

	// The administrator invites: the request goes, an invitation link is mailed.
	before := len(smtp.Messages())
	u, created, err := au.Invite(ctx, "early@example.com", "en")
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, "en", u.Locale)
	inv := smtp.Next(t, before+1)
	require.Equal(t, []string{"early@example.com"}, inv.To)
	require.Contains(t, inv.Link(), "/auth/verify/")
	all, err := au.AccessRequests(ctx, true)
	require.NoError(t, err)
	for _, r := range all {
		require.NotEqual(t, "early@example.com", r.Email, "the invitation removed the request")
	}
	token := inv.Link()[strings.LastIndex(inv.Link(), "/")+1:]
	res = a.Do(t, http.MethodPost, "/auth/verify", "", map[string]any{"token": token})
	require.Equal(t, http.StatusOK, res.Status, "the invitation signs in: %s", res.Body)
}

func TestFailedMailIsReported(t *testing.T) {
	// Nothing listens there: every send fails.
	a := plannertest.New(t, func(_ testing.TB, c *config.Config) { *c = c.With("smtp_url", "smtp://127.0.0.1:1?tls=none") })
	res := a.Do(t, http.MethodPost, "/access-requests", "", map[string]any{"email": "unlucky@example.com"})
	// An unreachable mail server is an unreachable dependency like any:
	// 503, come back later.
	require.Equal(t, http.StatusServiceUnavailable, res.Status, string(res.Body))
	require.NotEmpty(t, res.Header.Get("Retry-After"), "a 503 says when to come back")
	n, err := a.DB.NewSelect().Table("access_requests").Count(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "the request is removed, so asking again retries")

	a.Token(t, "member@example.com")
	res = a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": "member@example.com"})
	// The neutral answer still (a refusal only known addresses could get
	// would tell who has an account); the failure goes to the log.
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	doortest.Settle(t) // the link is made and mailed off the request path
	n, err = a.DB.NewSelect().Table("magic_links").Count(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "the unmailed link is forgotten")
}

func TestDeletionReachesAnotherReplica(t *testing.T) {
	smtp := mailtest.Start(t)
	url := ""
	first := plannertest.New(t, doortest.WithSMTP(smtp), apptest.Postgres, func(_ testing.TB, c *config.Config) { url = c.DatabaseURL })
	// A second replica on the same database, with a token cache of its own.
	second := plannertest.New(t, doortest.WithSMTP(smtp), func(_ testing.TB, c *config.Config) {
		c.DatabaseURL = url
		*c = c.With("auth_cache_ttl", "0s")
	})
	const email = "replicas@example.com"
	first.Token(t, email)
	access, refreshTok := signIn(t, first, smtp, email, 1)
	require.Equal(t, http.StatusOK, second.Do(t, http.MethodGet, "/trips", access, nil).Status, "the session works on both replicas")

	require.Equal(t, http.StatusNoContent, doortest.DeleteAccount(t, first.App, access).Status)
	// With no cache the other replica refuses at once; with one, within its TTL.
	require.Equal(t, http.StatusUnauthorized, second.Do(t, http.MethodGet, "/trips", access, nil).Status)
	require.Equal(t, http.StatusUnauthorized, refresh(t, second, refreshTok).Status)
}

// TestTheMailedLinkOpensASignInPage: the link a person receives opens a
// page (served whole, loading nothing from elsewhere) that consumes
// nothing until its button posts the token; a token of another shape is
// not found, as any unknown record.
func TestTheMailedLinkOpensASignInPage(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	u := conformance.NewUser(t, a.App)
	link := doortest.LinkToken(t, a.App, u.Email)
	page := a.Do(t, http.MethodGet, "/auth/verify/"+link, "", nil)
	require.Equal(t, http.StatusOK, page.Status, string(page.Body))
	require.Equal(t, "text/html; charset=utf-8", page.Header.Get("Content-Type"))
	require.Contains(t, page.Header.Get("Content-Security-Policy"), "default-src 'none'")
	require.Contains(t, string(page.Body), `data-token="`+link+`"`)
	require.NotContains(t, string(page.Body), "https://", "nothing is loaded from elsewhere")

	res := a.Do(t, http.MethodPost, "/auth/verify", "", map[string]any{"token": link})
	require.Equal(t, http.StatusOK, res.Status, "opening the page consumed nothing: %s", res.Body)

	for _, bad := range []string{"not-a-link", strings.Repeat("Z", 64)} {
		res := a.Do(t, http.MethodGet, "/auth/verify/"+bad, "", nil)
		require.Equal(t, http.StatusNotFound, res.Status, bad)
	}
}
