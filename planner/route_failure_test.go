package planner_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
)

// reasonOf is the reason a problem gives for field, "" when it names none.
func reasonOf(problem map[string]any, field string) string {
	vs, _ := problem["violations"].([]any)
	for _, v := range vs {
		if m, ok := v.(map[string]any); ok && m["field"] == field {
			r, _ := m["reason"].(string)
			return r
		}
	}
	return ""
}

// TestCreateRefusesAnUnsupportedAddress: an https address that is no route
// of a supported provider is refused at creation (422 naming sourceUrl),
// on both faces, with the providers and the address forms they take;
// nothing is written. A new address in the settings is judged alike.
func TestCreateRefusesAnUnsupportedAddress(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	for _, give := range []string{
		"https://maps.app.goo.gl/Xk2fQ9",
		"https://www.google.com/maps/dir/Lyon/Annecy",
		"https://www.komoot.com/user/12345",
		"https://www.strava.com/activities/123",
	} {
		e := newEnv(t, a)
		res := a.Do(t, "POST", "/trips", e.token, map[string]any{"sourceUrl": give}, operations.HeaderIdempotencyKey, key())
		require.Equal(t, http.StatusUnprocessableEntity, res.Status, "%s: %s", give, res.Body)
		why := reasonOf(res.JSON(t), "sourceUrl")
		for _, word := range []string{"Komoot", "Strava", "RideWithGPS", "komoot.com/tour/", "strava.com/routes/", "ridewithgps.com/routes/"} {
			require.Contains(t, why, word, "%s: the reason names the providers and their forms", give)
		}

		got := apptest.Call(t, e.mcp, "create_trip", map[string]any{"sourceUrl": give})
		require.True(t, got.IsError, "%s: %s", give, got.Text)
		require.Contains(t, got.Text, "sourceUrl", give)
		require.Contains(t, got.Text, "strava.com/routes/", give)
		require.EqualValues(t, 0, a.Do(t, "GET", "/trips", e.token, nil).JSON(t)["totalItems"], "%s: nothing was written", give)
	}

	e := newEnv(t, a)
	id := e.trip(t, nil)
	res := a.Do(t, "PATCH", "/trips/"+id, e.token, map[string]any{"sourceUrl": "https://maps.app.goo.gl/Xk2fQ9"}, "If-Match", `"1"`)
	require.Equal(t, http.StatusUnprocessableEntity, res.Status, string(res.Body))
	require.Contains(t, reasonOf(res.JSON(t), "sourceUrl"), "strava.com/routes/")
}

// TestARouteFailureSaysWhy: when the route cannot be imported, get_trip
// gives a specific failure code and words on both faces: a route the
// provider does not have, an address no provider serves (a trip stored
// before addresses were judged), a provider that kept failing.
func TestARouteFailureSaysWhy(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	missing := e.trip(t, map[string]any{"sourceUrl": plannertest.StravaRoute(404)})
	a.WaitSettled(t, e.token, missing)

	// The other two are told by what the import recorded of its failure.
	failed := statusJSON("failed", "failed", "failed")
	recorded := func(code string) string {
		id := e.trip(t, nil)
		a.WaitSettled(t, e.token, id)
		status(t, a, id, failed)
		_, err := a.DB.NewUpdate().Table("computations").Set("status = 'failed'").Set("error = ?", code).
			Where("trip_id = ? AND name = 'route'", id).Exec(context.Background())
		require.NoError(t, err)
		return id
	}
	for _, tt := range []struct {
		name, id, code, says string
	}{
		{"not at the provider", missing, "route_not_found", "not found at"},
		{"unsupported", recorded("route_unsupported"), "route_unsupported", "strava.com/routes/"},
		{"the provider failing", recorded("provider_failed"), "provider_failed", "try again"},
	} {
		for face, body := range e.faces(t, tt.id) {
			require.Equal(t, false, body["partial"], "%s, %s", tt.name, face)
			require.Equal(t, tt.code, body["failure"], "%s, %s: %v", tt.name, face, body)
			require.Contains(t, body["note"], tt.says, "%s, %s", tt.name, face)
			require.NotContains(t, body["note"], "could not be imported or cut", "%s, %s: not the one generic text", tt.name, face)
		}
	}
}
