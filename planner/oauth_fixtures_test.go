package planner_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/modules/accounts"
)

// pendingAuthorization registers a client, starts an authorization as it
// would and opens the consent page as u's browser: it returns the pending
// authorization's id, the session cookie and the page's CSRF token.
func pendingAuthorization(t testing.TB, a *apptest.App, u conformance.User) (id, cookie, csrf string) {
	t.Helper()
	const redirect = "http://127.0.0.1:5002/cb"
	res := a.Do(t, http.MethodPost, "/oauth/register", "", map[string]any{"client_name": "Test agent", "redirect_uris": []string{redirect}},
		"X-Forwarded-For", fixtureAddress())
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	sum := sha256.Sum256([]byte(strings.Repeat("f", 50)))
	q := url.Values{"response_type": {"code"}, "client_id": {res.JSON(t)["client_id"].(string)}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "scope": {"trips:read"}}
	b := newPerson(t, refreshToken(t, a, u))
	r, _ := b.do(http.MethodGet, a.URL+"/oauth/authorize?"+q.Encode(), nil)
	require.Equal(t, http.StatusFound, r.StatusCode)
	id = r.Header.Get("Location")[strings.LastIndex(r.Header.Get("Location"), "/")+1:]
	r, page := b.do(http.MethodGet, a.URL+r.Header.Get("Location"), nil)
	require.Equal(t, http.StatusOK, r.StatusCode, page)
	return id, accounts.RefreshCookie + "=" + b.session, csrfField.FindStringSubmatch(page)[1]
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

// appsCall is a valid call of the page of connected applications: u's
// browser, its cookie and the page's CSRF token; args adds the form's
// other fields (a personal access token's id is u's own, read from the
// page).
func appsCall(args map[string]any) func(testing.TB, *apptest.App, conformance.User) apptest.Request {
	return func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		b := newPerson(t, refreshToken(t, a, u))
		res, page := b.do(http.MethodGet, a.URL+"/account/apps", nil)
		require.Equal(t, http.StatusOK, res.StatusCode, page)
		r := apptest.Request{Header: map[string]string{"Cookie": accounts.RefreshCookie + "=" + b.session}, Args: map[string]any{}}
		if args == nil {
			return r
		}
		csrf := csrfField.FindStringSubmatch(page)[1]
		r.Args["csrf"] = csrf
		for k, v := range args {
			if v == "own token" {
				// A token of u's own, made for this call.
				res, page := b.do(http.MethodPost, a.URL+"/account/apps/tokens", url.Values{"csrf": {csrf}, "name": {"fixture"}, "scopes": {"trips:read"}})
				require.Equal(t, http.StatusOK, res.StatusCode, page)
				v = tokenRevoke.FindStringSubmatch(page)[1]
			}
			r.Args[k] = v
		}
		return r
	}
}

// tokenRevoke reads the id of the page's first token named fixture.
var tokenRevoke = regexp.MustCompile(`<td>fixture</td>[^\n]*\n[^\n]*name="tokenId" value="([^"]+)"`)

// oauthFixtures cover the consent operations and the page of connected
// applications; they join the planner's fixtures.
var oauthFixtures = conformance.Fixtures{
	"oauth.pending_authorization": {Valid: consentCall(false)},
	"oauth.approve_authorization": {Valid: consentCall(true), Invalid: withArgs(map[string]any{"csrf": " "})},
	"oauth.deny_authorization":    {Valid: consentCall(true), Invalid: withArgs(map[string]any{"csrf": " "})},
	"oauth.connected_apps":        {Valid: appsCall(nil)},
	"oauth.revoke_grant": {Valid: appsCall(map[string]any{"clientId": "dcr_none"}),
		Invalid: withArgs(map[string]any{"clientId": ""})},
	"oauth.create_personal_token": {Valid: appsCall(map[string]any{"name": "laptop", "scopes": []string{"trips:read"}}),
		Invalid: withArgs(map[string]any{"scopes": []string{"nonsense"}})},
	"oauth.revoke_personal_token": {Valid: appsCall(map[string]any{"tokenId": "own token"}),
		Invalid: withArgs(map[string]any{"tokenId": " "})},
}

func init() {
	for id, f := range oauthFixtures {
		fixtures[id] = f
	}
}
