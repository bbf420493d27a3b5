package planner_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/modules/mail/mailtest"
	"cairn.dev/cairn/planner/plannertest"
)

// signInApp starts the planner with its mail going to an SMTP server.
func signInApp(t *testing.T, engine apptest.Option) (*plannertest.App, *mailtest.Server) {
	smtp := mailtest.Start(t)
	opts := []apptest.Option{doortest.WithSMTP(smtp)}
	if engine != nil {
		opts = append(opts, engine)
	}
	return plannertest.New(t, opts...), smtp
}

// onEngines runs f on SQLite and on PostgreSQL.
func onEngines(t *testing.T, f func(t *testing.T, engine apptest.Option)) {
	t.Run("sqlite", func(t *testing.T) { f(t, nil) })
	t.Run("postgres", func(t *testing.T) { f(t, apptest.Postgres) })
}

// signIn asks for a link for email, reads it from the SMTP server as the
// n-th mail, and verifies it.
func signIn(t *testing.T, a *plannertest.App, smtp *mailtest.Server, email string, n int) (access, refresh string) {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": email})
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	m := smtp.Next(t, n)
	require.Equal(t, []string{email}, m.To)
	link := m.Link()
	i := strings.Index(link, "/auth/verify/")
	require.Positive(t, i, "the mail carries a sign-in link: %s", m.Body)
	token := link[i+len("/auth/verify/"):]
	require.Len(t, token, 128, "64 random bytes, hex")
	res = a.Do(t, http.MethodPost, "/auth/verify", "", map[string]any{"token": token})
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	body := res.JSON(t)
	return body["token"].(string), body["refresh_token"].(string)
}

func refresh(t *testing.T, a *plannertest.App, tok string) *apptest.Response {
	t.Helper()
	return a.Do(t, http.MethodPost, "/auth/refresh", "", map[string]any{"refresh_token": tok})
}

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestSignInEndToEnd(t *testing.T) {
	onEngines(t, func(t *testing.T, engine apptest.Option) {
		a, smtp := signInApp(t, engine)
		ctx := context.Background()
		const email = "rider@example.com"
		_, err := a.Tokens.IssueToken(ctx, email, nil) // the user exists; no scopes: the token is refused
		require.Error(t, err)
		a.Token(t, email) // creates the user (invited earlier, say)

		// An unknown address gets the same answer and no mail.
		res := a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": "nobody@example.com"})
		require.Equal(t, http.StatusOK, res.Status)
		neutral := string(res.Body)

		access, refresh1 := signIn(t, a, smtp, email, 1)
		doortest.Settle(t)
		require.Empty(t, smtp.To("nobody@example.com"), "no mail for an unknown address")

		// A second request while the link was pending... it was consumed:
		// the link cannot be used twice.
		link := smtp.Messages()[0].Link()
		token := link[strings.LastIndex(link, "/")+1:]
		res = a.Do(t, http.MethodPost, "/auth/verify", "", map[string]any{"token": token})
		require.Equal(t, http.StatusUnauthorized, res.Status, "a consumed link: %s", res.Body)

		// The token works on both faces, with its scopes.
		res = a.Do(t, http.MethodGet, "/trips", access, nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		session := a.MCP(t, access)
		out := apptest.Call(t, session, "list_trips", map[string]any{})
		require.False(t, out.IsError, out.Text)
		res = a.Do(t, http.MethodGet, "/users/me", access, nil)
		require.Equal(t, http.StatusOK, res.Status)
		require.Equal(t, email, res.JSON(t)["email"])

		// Rotation: a successor; a replay inside the grace gets the same one.
		res = refresh(t, a, refresh1)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		refresh2 := res.JSON(t)["refresh_token"].(string)
		require.NotEqual(t, refresh1, refresh2)
		res = refresh(t, a, refresh1)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		require.Equal(t, refresh2, res.JSON(t)["refresh_token"], "a replay inside the grace answers the same successor")
		// The grace is over (its end moved to the past rather than waited for).
		_, err = a.DB.NewUpdate().Table("refresh_tokens").Set("expires_at = ?", time.Now().Add(-time.Second)).
			Where("digest = ?", digestOf(refresh1)).Exec(ctx)
		require.NoError(t, err)
		res = refresh(t, a, refresh1)
		require.Equal(t, http.StatusUnauthorized, res.Status, "a replay after the grace: %s", res.Body)

		// Logging out ends the session: the refresh token and the access token are refused.
		res = a.Do(t, http.MethodPost, "/auth/logout", access, nil)
		require.Equal(t, http.StatusNoContent, res.Status, string(res.Body))
		require.Equal(t, http.StatusUnauthorized, refresh(t, a, refresh2).Status)
		require.Equal(t, http.StatusUnauthorized, a.Do(t, http.MethodGet, "/trips", access, nil).Status)

		// Asking again is neutral whatever happens; a fresh link arrives.
		res = a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": email})
		require.Equal(t, http.StatusOK, res.Status)
		require.Equal(t, neutral, string(res.Body), "one neutral text")
		link = smtp.Next(t, 2).Link()
		// That link expires unused (its end moved to the past): refused.
		_, err = a.DB.NewUpdate().Table("magic_links").Set("expires_at = ?", time.Now().Add(-time.Second)).
			Where("consumed_at IS NULL").Exec(ctx)
		require.NoError(t, err)
		res = a.Do(t, http.MethodPost, "/auth/verify", "", map[string]any{"token": link[strings.LastIndex(link, "/")+1:]})
		require.Equal(t, http.StatusUnauthorized, res.Status, "an expired link: %s", res.Body)
	})
}

func TestSignInRefusesBadInput(t *testing.T) {
	a, smtp := signInApp(t, nil)
	for _, tc := range []struct {
		name, path string
		body       any
		field      string
	}{
		{"blank email", "/auth/request-link", map[string]any{"email": " "}, "email"},
		{"malformed email", "/auth/request-link", map[string]any{"email": "not-an-address"}, "email"},
		{"blank token", "/auth/verify", map[string]any{"token": ""}, "token"},
		{"blank refresh token", "/auth/refresh", map[string]any{"refresh_token": ""}, "refresh_token"},
		{"malformed access email", "/access-requests", map[string]any{"email": "a@"}, "email"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := a.Do(t, http.MethodPost, tc.path, "", tc.body)
			require.Equal(t, http.StatusUnprocessableEntity, res.Status, string(res.Body))
			require.Contains(t, string(res.Body), `"field":"`+tc.field+`"`)
		})
	}
	for _, tc := range []struct{ name, token string }{
		{"unknown link", strings.Repeat("ab", 64)},
		{"foreign garbage", "x"},
	} {
		res := a.Do(t, http.MethodPost, "/auth/verify", "", map[string]any{"token": tc.token})
		require.Equal(t, http.StatusUnauthorized, res.Status, "%s: %s", tc.name, res.Body)
	}
	res := a.Do(t, http.MethodPost, "/auth/request-link", "", `{"email":"`+strings.Repeat("a", 2<<20)+`@example.com"}`)
	require.Equal(t, http.StatusRequestEntityTooLarge, res.Status)
	require.Empty(t, smtp.Messages(), "no mail for a refused request")
	n, err := a.DB.NewSelect().Table("magic_links").Count(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "nothing written")
}

func TestSignInLimitIsSilent(t *testing.T) {
	a, smtp := signInApp(t, nil)
	const email = "quiet@example.com"
	a.Token(t, email)
	var bodies []string
	for range 5 {
		// Each link is consumed at once, so every request within the limit mails one.
		res := a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": email})
		require.Equal(t, http.StatusOK, res.Status)
		require.Empty(t, res.Header.Get("Retry-After"))
		bodies = append(bodies, string(res.Body))
		doortest.Settle(t) // the link is mailed off the request path
		if ms := smtp.Messages(); len(ms) > 0 {
			_, err := a.DB.NewUpdate().Table("magic_links").Set("consumed_at = ?", time.Now()).Where("consumed_at IS NULL").Exec(context.Background())
			require.NoError(t, err)
		}
	}
	for _, b := range bodies {
		require.Equal(t, bodies[0], b, "the same neutral answer over the limit")
	}
	smtp.Next(t, 3)
	require.Len(t, smtp.To(email), 3, "3 per 15 minutes per email: the 4th and 5th mailed nothing")
}

func TestAccountDeletionRefusesLiveTokens(t *testing.T) {
	onEngines(t, func(t *testing.T, engine apptest.Option) {
		a, smtp := signInApp(t, engine)
		const email = "leaving@example.com"
		a.Token(t, email)
		mine, _ := signIn(t, a, smtp, email, 1)
		// Another client of the same person holds its own live session.
		smtpOther := 2
		theirs, theirRefresh := signIn(t, a, smtp, email, smtpOther)
		res := a.Do(t, http.MethodPost, "/trips", theirs, map[string]any{"sourceUrl": plannertest.StravaRoute(120)}, "Idempotency-Key", "delete-account-trip-0001")
		require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))

		res = doortest.DeleteAccount(t, a.App, mine, "Cookie", "refresh_token=whatever-the-front-kept")
		require.Equal(t, http.StatusNoContent, res.Status, string(res.Body))
		require.Contains(t, res.Header.Get("Set-Cookie"), "refresh_token=;", "the refresh cookie is cleared")
		require.Contains(t, res.Header.Get("Set-Cookie"), "Max-Age=0")

		require.Equal(t, http.StatusUnauthorized, a.Do(t, http.MethodGet, "/trips", theirs, nil).Status, "the other client's token")
		require.Equal(t, http.StatusUnauthorized, refresh(t, a, theirRefresh).Status, "the other client's refresh token")
		require.Equal(t, http.StatusUnauthorized, a.Do(t, http.MethodGet, "/users/me", mine, nil).Status)
		var rows []struct {
			Email  string `bun:"email"`
			Roles  string `bun:"roles"`
			Locale string `bun:"locale"`
		}
		require.NoError(t, a.DB.NewSelect().Table("users").Column("email", "roles", "locale").Where("deleted_at IS NOT NULL").Scan(context.Background(), &rows))
		require.Len(t, rows, 1)
		require.True(t, strings.HasSuffix(rows[0].Email, "@deleted.invalid"))
		require.Empty(t, rows[0].Roles)
		require.Equal(t, "fr", rows[0].Locale)
		n, err := a.DB.NewSelect().Table("trips").Count(context.Background())
		require.NoError(t, err)
		require.Zero(t, n, "the account's trips are gone")
		// The address is unknown now: asking for a link mails nothing.
		before := len(smtp.Messages())
		require.Equal(t, http.StatusOK, a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": email}).Status)
		doortest.Settle(t)
		require.Len(t, smtp.Messages(), before)
	})
}

func TestSignInUnderConcurrency(t *testing.T) {
	onEngines(t, func(t *testing.T, engine apptest.Option) {
		a, smtp := signInApp(t, engine)
		const email = "racer@example.com"
		a.Token(t, email)
		const n = 6

		// One link, verified by several clients at once: one session.
		res := a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": email})
		require.Equal(t, http.StatusOK, res.Status)
		link := smtp.Next(t, 1).Link()
		token := link[strings.LastIndex(link, "/")+1:]
		statuses := make(chan int, n)
		bodies := make(chan map[string]any, n)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				res := a.Do(t, http.MethodPost, "/auth/verify", "", map[string]any{"token": token})
				statuses <- res.Status
				if res.Status == http.StatusOK {
					bodies <- res.JSON(t)
				}
			})
		}
		wg.Wait()
		close(statuses)
		close(bodies)
		ok := 0
		for s := range statuses {
			require.Contains(t, []int{http.StatusOK, http.StatusUnauthorized}, s)
			if s == http.StatusOK {
				ok++
			}
		}
		require.Equal(t, 1, ok, "a link is consumed once")
		first := (<-bodies)["refresh_token"].(string)

		// One refresh token, rotated by several clients at once: one successor.
		successors := make(chan string, n)
		for range n {
			wg.Go(func() {
				res := refresh(t, a, first)
				require.Equal(t, http.StatusOK, res.Status, string(res.Body))
				successors <- res.JSON(t)["refresh_token"].(string)
			})
		}
		wg.Wait()
		close(successors)
		seen := map[string]bool{}
		for s := range successors {
			seen[s] = true
		}
		require.Len(t, seen, 1, "concurrent refreshes yield one successor")
		rows, err := a.DB.NewSelect().Table("refresh_tokens").Count(context.Background())
		require.NoError(t, err)
		require.EqualValues(t, 2, rows, "the first token and its one successor; the losers' successors were undone")
	})
}
