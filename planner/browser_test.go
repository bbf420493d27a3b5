package planner_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/door"
	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/mail"
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
// in a real browser and presses the button: the page shows no token, keeps
// the person signed in to this server's pages and offers a way on (the
// page of connected applications and tokens). The same link again cannot
// sign in, and the page offers to mail a new one, which arrives.
func TestAPersonSignsInThroughTheMailedLink(t *testing.T) {
	t.Parallel()
	ctx := chromium(t)
	a := plannertest.New(t)
	u := conformance.NewUser(t, a.App)
	link := a.URL + "/auth/verify/" + doortest.LinkToken(t, a.App, u.Email)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link)))
	title, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	require.Equal(t, "Sign in to Cairn", title)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#signin button")),
		chromedp.WaitVisible(chromedp.CSS("#result"))))
	shown, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	require.NoError(t, err)
	require.NotContains(t, shown, accounts.TokenPrefix, "no raw token on the page")
	require.NotContains(t, shown, "refresh token")

	// The page kept the person signed in to this server's own pages, and
	// its way on leads to one.
	session, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch("/auth/session").then(r => r.text())`, chromedp.EvalAsValue, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Contains(t, session, `"authenticated":true`)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#back")),
		chromedp.WaitVisible(chromedp.CSS("#create"))))
	apps, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".who")))
	require.NoError(t, err)
	require.Contains(t, apps, u.Email)

	// The same link again: consumed; the page says so and mails a new one.
	before := len(outboxTo(t, a, u.Email))
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(link),
		chromedp.Click(chromedp.CSS("#signin button")),
		chromedp.WaitVisible(chromedp.CSS("#error"))))
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#error")))
	require.NoError(t, err)
	require.Contains(t, msg, "cannot sign you in")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#again input[name=email]`), u.Email),
		chromedp.Click(chromedp.CSS("#again button")),
		chromedp.WaitVisible(chromedp.CSS("#sent"))))
	sent, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#sent")))
	require.NoError(t, err)
	require.Contains(t, sent, "a sign-in link is on its way")
	doortest.Settle(t)
	require.Len(t, outboxTo(t, a, u.Email), before+1, "a new link was mailed")
}

// outboxTo are the kept mails to addr.
func outboxTo(t *testing.T, a *plannertest.App, addr string) []mail.Message {
	t.Helper()
	ms, err := mail.NewOutbox(door.OutboxDir(a.Config), nil).List()
	require.NoError(t, err)
	var out []mail.Message
	for _, m := range ms {
		if m.To == addr {
			out = append(out, m)
		}
	}
	return out
}
