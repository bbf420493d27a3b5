package planner_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/accounts"
)

// loopbackClient is an MCP client's loopback redirect target (RFC 8252
// §7.3): it hands each query it is called with to the test.
func loopbackClient(t *testing.T) (redirect string, calls <-chan url.Values) {
	t.Helper()
	ch := make(chan url.Values, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		ch <- r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>Back in the client</title><p id="back">You can close this window.</p>`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/callback", ch
}

// received waits for the browser to reach the client's redirect target and
// to finish showing it: a navigation begun while that page still loads is
// aborted by Chromium, so the next step must not start before.
func received(ctx context.Context, t *testing.T, calls <-chan url.Values) url.Values {
	t.Helper()
	select {
	case q := <-calls:
		require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#back"))))
		return q
	case <-ctx.Done():
		t.Fatalf("the browser never came back to the client: %v", ctx.Err())
		return nil
	}
}

// TestAPersonConsentsInTheBrowser: a signed-in person opens an
// application's authorization request in Chromium, reads which application
// asks for which scopes on the consent page, and approves it; the browser
// lands on the application's loopback redirect with a code, its state and
// this server as issuer, and the code buys a token. Denying lands there
// with access_denied and no code.
func TestAPersonConsentsInTheBrowser(t *testing.T) {
	ctx := chromium(t)
	h := newMetadataHost(t)
	a, b := signedIn(t, h.allowed(t))
	redirect, calls := loopbackClient(t)
	c := &oauthClient{t: t, a: a, b: b, id: register(t, a, redirect), redirect: redirect,
		verifier: strings.Repeat("b", 50), scope: "trips:read trips:write", resource: a.URL + "/mcp"}

	// The browser carries the session of the person who signed in.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")))
	_, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{
		Name: accounts.RefreshCookie, Value: b.Session, URL: a.URL, Path: "/",
	})
	require.NoError(t, err)

	open := func(t *testing.T, c *oauthClient) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(c.authorizeURL(nil)),
			chromedp.WaitVisible(chromedp.CSS(`#approve`))))
		loc, err := chromedp.Run(ctx, chromedp.Location())
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(loc, a.URL+"/oauth/pending-authorizations/"), loc)
	}

	t.Run("approve", func(t *testing.T) {
		open(t, c)
		title, err := chromedp.Run(ctx, chromedp.Title())
		require.NoError(t, err)
		require.Equal(t, "Allow Test agent?", title)
		heading, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1")))
		require.NoError(t, err)
		require.Contains(t, heading, "Test agent")
		scopes, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("ul")))
		require.NoError(t, err)
		for _, want := range []string{"trips:read", "trips:write", "Read your trips", "Create, change, share and delete your trips"} {
			require.Contains(t, scopes, want)
		}
		who, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".who")))
		require.NoError(t, err)
		require.Contains(t, who, "oauth@example.com", "the page says who is signed in")
		kind, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#kind")))
		require.NoError(t, err)
		require.Equal(t, "Registered", kind, "a client that registered itself is said to be")
		host, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#host")))
		require.NoError(t, err)
		back, err := url.Parse(redirect)
		require.NoError(t, err)
		require.Equal(t, back.Host, host, "a registered client is shown by the host it answers at")

		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(shot, []byte("\x89PNG")) || bytes.HasPrefix(shot, []byte("\xff\xd8")), "an image")
		require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), "consent.png"), shot, 0o644))

		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#approve`))))
		q := received(ctx, t, calls)
		require.NotEmpty(t, q.Get("code"), "%v", q)
		require.Equal(t, "st", q.Get("state"))
		require.Equal(t, a.URL, q.Get("iss"), "RFC 9207 iss")
		require.Empty(t, q.Get("error"))

		status, body := c.exchange(q.Get("code"))
		require.Equal(t, http.StatusOK, status, body)
		st, _ := mcpStatus(t, a, body["access_token"].(string), "list_trips")
		require.Equal(t, http.StatusOK, st)
	})

	t.Run("deny", func(t *testing.T) {
		open(t, c)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#deny`))))
		q := received(ctx, t, calls)
		require.Equal(t, "access_denied", q.Get("error"), "%v", q)
		require.Empty(t, q.Get("code"))
		require.Equal(t, "st", q.Get("state"))
		require.Equal(t, a.URL, q.Get("iss"))
	})

	t.Run("a self-described client", func(t *testing.T) {
		self := *c
		self.id = h.client("/browser/client.json", "Metadata agent", redirect)
		open(t, &self)
		heading, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1")))
		require.NoError(t, err)
		require.Contains(t, heading, "Metadata agent")
		kind, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#kind")))
		require.NoError(t, err)
		require.Equal(t, "Self-described", kind)
		host, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#host")))
		require.NoError(t, err)
		doc, err := url.Parse(self.id)
		require.NoError(t, err)
		require.Equal(t, doc.Host, host, "a self-described client is shown by the host of its document")
		why, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#registration")))
		require.NoError(t, err)
		require.Contains(t, why, "Client ID Metadata Document")
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), "consent-cimd.png"), shot, 0o644))

		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#approve`))))
		q := received(ctx, t, calls)
		require.NotEmpty(t, q.Get("code"), "%v", q)
		status, body := self.exchange(q.Get("code"))
		require.Equal(t, http.StatusOK, status, body)
	})
}
