package planner_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/planner/plannertest"
)

// chromium starts headless Chromium for the test: the one installed from
// Debian's packages (.ci/run installs it), or CAIRN_CHROMIUM. Without it the
// test skips loudly, and fails under CI=true.
func chromium(t *testing.T, more ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path := os.Getenv("CAIRN_CHROMIUM")
	if path == "" {
		var err error
		if path, err = exec.LookPath("chromium"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("Chromium is required under CI=true and is not installed: %v", err)
			}
			t.Skip("SKIPPED: Chromium is not installed (apt-get install chromium); this test opens pages as a person would and runs under CI")
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()))
	opts = append(opts, more...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTime(); cancel(); cancelAlloc() })
	return ctx
}

// TestAPersonSignsInThroughTheMailedLink opens the link of a sign-in mail
// in a real browser, presses the button, reads the token the page shows and
// calls the API with it.
func TestAPersonSignsInThroughTheMailedLink(t *testing.T) {
	t.Parallel()
	ctx := chromium(t)
	a := plannertest.New(t)
	u := conformance.NewUser(t, a.App)
	link := a.URL + "/auth/verify/" + doortest.LinkToken(t, a.App, u.Email)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link)))
	title, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#signin button")),
		chromedp.WaitVisible(chromedp.CSS("#result"))))
	token, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#token")))
	require.NoError(t, err)
	require.Equal(t, "Sign in to Cairn", title)
	require.NotEmpty(t, token)

	// The page kept the person signed in to this server's own pages.
	session, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch("/auth/session").then(r => r.text())`, chromedp.EvalAsValue, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Contains(t, session, `"authenticated":true`)

	me := a.Do(t, http.MethodGet, "/users/me", token, nil)
	require.Equal(t, http.StatusOK, me.Status, string(me.Body))
	require.Equal(t, u.Email, me.JSON(t)["email"])

	// The same link again: consumed, and the page says so.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(link),
		chromedp.Click(chromedp.CSS("#signin button")),
		chromedp.WaitVisible(chromedp.CSS("#error"))))
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#error")))
	require.NoError(t, err)
	require.Contains(t, msg, "cannot sign you in")
}
