package planner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/dialect"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner"
	"cairn.dev/cairn/planner/plannertest"
)

// dispatched counts the computations named name queued for trip id, in
// every state: a queued job stays listed after it ran.
func dispatched(t testing.TB, a *plannertest.App, id, name string) int {
	t.Helper()
	args := "args::text" // jsonb on PostgreSQL
	if a.DB.Dialect().Name() == dialect.SQLite {
		args = "json(args)" // SQLite keeps it as a JSONB blob
	}
	var rows []string
	require.NoError(t, a.DB.NewSelect().Table("river_job").ColumnExpr(args).
		Where("kind = ?", planner.ComputeArgs{}.Kind()).Scan(context.Background(), &rows))
	n := 0
	for _, raw := range rows {
		var job planner.ComputeArgs
		require.NoError(t, json.Unmarshal([]byte(raw), &job))
		if job.TripID == id && job.Name == name {
			n++
		}
	}
	return n
}

// TestConcurrentCreationsStartOnePipeline: creations sent at once by one
// user with one key and one body answer the same trip, the user lists one
// trip, and its import was queued once: one pipeline, not one per call.
func TestConcurrentCreationsStartOnePipeline(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		k := key()
		const n = 6
		var wg sync.WaitGroup
		statuses, ids := make([]int, n), make([]string, n)
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				res := a.Do(t, "POST", "/trips", e.token, map[string]any{"sourceUrl": plannertest.StravaRoute(120)},
					operations.HeaderIdempotencyKey, k)
				statuses[i] = res.Status
				ids[i], _ = res.JSON(t)["id"].(string)
			})
		}
		close(start)
		wg.Wait()
		for i := range n {
			require.Equal(t, http.StatusAccepted, statuses[i], "call %d", i)
			require.Equal(t, ids[0], ids[i], "call %d answers the same trip", i)
		}
		require.Equal(t, 1, e.tripCount(t), "the listing shows one trip")
		require.Equal(t, 1, dispatched(t, a, ids[0], "route"), "the import was queued once")
	})
}

// tables are the planner's stored rows a refused call must leave alone.
var tables = []string{"trips", "trip_routes", "stages", "computations", "trip_shares", "trip_scans", "idempotency_keys"}

// stored is a fingerprint of what is stored: every row count of tables and
// each trip's version, update time and statuses.
func stored(t testing.TB, a *plannertest.App) string {
	t.Helper()
	ctx := context.Background()
	out := ""
	for _, table := range tables {
		n, err := a.DB.NewSelect().Table(table).Count(ctx)
		require.NoError(t, err, table)
		out += fmt.Sprintf("%s=%d ", table, n)
	}
	var rows []struct {
		ID        string    `bun:"id"`
		Version   int64     `bun:"version"`
		UpdatedAt time.Time `bun:"updated_at"`
	}
	require.NoError(t, a.DB.NewSelect().Table("trips").Column("id", "version", "updated_at").Order("id").Scan(ctx, &rows))
	var statuses []struct {
		TripID string `bun:"trip_id"`
		Name   string `bun:"name"`
		Status string `bun:"status"`
	}
	require.NoError(t, a.DB.NewSelect().Table("computations").Column("trip_id", "name", "status").
		Order("trip_id", "name", "generation").Scan(ctx, &statuses))
	return out + fmt.Sprint(rows, statuses)
}

// TestBadInputOnTheNewOperationsWritesNothing sends each new operation the
// input it must refuse: an unknown day, a radius out of range, an empty
// list of modifications, a day missing where the kind needs one, a share
// code outside [A-Za-z0-9_-]. Each answers a problem naming the field (or
// "stage not found"), and nothing stored changes.
func TestBadInputOnTheNewOperationsWritesNothing(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, days, _ := e.days(t, 200, nil)
	a.WaitSettled(t, e.token, id)
	share := a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil)
	require.Equal(t, http.StatusCreated, share.Status, string(share.Body))
	code := share.JSON(t)["shortCode"].(string)
	mod := func(m ...map[string]any) map[string]any {
		list := make([]any, len(m))
		for i := range m {
			list[i] = m[i]
		}
		return map[string]any{"modifications": list}
	}
	trip := "/trips/" + id

	for _, tt := range []struct {
		name         string
		method, path string
		body         any
		status       int
		field        string // the field the problem names; "" for a 404
		says         string // a word of the problem's text
		key          bool   // the call is a creation and carries its key
	}{
		{"scan: unknown day", "POST", trip + "/accommodations/scan", map[string]any{"stageIndex": len(days)}, 422, "stageIndex", "", false},
		{"scan: negative day", "POST", trip + "/accommodations/scan", map[string]any{"stageIndex": -1}, 422, "stageIndex", "", false},
		{"scan: radius under 1 km", "POST", trip + "/accommodations/scan", map[string]any{"radiusKm": 0}, 422, "radiusKm", "", false},
		{"scan: radius over 15 km", "POST", trip + "/accommodations/scan", map[string]any{"radiusKm": 15.5}, 422, "radiusKm", "", false},
		{"recompute: no list", "POST", trip + "/recompute", map[string]any{}, 422, "modifications", "", false},
		{"recompute: empty list", "POST", trip + "/recompute", mod(), 422, "modifications", "", false},
		{"recompute: accommodation without its day", "POST", trip + "/recompute", mod(map[string]any{"type": "accommodation"}), 422, "modifications[0].stageIndex", "required", false},
		{"recompute: distance without its day", "POST", trip + "/recompute", mod(map[string]any{"type": "pacing"}, map[string]any{"type": "distance"}), 422, "modifications[1].stageIndex", "required", false},
		{"recompute: unknown day", "POST", trip + "/recompute", mod(map[string]any{"type": "distance", "stageIndex": 99}), 422, "modifications[0].stageIndex", "", false},
		{"nearby: unknown day", "POST", trip + "/nearby-pois", map[string]any{"category": "water", "position": map[string]any{"lat": 0.1, "lon": 0.1}, "stageDay": 99}, 422, "stageDay", "", false},
		{"nearby: radius not a number", "POST", trip + "/nearby-pois", map[string]any{"category": "water", "position": map[string]any{"lat": 0.1, "lon": 0.1}, "radiusMeters": "far"}, 422, "radiusMeters", "", false},
		{"duplicate: blank title", "POST", trip + "/duplicate", map[string]any{"title": " "}, 422, "title", "", true},
		{"day file: unknown day", "GET", trip + "/stages/0190a8b0-0000-7000-8000-000000000000/export.gpx", nil, 404, "", "stage not found", false},
		{"share day file: unknown day", "GET", "/s/" + code + "/stages/99.fit", nil, 404, "", "", false},
		{"share day file: index not a number", "GET", "/s/" + code + "/stages/one.gpx", nil, 400, "index", "", false},
		{"share: code with a star", "GET", "/s/ab*cd", nil, 400, "code", "[A-Za-z0-9_-]", false},
		{"share route: code with a dot", "GET", "/s/ab.cd/route", nil, 400, "code", "", false},
		{"share file: code with a space", "GET", "/s/ab%20cd.gpx", nil, 400, "code", "", false},
		{"reverse geocoding: no longitude", "GET", "/geocode/reverse?lat=47", nil, 422, "lon", "required", false},
		{"reverse geocoding: no latitude", "GET", "/geocode/reverse?lon=6", nil, 422, "lat", "required", false},
	} {
		before := stored(t, a)
		var h []string
		if tt.key {
			h = []string{operations.HeaderIdempotencyKey, key()}
		}
		res := a.Do(t, tt.method, tt.path, e.token, tt.body, h...)
		require.Equal(t, tt.status, res.Status, "%s: %s", tt.name, res.Body)
		require.Equal(t, "application/problem+json", res.Header.Get("Content-Type"), tt.name)
		if tt.field != "" {
			var p struct {
				Violations []struct{ Field, Reason string } `json:"violations"`
			}
			require.NoError(t, json.Unmarshal(res.Body, &p), tt.name)
			var fields []string
			for _, v := range p.Violations {
				fields = append(fields, v.Field)
				require.NotEmpty(t, v.Reason, "%s: %s is refused for a reason", tt.name, v.Field)
			}
			require.Contains(t, fields, tt.field, "%s names the field: %s", tt.name, res.Body)
		}
		if tt.says != "" {
			require.Contains(t, string(res.Body), tt.says, tt.name)
		}
		require.Equal(t, before, stored(t, a), "%s: nothing was written", tt.name)
	}
}

// TestAccountDeletionLeavesNothingOfTheAccount: after DELETE /users/me the
// account's trips, refresh tokens, magic links and the access requests of
// its address are gone, the address is deleted-{id}@deleted.invalid, and
// the old access and refresh tokens are refused.
func TestAccountDeletionLeavesNothingOfTheAccount(t *testing.T) {
	onEngines(t, func(t *testing.T, engine apptest.Option) {
		a, smtp := signInApp(t, engine)
		ctx := context.Background()
		const email = "gone@example.com"
		a.Token(t, email)
		access, refresh1 := signIn(t, a, smtp, email, 1)
		e := env{a: a, token: access}
		e.trip(t, nil)
		// A link asked for and never opened, and an access request of the address.
		require.Less(t, a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": email}).Status, 300)
		smtp.Next(t, 2)
		_, err := a.DB.ExecContext(ctx, "INSERT INTO access_requests (email, ip, status, created_at) VALUES (?, ?, ?, ?)",
			email, "192.0.2.1", "verified", time.Now())
		require.NoError(t, err)
		var id string
		require.NoError(t, a.DB.NewSelect().Table("users").Column("id").Where("email = ?", email).Scan(ctx, &id))
		count := func(table, where string, arg any) int {
			n, err := a.DB.NewSelect().Table(table).Where(where, arg).Count(ctx)
			require.NoError(t, err, table)
			return int(n)
		}
		require.Positive(t, count("trips", "user_id = ?", id))
		require.Positive(t, count("refresh_tokens", "user_id = ?", id))
		require.Positive(t, count("magic_links", "user_id = ?", id))

		res := doortest.DeleteAccount(t, a.App, access)
		require.Equal(t, http.StatusNoContent, res.Status, string(res.Body))

		require.Zero(t, count("trips", "user_id = ?", id), "its trips are gone")
		require.Zero(t, count("refresh_tokens", "user_id = ?", id), "its refresh tokens are gone")
		require.Zero(t, count("magic_links", "user_id = ?", id), "its magic links are gone")
		require.Zero(t, count("access_requests", "email = ?", email), "the access requests of its address are gone")
		var now string
		require.NoError(t, a.DB.NewSelect().Table("users").Column("email").Where("id = ?", id).Scan(ctx, &now))
		require.Equal(t, "deleted-"+id+"@deleted.invalid", now)
		require.Equal(t, http.StatusUnauthorized, a.Do(t, http.MethodGet, "/trips", access, nil).Status, "the old access token")
		require.Equal(t, http.StatusUnauthorized, refresh(t, a, refresh1).Status, "the old refresh token")
	})
}

// TestRecomputeIsLimitedPerTrip: ten recomputations a minute per trip; the
// eleventh on that trip is 429, while another trip of the same user still
// takes its own ten.
func TestRecomputeIsLimitedPerTrip(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	busy, _, _ := e.days(t, 120, nil)
	calm, _, _ := e.days(t, 120, nil)
	recompute := func(id string) *apptest.Response {
		return a.Do(t, "POST", "/trips/"+id+"/recompute", e.token, map[string]any{"modifications": []any{map[string]any{"type": "pacing"}}})
	}
	for i := range 10 {
		res := recompute(busy)
		require.Equal(t, http.StatusAccepted, res.Status, "call %d: %s", i+1, res.Body)
	}
	over := recompute(busy)
	require.Equal(t, http.StatusTooManyRequests, over.Status, string(over.Body))
	require.NotEmpty(t, over.Header.Get("Retry-After"))
	require.Equal(t, http.StatusAccepted, recompute(calm).Status, "another trip has its own count")
}
