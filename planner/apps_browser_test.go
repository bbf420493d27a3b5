package planner_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/accounts"
)

// TestAPersonManagesAppsInTheBrowser: in Chromium, without the session a
// refusal is a page asking to sign in; signed in, the person sees the
// application holding a grant, creates a personal access token with the
// page's form (shown once, and it works), and revokes the application's
// grant with its button.
func TestAPersonManagesAppsInTheBrowser(t *testing.T) {
	ctx := chromium(t)
	a, b := signedIn(t, nil)
	redirect := "http://127.0.0.1:5004/cb"
	c := &oauthClient{t: t, a: a, b: b, id: register(t, a, redirect), redirect: redirect,
		verifier: strings.Repeat("q", 50), scope: "trips:read", resource: a.URL + "/mcp"}
	status, body := c.exchange(c.code())
	require.Equal(t, http.StatusOK, status, body)
	access := body["access_token"].(string)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(a.URL+"/account/apps")))
	title, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	require.Equal(t, "Sign in first", title, "a refusal is a page for a browser")

	_, err = chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{
		Name: accounts.RefreshCookie, Value: b.Session, URL: a.URL, Path: "/",
	})
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(a.URL+"/account/apps"), chromedp.WaitVisible(chromedp.CSS("#grants"))))
	grants, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#grants")))
	require.NoError(t, err)
	require.Contains(t, grants, "Test agent")
	require.Contains(t, grants, "trips:read")
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), "apps.png"), shot, 0o644))

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#create input[name="name"]`), "phone"),
		chromedp.Click(chromedp.CSS(`#create input[value="trips:read"]`)),
		chromedp.Click(chromedp.CSS(`#create button`)),
		chromedp.WaitVisible(chromedp.CSS("#token"))))
	tok, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#token")))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(tok, "cairn_pat_"), tok)
	require.Equal(t, http.StatusOK, a.Do(t, http.MethodGet, "/trips", tok, nil).Status)
	tokens, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#tokens")))
	require.NoError(t, err)
	require.Contains(t, tokens, "phone")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#grants button`)),
		chromedp.WaitVisible(chromedp.CSS("#no-grants"))))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Equal(t, a.URL+"/account/apps", loc)
	st, _ := mcpStatus(t, a, access, "list_trips")
	require.Equal(t, http.StatusUnauthorized, st, "the grant is revoked")
}
