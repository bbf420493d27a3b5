package planner_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
)

// TestDeleteThroughConfirmation: without a token nothing is written; the
// same call with the token acts, even with keys in another order; changed
// arguments or a reused token are refused.
func TestDeleteThroughConfirmation(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)

		// MCP: the confirmation is a result, and the repeat acts.
		id := e.trip(t, nil)
		first := apptest.Call(t, e.mcp, "delete_trip", map[string]any{"id": id})
		require.False(t, first.IsError, first.Text)
		conf := first.Structured["confirmation"].(map[string]any)
		token := conf["confirmationToken"].(string)
		require.NotEmpty(t, conf["impact"].(map[string]any)["loses"])
		require.Equal(t, http.StatusOK, a.Do(t, "GET", "/trips/"+id, e.token, nil).Status, "still there")

		other := e.trip(t, nil)
		moved := apptest.Call(t, e.mcp, "delete_trip", map[string]any{"id": other, "confirmationToken": token})
		require.True(t, moved.IsError, "a token bound to other arguments is refused")
		require.Equal(t, "confirmation_refused", moved.Structured["code"])

		done := apptest.Call(t, e.mcp, "delete_trip", map[string]any{"confirmationToken": token, "id": id})
		require.False(t, done.IsError, done.Text)
		require.Equal(t, true, done.Structured["deleted"])
		require.Equal(t, http.StatusNotFound, a.Do(t, "GET", "/trips/"+id, e.token, nil).Status)

		// HTTP: 409 with the token in a header; the repeat with it answers 204.
		res := a.Do(t, "DELETE", "/trips/"+other, e.token, nil)
		require.Equal(t, http.StatusConflict, res.Status)
		require.Equal(t, operations.ConfirmationType, res.JSON(t)["type"])
		tok := res.Header.Get(operations.HeaderConfirmationToken)
		require.NotEmpty(t, tok)
		require.Equal(t, http.StatusNoContent, a.Do(t, "DELETE", "/trips/"+other, e.token, nil, operations.HeaderConfirmationToken, tok).Status)
		reused := a.Do(t, "DELETE", "/trips/"+other, e.token, nil, operations.HeaderConfirmationToken, tok)
		require.Equal(t, http.StatusNotFound, reused.Status, "the trip is gone: the owner guard answers first")
	})
}

// TestUpdateSettingsFlow: version published, required, compared, bumped;
// the confirmation token is bound to the arguments in canonical form.
func TestUpdateSettingsFlow(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		id := e.trip(t, map[string]any{"startDate": day(10), "endDate": day(12)})
		patch := map[string]any{"maxDistancePerDay": 120, "fatigueFactor": 0.8}

		// HTTP: 428 without If-Match, 412 with a stale one.
		require.Equal(t, http.StatusPreconditionRequired, a.Do(t, "PATCH", "/trips/"+id, e.token, patch).Status)
		require.Equal(t, http.StatusPreconditionFailed, a.Do(t, "PATCH", "/trips/"+id, e.token, patch, "If-Match", `"9"`).Status)
		ask := a.Do(t, "PATCH", "/trips/"+id, e.token, patch, "If-Match", `"1"`)
		require.Equal(t, http.StatusConflict, ask.Status)
		impact := ask.JSON(t)["impact"].(map[string]any)
		require.Contains(t, impact["loses"].([]any)[0], "recut", "a pacing change says what it discards")

		// The same arguments with keys in another order carry the same token.
		reordered := `{"fatigueFactor":0.8,"maxDistancePerDay":120}`
		res := a.Do(t, "PATCH", "/trips/"+id, e.token, reordered, "If-Match", `"1"`,
			operations.HeaderConfirmationToken, ask.Header.Get(operations.HeaderConfirmationToken))
		require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
		require.Equal(t, `"2"`, res.Header.Get("ETag"))
		require.EqualValues(t, 2, res.JSON(t)["version"])

		// MCP: get_trip publishes the version; a stale one is refused.
		got := apptest.Call(t, e.mcp, "get_trip", map[string]any{"id": id})
		require.EqualValues(t, 2, got.Structured["version"])
		require.EqualValues(t, 120, got.Structured["settings"].(map[string]any)["maxDistancePerDay"])
		stale := apptest.Call(t, e.mcp, "update_trip_settings", map[string]any{"id": id, "version": 1, "averageSpeed": 20})
		require.True(t, stale.IsError)
		require.EqualValues(t, http.StatusPreconditionFailed, stale.Structured["status"])
		missing := apptest.Call(t, e.mcp, "update_trip_settings", map[string]any{"id": id, "averageSpeed": 20})
		require.EqualValues(t, http.StatusPreconditionRequired, missing.Structured["status"])

		q := apptest.Call(t, e.mcp, "update_trip_settings", map[string]any{"id": id, "version": 2, "maxDistancePerDay": 90})
		require.False(t, q.IsError, q.Text)
		tok := q.Structured["confirmation"].(map[string]any)["confirmationToken"].(string)
		ok := apptest.Call(t, e.mcp, "update_trip_settings", map[string]any{"maxDistancePerDay": 90, "version": 2, "id": id, "confirmationToken": tok})
		require.False(t, ok.IsError, ok.Text)
		require.EqualValues(t, 3, ok.Structured["version"], "every write answers the new version")

		// A speed loses nothing (no day is recut): it acts at once.
		fast := apptest.Call(t, e.mcp, "update_trip_settings", map[string]any{"id": id, "version": 3, "averageSpeed": 20})
		require.False(t, fast.IsError, fast.Text)
		require.NotContains(t, fast.Structured, "confirmation")
		require.EqualValues(t, 4, fast.Structured["version"])
	})
}

// TestLockJudgesTheStoredRecord: a trip that started yesterday stays locked
// even when the request moves its start date into the future, and lock is
// judged before the version (no confirmation token is issued).
func TestLockJudgesTheStoredRecord(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	for _, tt := range []struct {
		name  string
		start string
		want  bool
	}{{"yesterday", day(-1), true}, {"today", day(0), true}, {"tomorrow", day(1), false}} {
		id := e.trip(t, map[string]any{"startDate": tt.start})
		st := a.Do(t, "GET", "/trips/"+id, e.token, nil).JSON(t)
		require.Equal(t, tt.want, st["isLocked"], tt.name)
		res := a.Do(t, "PATCH", "/trips/"+id, e.token, map[string]any{"startDate": day(60)}, "If-Match", `"0"`)
		if tt.want {
			require.Equal(t, http.StatusLocked, res.Status, "%s: lock before precondition", tt.name)
			r := apptest.Call(t, e.mcp, "update_trip_settings", map[string]any{"id": id, "version": 1, "startDate": day(60)})
			require.True(t, r.IsError)
			require.EqualValues(t, http.StatusLocked, r.Structured["status"], "%s: no token for a refused call", tt.name)
		} else {
			require.Equal(t, http.StatusPreconditionFailed, res.Status, tt.name)
		}
	}
}

// TestCreationKeys: HTTP requires the header; MCP derives a key from the
// arguments, so a retry of the same call is the same trip.
func TestCreationKeys(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		body := map[string]any{"sourceUrl": "https://www.strava.com/routes/42"}
		tests := []struct {
			name string
			key  string
			want int
		}{
			{"missing", "", http.StatusBadRequest},
			{"15 characters", "123456789012345", http.StatusBadRequest},
			{"16 characters", "1234567890123456", http.StatusAccepted},
			{"255 characters", repeat("k", 255), http.StatusAccepted},
			{"256 characters", repeat("k", 256), http.StatusBadRequest},
		}
		for _, tt := range tests {
			var h []string
			if tt.key != "" {
				h = []string{operations.HeaderIdempotencyKey, tt.key}
			}
			res := a.Do(t, "POST", "/trips", e.token, body, h...)
			require.Equal(t, tt.want, res.Status, "%s: %s", tt.name, res.Body)
		}
		first := a.Do(t, "POST", "/trips", e.token, body, operations.HeaderIdempotencyKey, "1234567890123456")
		require.Equal(t, http.StatusAccepted, first.Status, "a replay answers 202 with the first trip")

		one := apptest.Call(t, e.mcp, "create_trip", map[string]any{"sourceUrl": "https://ridewithgps.com/routes/7", "ebikeMode": true})
		two := apptest.Call(t, e.mcp, "create_trip", map[string]any{"ebikeMode": true, "sourceUrl": "https://ridewithgps.com/routes/7"})
		require.Equal(t, one.Structured["id"], two.Structured["id"], "a retry with reordered arguments is the same creation")
		three := apptest.Call(t, e.mcp, "create_trip", map[string]any{"sourceUrl": "https://ridewithgps.com/routes/7", "idempotencyKey": "a-deliberate-second-trip"})
		require.NotEqual(t, one.Structured["id"], three.Structured["id"], "an explicit key is a new intent")
	})
}

func repeat(s string, n int) string {
	out := make([]byte, 0, n)
	for len(out) < n {
		out = append(out, s...)
	}
	return string(out[:n])
}

// TestElicitation: a client that supports elicitation is asked, and the
// write happens only on an explicit accept.
func TestElicitation(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	tok := a.Token(t, "asked@example.com", a.Server.Registry.Scopes()...)
	e := env{a: a, token: tok}
	for _, tt := range []struct {
		answer  string
		deleted bool
	}{{"decline", false}, {"cancel", false}, {"accept", true}} {
		var asked string
		s := a.MCP(t, tok, func(o *mcp.ClientOptions) {
			o.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = req.Params.Message
				return &mcp.ElicitResult{Action: tt.answer}, nil
			}
		})
		id := e.trip(t, nil)
		r := apptest.Call(t, s, "delete_trip", map[string]any{"id": id})
		require.Contains(t, asked, "cannot be undone", tt.answer)
		status := a.Do(t, "GET", "/trips/"+id, tok, nil).Status
		if tt.deleted {
			require.False(t, r.IsError, r.Text)
			require.Equal(t, http.StatusNotFound, status)
		} else {
			require.True(t, r.IsError, tt.answer)
			require.Equal(t, "confirmation_declined", r.Structured["code"])
			require.Equal(t, http.StatusOK, status, "%s: nothing was deleted", tt.answer)
		}
	}
}
