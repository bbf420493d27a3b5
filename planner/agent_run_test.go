package planner_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/planner/plannertest"
)

// agent is a scripted MCP client that counts its calls. It only ever sends
// what earlier answers published (ids, versions, candidate ids, tokens), so
// any refusal it meets is one the server caused.
type agent struct {
	t     *testing.T
	e     env
	calls int // every call but the polls
	polls int
}

func (g *agent) call(tool string, args map[string]any) map[string]any {
	g.t.Helper()
	g.calls++
	r := apptest.Call(g.t, g.e.mcp, tool, args)
	require.False(g.t, r.IsError, "call %d, %s: a refusal the server caused: %s", g.calls, tool, r.Text)
	return r.Structured
}

// poll reads the trip until ready says so, as an agent told "read this
// trip again in 2 seconds" (retryAfter) does, only faster.
func (g *agent) poll(id string, ready func(trip map[string]any) bool) map[string]any {
	g.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		g.polls++
		r := apptest.Call(g.t, g.e.mcp, "get_trip", map[string]any{"id": id})
		require.False(g.t, r.IsError, "get_trip: %s", r.Text)
		if ready(r.Structured) {
			return r.Structured
		}
		require.True(g.t, time.Now().Before(deadline), "the trip never got ready: %v", r.Structured["computationStatus"])
		time.Sleep(50 * time.Millisecond)
	}
}

func settled(trip map[string]any) bool {
	for _, s := range trip["computationStatus"].(map[string]any) {
		if s == "pending" || s == "running" {
			return false
		}
	}
	return true
}

// campsitesAlong fills the place store with a camp site every 5 km beside
// the test routes (along the equator, eastwards from 0°), so that every
// day's end has one within reach.
func campsitesAlong(t *testing.T, a *plannertest.App, km int) {
	var pois []poi.POI
	for i := 0; i*5 <= km; i++ {
		id := int64(9000 + i)
		pois = append(pois, poi.POI{ID: poi.OSMKey("node", id), Source: "osm", OSMType: "node", OSMID: id,
			Name: "Camping du Lac", Category: "camp_site", Lat: 0.002, Lon: float64(i*5) / 111.32})
	}
	require.NoError(t, poi.NewStore(a.DB).Upsert(context.Background(), pois))
}

// TestScriptedAgentRun plans a trip as an agent does, through the tools
// alone: create, wait for the days, rename, read a day, add a rest day,
// detour, choose where to sleep by id, share, unshare and delete. No call
// is refused and the edits leave no gap the server made.
func TestScriptedAgentRun(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	campsitesAlong(t, a, 240)
	g := &agent{t: t, e: newEnv(t, a)}

	created := g.call("create_trip", map[string]any{"sourceUrl": plannertest.StravaRoute(240),
		"startDate": day(20), "maxDistancePerDay": 120})
	id := created["id"].(string)
	require.Contains(t, created["next"], "get_trip")
	trip := g.poll(id, func(tr map[string]any) bool { return tr["partial"] == false })

	listed := g.call("list_trips", map[string]any{})
	require.Equal(t, id, listed["member"].([]any)[0].(map[string]any)["id"])
	renamed := g.call("update_trip_settings", map[string]any{"id": id, "version": trip["version"], "title": "Along the equator"})
	require.NotContains(t, renamed, "confirmation", "a title loses nothing: no confirmation")

	trip = g.poll(id, settled)
	first := trip["days"].([]any)[0].(map[string]any)["id"].(string)
	stage := g.call("get_stage", map[string]any{"id": id, "stageId": first})
	cands := stage["accommodations"].([]any)
	require.NotEmpty(t, cands, "%v", stage["accommodationsNote"])

	rest := g.call("edit_stages", map[string]any{"id": id, "version": renamed["version"], "action": "rest_day", "stageId": first})
	require.Equal(t, true, rest["endDateMoved"], "the answer says the end date moved")
	detour := g.call("add_waypoint", map[string]any{"id": id, "stageId": first, "waypointLat": 0.01, "waypointLon": 0.5})
	require.Greater(t, detour["routeDistance"], 0.0)
	chosen := g.call("choose_accommodation", map[string]any{"id": id, "stageId": first, "version": rest["version"],
		"accommodationId": cands[0].(map[string]any)["id"]})

	trip = g.poll(id, settled)
	require.EqualValues(t, chosen["version"], trip["version"])
	for i, d := range trip["days"].([]any) {
		day := d.(map[string]any)
		if i == 0 {
			require.Equal(t, "Camping du Lac", day["accommodation"])
		}
		alerts, _ := day["alerts"].([]any)
		for _, al := range alerts {
			require.NotContains(t, al.(map[string]any)["code"], "continuity_gap", "day %d: a gap the server made", i+1)
		}
	}

	shared := g.call("share_trip", map[string]any{"id": id})
	require.Contains(t, shared["url"], "/s/")
	for _, tool := range []string{"unshare_trip", "delete_trip"} {
		ask := g.call(tool, map[string]any{"id": id})
		tok := ask["confirmation"].(map[string]any)["confirmationToken"]
		g.call(tool, map[string]any{"id": id, "confirmationToken": tok})
	}
	gone := apptest.Call(t, g.e.mcp, "get_trip", map[string]any{"id": id})
	require.True(t, gone.IsError, "deleted")

	t.Logf("%d calls and %d polls", g.calls, g.polls)
}
