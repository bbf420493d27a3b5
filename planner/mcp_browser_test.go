package planner_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/tools"
)

// TestABrowserPageSpeaksMCP: a page on an allowed origin (another port of
// this host) runs the TypeScript SDK v2 client, bundled with esbuild, in
// headless Chromium: through CORS it discovers the server at 2026-07-28,
// lists the tools and calls one.
func TestABrowserPageSpeaksMCP(t *testing.T) {
	t.Parallel()
	ctx := chromium(t)
	npm := apptest.Node(t)
	bundle := npm.Bundle(t, "browser/mcp.mjs")
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp.js" {
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = w.Write(bundle)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><title>An MCP client</title><script type="module" src="/mcp.js"></script>`))
	}))
	t.Cleanup(page.Close)
	a := plannertest.New(t, func(_ testing.TB, c *config.Config) { c.AllowedOrigins = page.URL })
	tok := a.Token(t, "browser@example.com")

	frag := url.Values{"url": {a.URL + "/mcp"}, "token": {tok}}.Encode()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(page.URL+"/#"+frag),
		chromedp.WaitVisible(chromedp.CSS("#result, #error"))))
	failure, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#error')?.textContent ?? ''`))
	require.NoError(t, err)
	require.Empty(t, failure, "the page's client failed")
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#result")))
	require.NoError(t, err)
	var got struct {
		ProtocolVersion string   `json:"protocolVersion"`
		Tools           []string `json:"tools"`
		IsError         bool     `json:"isError"`
		TotalItems      *float64 `json:"totalItems"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &got), text)
	require.Equal(t, tools.Revision20260728, got.ProtocolVersion)
	require.Contains(t, got.Tools, "list_trips")
	require.False(t, got.IsError)
	require.NotNil(t, got.TotalItems, "the call's structured content reached the page: %s", text)
}
