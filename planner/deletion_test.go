package planner_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/dialect"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/door"
	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/modules/mail"
	"cairn.dev/cairn/planner/plannertest"
)

// userColumns lists every table with a user_id column, but users itself.
func userColumns(t *testing.T, a *plannertest.App) []string {
	t.Helper()
	ctx := context.Background()
	var tables []string
	if a.DB.Dialect().Name() == dialect.PG {
		require.NoError(t, a.DB.NewRaw(`SELECT table_name FROM information_schema.columns
			WHERE column_name = 'user_id' AND table_schema = current_schema() ORDER BY table_name`).Scan(ctx, &tables))
	} else {
		require.NoError(t, a.DB.NewRaw(`SELECT m.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS c
			WHERE m.type = 'table' AND c.name = 'user_id' ORDER BY m.name`).Scan(ctx, &tables))
	}
	require.Contains(t, tables, "oauth_refresh_tokens", "the census sees every module's tables")
	return tables
}

// TestAccountDeletionLeavesNothing: after DELETE /users/me no row names
// the account (tokens of every kind, OAuth grants and authorization
// requests, the guards' idempotency keys, queued computations of its
// trips) and no kept mail goes to its address; the OAuth refresh token
// buys nothing.
func TestAccountDeletionLeavesNothing(t *testing.T) {
	onEngines(t, func(t *testing.T, engine apptest.Option) {
		var opts []apptest.Option
		if engine != nil {
			opts = append(opts, engine)
		}
		a := plannertest.New(t, opts...) // mail goes to the outbox
		const email = "gone@example.com"
		a.Token(t, email)
		access, session := doortest.SignIn(t, a.App, email)
		res := a.Do(t, http.MethodGet, "/users/me", access, nil)
		require.Equal(t, http.StatusOK, res.Status)
		userID := res.JSON(t)["userId"].(string)

		var tripIDs []string
		for i := range 2 {
			res := a.Do(t, http.MethodPost, "/trips", access, map[string]any{"sourceUrl": plannertest.StravaRoute(120 + i)},
				"Idempotency-Key", fmt.Sprintf("deletion-trip-key-%04d", i))
			require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
			tripIDs = append(tripIDs, res.JSON(t)["id"].(string))
		}
		// Settled first: a computation still running when the account goes
		// could enqueue its follow-up after the deletion's transaction.
		for _, id := range tripIDs {
			a.WaitSettled(t, access, id)
		}

		redirect := "http://127.0.0.1:5000/cb"
		c := &oauthClient{t: t, a: a, b: newPerson(t, session), id: register(t, a, redirect), redirect: redirect,
			verifier: strings.Repeat("v", 50), scope: "trips:read", resource: a.URL + "/mcp"}
		status, body := c.exchange(c.code())
		require.Equal(t, http.StatusOK, status, body)
		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {body["refresh_token"].(string)}, "client_id": {c.id}})
		require.Equal(t, http.StatusOK, status, body)
		oauthAccess, oauthRefresh := body["access_token"].(string), body["refresh_token"].(string)
		c.b.Pending(a.URL, c.authorizeURL(nil)) // an authorization request left pending

		tables := userColumns(t, a)
		named := func() map[string]int {
			out := map[string]int{}
			for _, table := range tables {
				if n := rows(t, a, table, "user_id = ?", userID); n > 0 {
					out[table] = n
				}
			}
			if n := rows(t, a, "river_job", "kind = 'trip_compute' AND ("+jobTrip(a)+") IN (?)", tripIDs[0], tripIDs[1]); n > 0 {
				out["river_job"] = n
			}
			ms, err := mail.NewOutbox(door.OutboxDir(a.Config), nil).List()
			require.NoError(t, err)
			for _, m := range ms {
				if m.To == email {
					out["outbox"]++
				}
			}
			return out
		}
		before := named()
		for _, what := range []string{"access_tokens", "refresh_tokens", "oauth_refresh_tokens", "oauth_authorizations", "idempotency_keys", "trips", "river_job", "outbox"} {
			require.Positive(t, before[what], "before the deletion, %s names the account: %v", what, before)
		}

		res = doortest.DeleteAccount(t, a.App, access)
		require.Equal(t, http.StatusNoContent, res.Status, string(res.Body))
		require.Empty(t, named(), "rows naming the deleted account")

		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {oauthRefresh}, "client_id": {c.id}})
		require.Equal(t, http.StatusBadRequest, status, "the OAuth refresh token is refused: %v", body)
		require.Equal(t, "invalid_grant", body["error"])
		st, _ := mcpStatus(t, a, oauthAccess, "list_trips")
		require.Equal(t, http.StatusUnauthorized, st)
	})
}

// jobTrip is the trip a queued computation names, on the app's engine.
func jobTrip(a *plannertest.App) string {
	if a.DB.Dialect().Name() == dialect.PG {
		return "args->>'trip_id'"
	}
	return "json_extract(args, '$.trip_id')"
}
