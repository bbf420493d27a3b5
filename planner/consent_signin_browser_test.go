package planner_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/planner/plannertest"
)

// TestAConsentAsksForTheLinkAndComesBack: a person who is not signed in
// opens an application's authorization request in Chromium; the consent
// page asks for their address, the pending request outlives the mail's
// round trip, and the mailed link, once pressed, brings the browser back
// to the same consent, where Allow sends a code to the application.
func TestAConsentAsksForTheLinkAndComesBack(t *testing.T) {
	ctx := chromium(t)
	a := plannertest.New(t) // mail goes to the outbox
	const email = "walker@example.com"
	a.Token(t, email)
	redirect, calls := loopbackClient(t)
	c := &oauthClient{t: t, a: a, id: register(t, a, redirect), redirect: redirect,
		verifier: strings.Repeat("w", 50), scope: "trips:read", resource: a.URL + "/mcp"}

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(c.authorizeURL(nil)),
		chromedp.WaitVisible(chromedp.CSS(`#signin-email`))))
	pending, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(pending, a.URL+"/oauth/pending-authorizations/"), pending)
	page, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	require.NoError(t, err)
	require.Contains(t, page, "Test agent", "the page says who asks")
	require.NotContains(t, page, "POST /auth/request-link", "a form, not an API to call")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#signin-email`), email),
		chromedp.Click(chromedp.CSS(`#signin-send`)),
		chromedp.WaitVisible(chromedp.CSS(`#link-sent`))))
	id := pending[strings.LastIndex(pending, "/")+1:]
	var expires time.Time
	require.NoError(t, a.DB.NewSelect().Table("oauth_authorizations").Column("expires_at").Where("id = ?", id).Scan(context.Background(), &expires))
	require.True(t, expires.After(time.Now().Add(25*time.Minute)), "the pending request outlives the mailed link's 30 minutes: %s", expires)

	link := a.URL + "/auth/verify/" + func() string { doortest.Settle(t); return doortest.OutboxLink(t, a.App, email, "/auth/verify/") }()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(link),
		chromedp.Click(chromedp.CSS("#signin button")),
		chromedp.WaitVisible(chromedp.CSS(`#approve`))))
	back, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Equal(t, pending, back, "the link brings the browser back to the same consent")

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#approve`))))
	q := received(ctx, t, calls)
	require.NotEmpty(t, q.Get("code"), "%v", q)
	status, body := c.exchange(q.Get("code"))
	require.Equal(t, http.StatusOK, status, body)
}
