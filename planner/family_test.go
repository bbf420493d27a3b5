package planner_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/planner/plannertest"
)

// pastGrace moves the use of a spent refresh token of table to before its
// grace, rather than waiting for it.
func pastGrace(t *testing.T, a *plannertest.App, table, token string) {
	t.Helper()
	_, err := a.DB.NewUpdate().Table(table).Set("used_at = ?", time.Now().UTC().Add(-accounts.RefreshGrace-time.Second)).
		Where("digest = ?", digestOf(token)).Exec(context.Background())
	require.NoError(t, err)
}

// parallel presents the same refresh token n times at once.
func parallel(n int, f func() (int, string, string)) (statuses []int, accesses, refreshes []string) {
	statuses, accesses, refreshes = make([]int, n), make([]string, n), make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i], accesses[i], refreshes[i] = f()
		}()
	}
	wg.Wait()
	return statuses, accesses, refreshes
}

// TestOAuthRefreshFamily: three parallel refreshes of one token at the
// access token's expiry all succeed with one successor and the grant
// survives; a replay after the grace ends the family, its newest refresh
// token and every access token minted in it.
func TestOAuthRefreshFamily(t *testing.T) {
	onEngines(t, func(t *testing.T, engine apptest.Option) {
		a, b := signedIn(t, engine)
		redirect := "http://127.0.0.1:5000/cb"
		c := &oauthClient{t: t, a: a, b: b, id: register(t, a, redirect), redirect: redirect,
			verifier: strings.Repeat("v", 50), scope: "trips:read", resource: a.URL + "/mcp"}
		status, body := c.exchange(c.code())
		require.Equal(t, http.StatusOK, status, body)
		first, refresh0 := body["access_token"].(string), body["refresh_token"].(string)
		_, err := a.DB.NewUpdate().Table("access_tokens").Set("expires_at = ?", time.Now().UTC().Add(-time.Second)).
			Where("token_hash = ?", digestOf(first)).Exec(context.Background())
		require.NoError(t, err)

		refreshWith := func(tok string) func() (int, string, string) {
			return func() (int, string, string) {
				status, body := c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok}, "client_id": {c.id}})
				access, _ := body["access_token"].(string)
				next, _ := body["refresh_token"].(string)
				return status, access, next
			}
		}
		statuses, accesses, successors := parallel(3, refreshWith(refresh0))
		for i := range statuses {
			require.Equal(t, http.StatusOK, statuses[i], "parallel refresh %d", i)
			require.Equal(t, successors[0], successors[i], "one successor for the parallel refreshes")
			st, _ := mcpStatus(t, a, accesses[i], "list_trips")
			require.Equal(t, http.StatusOK, st, "access token %d works", i)
		}
		// The grant survives: its successor refreshes again.
		status, newest, next := refreshWith(successors[0])()
		require.Equal(t, http.StatusOK, status)
		st, _ := mcpStatus(t, a, newest, "list_trips")
		require.Equal(t, http.StatusOK, st)

		// After the grace, the first token presented again ends the family.
		pastGrace(t, a, "oauth_refresh_tokens", refresh0)
		status, _, _ = refreshWith(refresh0)()
		require.Equal(t, http.StatusBadRequest, status, "a replay after the grace")
		status, _, _ = refreshWith(next)()
		require.Equal(t, http.StatusBadRequest, status, "the family's newest refresh token is refused")
		for i, access := range append(accesses, newest) {
			st, _ := mcpStatus(t, a, access, "list_trips")
			require.Equal(t, http.StatusUnauthorized, st, "access token %d of the family is revoked", i)
		}
		require.Zero(t, rows(t, a, "oauth_refresh_tokens", "client_id = ? AND expires_at > ?", c.id, time.Now().UTC()), "none of the family's refresh tokens is live")
	})
}

// TestOAuthRevocation: revoking a refresh token ends its family, access
// tokens included; a client revokes only its own tokens.
func TestOAuthRevocation(t *testing.T) {
	onEngines(t, func(t *testing.T, engine apptest.Option) {
		a, b := signedIn(t, engine)
		redirect := "http://127.0.0.1:5000/cb"
		c := &oauthClient{t: t, a: a, b: b, id: register(t, a, redirect), redirect: redirect,
			verifier: strings.Repeat("v", 50), scope: "trips:read", resource: a.URL + "/mcp"}
		other := register(t, a, redirect)
		status, body := c.exchange(c.code())
		require.Equal(t, http.StatusOK, status, body)
		access, refreshTok := body["access_token"].(string), body["refresh_token"].(string)

		for _, tc := range []struct {
			name   string
			form   url.Values
			status int
			code   string
		}{
			{"no client_id", url.Values{"token": {refreshTok}}, http.StatusUnauthorized, "invalid_client"},
			{"another client's refresh token", url.Values{"token": {refreshTok}, "client_id": {other}}, http.StatusBadRequest, "unauthorized_client"},
			{"another client's access token", url.Values{"token": {access}, "client_id": {other}}, http.StatusBadRequest, "unauthorized_client"},
		} {
			status, body := c.post("/oauth/revoke", tc.form)
			require.Equal(t, tc.status, status, "%s: %v", tc.name, body)
			require.Equal(t, tc.code, body["error"], tc.name)
			st, _ := mcpStatus(t, a, access, "list_trips")
			require.Equal(t, http.StatusOK, st, "%s: nothing revoked", tc.name)
		}
		status, _ = c.post("/oauth/revoke", url.Values{"token": {"unknown"}, "client_id": {c.id}})
		require.Equal(t, http.StatusOK, status, "an unknown token is no error")

		status, _ = c.post("/oauth/revoke", url.Values{"token": {refreshTok}, "client_id": {c.id}})
		require.Equal(t, http.StatusOK, status)
		st, _ := mcpStatus(t, a, access, "list_trips")
		require.Equal(t, http.StatusUnauthorized, st, "revoking the refresh token ends its access token")
		status, _ = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshTok}, "client_id": {c.id}})
		require.Equal(t, http.StatusBadRequest, status)
	})
}

// TestSignInRefreshFamily: the same family rule for sign-in's refresh
// tokens.
func TestSignInRefreshFamily(t *testing.T) {
	onEngines(t, func(t *testing.T, engine apptest.Option) {
		a, smtp := signInApp(t, engine)
		const email = "family@example.com"
		a.Token(t, email)
		first, refresh0 := signIn(t, a, smtp, email, 1)
		refreshWith := func(tok string) func() (int, string, string) {
			return func() (int, string, string) {
				res := refresh(t, a, tok)
				if res.Status != http.StatusOK {
					return res.Status, "", ""
				}
				body := res.JSON(t)
				return res.Status, body["token"].(string), body["refresh_token"].(string)
			}
		}
		statuses, accesses, successors := parallel(3, refreshWith(refresh0))
		for i := range statuses {
			require.Equal(t, http.StatusOK, statuses[i], "parallel refresh %d", i)
			require.Equal(t, successors[0], successors[i], "one successor for the parallel refreshes")
			require.Equal(t, http.StatusOK, a.Do(t, http.MethodGet, "/trips", accesses[i], nil).Status)
		}
		status, newest, next := refreshWith(successors[0])()
		require.Equal(t, http.StatusOK, status, "the session survives")

		pastGrace(t, a, "refresh_tokens", refresh0)
		status, _, _ = refreshWith(refresh0)()
		require.Equal(t, http.StatusUnauthorized, status, "a replay after the grace")
		status, _, _ = refreshWith(next)()
		require.Equal(t, http.StatusUnauthorized, status, "the family's newest refresh token is refused")
		for i, access := range append(append(accesses, first), newest) {
			require.Equal(t, http.StatusUnauthorized, a.Do(t, http.MethodGet, "/trips", access, nil).Status, "access token %d of the family", i)
		}
	})
}
