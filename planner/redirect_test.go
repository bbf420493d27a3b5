package planner_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/door/doortest"
)

// TestRedirectURIGrammar: a registered redirect URI follows a strict
// grammar before it reaches the consent's policy header or a page: a
// separator of the policy, or 15 KB, is refused and echoed clipped; a
// native client's private-use scheme (RFC 8252 §7.1) and loopback are
// accepted, and its consent names the scheme as the form's target; a
// return address kept before the grammar reaches no header.
func TestRedirectURIGrammar(t *testing.T) {
	a, b := signedIn(t, nil)
	registerRaw := func(redirects ...string) (int, map[string]any, int) {
		res := a.Do(t, http.MethodPost, "/oauth/register", "", map[string]any{"client_name": doortest.ClientName, "redirect_uris": redirects},
			"X-Forwarded-For", doortest.ClientAddress())
		return res.Status, res.JSON(t), len(res.Body)
	}
	for _, tc := range []struct{ name, uri string }{
		{"a policy directive in the host", "https://app.example;script-src/cb"},
		{"a list in the host", "https://app.example,evil.example/cb"},
		{"15 KB", "https://app.example/" + strings.Repeat("a", 15<<10)},
		{"a script scheme", "javascript:/alert(1)"},
	} {
		status, body, size := registerRaw(tc.uri)
		require.Equal(t, http.StatusBadRequest, status, "%s: %v", tc.name, body)
		require.Equal(t, "invalid_redirect_uri", body["error"], tc.name)
		require.Less(t, size, 1024, "%s: the refusal echoes the URI clipped", tc.name)
	}

	const native = "cursor://anysphere.cursor-retrieval/oauth/callback"
	status, body, _ := registerRaw(native, "http://127.0.0.1:33418/callback")
	require.Equal(t, http.StatusCreated, status, "a native client's private-use scheme and loopback: %v", body)
	c := &oauthClient{t: t, a: a, b: b, id: body["client_id"].(string), redirect: native,
		verifier: strings.Repeat("n", 50), scope: "trips:read", resource: a.URL + "/mcp"}
	pending, page := b.Pending(a.URL, c.authorizeURL(nil))
	res, _ := b.Do(http.MethodGet, pending.String(), nil)
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "form-action 'self' cursor://anysphere.cursor-retrieval;")
	res, answer := b.Do(http.MethodPost, pending.String()+"/approve", url.Values{"csrf": {b.CSRF(page)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, answer)
	back, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "cursor", back.Scheme)
	status, tokens := c.exchange(back.Query().Get("code"))
	require.Equal(t, http.StatusOK, status, tokens)

	// A client kept before the grammar, with a hostile return address.
	hostile := "https://app.example;script-src/cb"
	kept := register(t, a, "https://app.example/cb")
	_, err = a.DB.NewUpdate().Table("oauth_clients").Set("redirect_uris = ?", hostile).Where("id = ?", kept).Exec(context.Background())
	require.NoError(t, err)
	old := &oauthClient{t: t, a: a, b: b, id: kept, redirect: hostile, verifier: strings.Repeat("o", 50), scope: "trips:read", resource: a.URL + "/mcp"}
	res, page = b.Do(http.MethodGet, old.authorizeURL(nil), nil)
	require.Equal(t, http.StatusBadRequest, res.StatusCode, page)
	require.NotContains(t, res.Header.Get("Content-Security-Policy"), "script-src")
	require.NotContains(t, res.Header.Get("Location"), "app.example")
}
