package planner_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	newTokenShown = regexp.MustCompile(`<code id="token">(cairn_pat_[A-Za-z0-9_-]+)</code>`)
	laptopRevoke  = regexp.MustCompile(`<td>laptop</td>[^\n]*\n[^\n]*name="tokenId" value="([^"]+)"`)
)

// TestConnectedAppsPage: the signed-in person's page lists the
// applications holding a grant and the personal access tokens; a token
// created from the page is shown once and works, and each revocation
// takes effect at once. Without the session cookie, or without the page's
// CSRF token, nothing is shown or changed, and a bearer token is no
// session.
func TestConnectedAppsPage(t *testing.T) {
	a, b := signedIn(t, nil)
	redirect := "http://127.0.0.1:5003/cb"
	c := &oauthClient{t: t, a: a, b: b, id: register(t, a, redirect), redirect: redirect,
		verifier: strings.Repeat("p", 50), scope: "trips:read", resource: a.URL + "/mcp"}
	status, body := c.exchange(c.code())
	require.Equal(t, http.StatusOK, status, body)
	access, refresh := body["access_token"].(string), body["refresh_token"].(string)

	res, page := b.Do(http.MethodGet, a.URL+"/account/apps", nil)
	require.Equal(t, http.StatusOK, res.StatusCode, page)
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "form-action 'self'")
	require.NotContains(t, page, "<script", "no script")
	require.NotContains(t, page, "https://", "nothing from elsewhere")
	require.Contains(t, page, "oauth@example.com")
	require.Contains(t, page, "Test agent")
	require.Contains(t, page, "127.0.0.1:5003")
	require.Contains(t, page, "<code>trips:read</code>")
	require.Contains(t, page, "<td>issued</td>", "a personal access token of the person's")
	require.NotContains(t, page, "<td>session</td>", "the sign-in's own tokens are not the person's to manage")
	require.NotContains(t, page, "<td>oauth: ", "an application's tokens are its grant")
	csrf := b.CSRF(page)
	// A date is one unbroken line: "2026-12-02" never wraps at a hyphen.
	require.Contains(t, page, ".date{white-space:nowrap}")
	require.Regexp(t, `<td class="date">\d{4}-\d{2}-\d{2}</td>`, page)
	require.NotRegexp(t, `<td>\d{4}-\d{2}-\d{2}`, page, "every date cell keeps it whole")

	t.Run("refused without the session or the CSRF token", func(t *testing.T) {
		res, page := newPerson(t, "").Do(http.MethodGet, a.URL+"/account/apps", nil)
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, page)
		require.Equal(t, http.StatusUnauthorized, a.Do(t, http.MethodGet, "/account/apps", access, nil).Status, "a bearer token is no session")
		res, page = b.Do(http.MethodPost, a.URL+"/account/apps/tokens", url.Values{"name": {"x"}, "scopes": {"trips:read"}})
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, page)
		res, page = b.Do(http.MethodPost, a.URL+"/account/apps/grants/revoke", url.Values{"csrf": {"forged"}, "clientId": {c.id}})
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, page)
		res, page = newPerson(t, "").Do(http.MethodPost, a.URL+"/account/apps/grants/revoke", url.Values{"csrf": {csrf}, "clientId": {c.id}})
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, page)
		st, _ := mcpStatus(t, a, access, "list_trips")
		require.Equal(t, http.StatusOK, st, "the grant still holds")
	})

	t.Run("a personal access token created, used, listed and revoked", func(t *testing.T) {
		res, page := b.Do(http.MethodPost, a.URL+"/account/apps/tokens", url.Values{"csrf": {csrf}, "name": {"laptop"},
			"scopes": {"trips:read", "trips:write"}, "expiresInDays": {"30"}})
		require.Equal(t, http.StatusOK, res.StatusCode, page)
		m := newTokenShown.FindStringSubmatch(page)
		require.Len(t, m, 2, page)
		tok := m[1]
		require.Equal(t, http.StatusOK, a.Do(t, http.MethodGet, "/trips", tok, nil).Status)
		require.Equal(t, http.StatusForbidden, a.Do(t, http.MethodGet, "/users/me", tok, nil).Status, "only the scopes ticked")

		res, page = b.Do(http.MethodGet, a.URL+"/account/apps", nil)
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.NotContains(t, page, tok, "shown once")
		require.Contains(t, page, "laptop")
		ids := laptopRevoke.FindStringSubmatch(page)
		require.Len(t, ids, 2)

		res, page = b.Do(http.MethodPost, a.URL+"/account/apps/tokens", url.Values{"csrf": {csrf}, "name": {"x"}, "scopes": {"admin"}})
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, page)
		require.Contains(t, page, `"field":"scopes"`)
		res, page = b.Do(http.MethodPost, a.URL+"/account/apps/tokens/revoke", url.Values{"csrf": {csrf}, "tokenId": {"session"}})
		require.Equal(t, http.StatusNotFound, res.StatusCode, "only a listed token, by id: %s", page)

		res, _ = b.Do(http.MethodPost, a.URL+"/account/apps/tokens/revoke", url.Values{"csrf": {csrf}, "tokenId": {ids[1]}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		require.Equal(t, "/account/apps", res.Header.Get("Location"))
		require.Equal(t, http.StatusUnauthorized, a.Do(t, http.MethodGet, "/trips", tok, nil).Status)
	})

	t.Run("no token with the account's scope", func(t *testing.T) {
		// What the account scope permits (deleting the account, changing
		// its address) is for the person in the browser, never a token's.
		require.NotContains(t, page, `value="account"`, "the form does not offer it")
		before := rows(t, a, "access_tokens", "name = ?", "acct")
		res, answer := b.Do(http.MethodPost, a.URL+"/account/apps/tokens", url.Values{"csrf": {csrf}, "name": {"acct"},
			"scopes": {"trips:read", "account"}, "expiresInDays": {"30"}})
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, answer)
		require.Contains(t, answer, `"field":"scopes"`)
		require.Contains(t, answer, "account")
		require.NotRegexp(t, newTokenShown, answer)
		require.Equal(t, before, rows(t, a, "access_tokens", "name = ?", "acct"), "no token made")
	})

	t.Run("an application's grant revoked", func(t *testing.T) {
		res, _ := b.Do(http.MethodPost, a.URL+"/account/apps/grants/revoke", url.Values{"csrf": {csrf}, "clientId": {c.id}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		st, _ := mcpStatus(t, a, access, "list_trips")
		require.Equal(t, http.StatusUnauthorized, st)
		status, body := c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {c.id}})
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		_, page := b.Do(http.MethodGet, a.URL+"/account/apps", nil)
		require.Contains(t, page, `id="no-grants"`)
	})
}
