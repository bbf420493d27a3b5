package planner_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
)

// call is a tool call that must succeed.
func call(t *testing.T, e env, tool string, args map[string]any) map[string]any {
	t.Helper()
	r := apptest.Call(t, e.mcp, tool, args)
	require.False(t, r.IsError, "%s: %s", tool, r.Text)
	return r.Structured
}

func version(m map[string]any) float64 { return m["version"].(float64) }

func days(t *testing.T, e env, id string) []map[string]any {
	var out []map[string]any
	for _, d := range call(t, e, "get_trip", map[string]any{"id": id})["days"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

// campsiteAt puts a camp site in the local points-of-interest store at p.
func campsiteAt(t *testing.T, a *plannertest.App, lat, lon float64) {
	require.NoError(t, poi.NewStore(a.DB).Upsert(context.Background(), []poi.POI{{
		ID: poi.OSMKey("node", 4242), Source: "osm", OSMType: "node", OSMID: 4242, Name: "Camping du Lac",
		Category: "camp_site", Lat: lat, Lon: lon, Tags: poi.Tags{"website": "https://camping.example"},
	}}))
}

// TestAgentSession drives, over MCP, what an agent does with a trip: create
// it, wait for its days, edit each way, detour, choose where to sleep,
// share, unshare and delete through their confirmations.
func TestAgentSession(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		created := call(t, e, "create_trip", map[string]any{"sourceUrl": plannertest.StravaRoute(240),
			"startDate": day(20), "endDate": day(22), "maxDistancePerDay": 120})
		require.Contains(t, created["next"], "get_trip")
		id := created["id"].(string)
		a.WaitSettled(t, e.token, id)
		trip := call(t, e, "get_trip", map[string]any{"id": id})
		require.Equal(t, false, trip["partial"])
		v := version(trip)
		ds := days(t, e, id)
		require.Len(t, ds, 3)

		// edit_stages, each action: one tool, one version bump each.
		edit := func(args map[string]any) map[string]any {
			args["id"], args["version"] = id, v
			out := call(t, e, "edit_stages", args)
			require.Equal(t, v+1, version(out), "every write answers the new version")
			v = version(out)
			return out
		}
		missing := apptest.Call(t, e.mcp, "edit_stages", map[string]any{"id": id, "version": v, "action": "move", "stageId": ds[0]["id"]})
		require.True(t, missing.IsError)
		require.Contains(t, fields(missing.Structured), "toIndex", "a missing branch field is named")

		edit(map[string]any{"action": "update", "stageId": ds[0]["id"], "label": "Along the lake"})
		added := edit(map[string]any{"action": "add", "startPoint": map[string]any{"lat": 0, "lon": 2.16}, "endPoint": map[string]any{"lat": 0, "lon": 2.3}})
		newDay := added["stage"].(map[string]any)["id"]
		edit(map[string]any{"action": "move", "stageId": newDay, "toIndex": 0})
		rest := edit(map[string]any{"action": "rest_day", "stageId": ds[1]["id"]})
		edit(map[string]any{"action": "delete", "stageId": rest["stage"].(map[string]any)["id"]})
		edit(map[string]any{"action": "delete", "stageId": newDay})
		require.Len(t, days(t, e, id), 3)
		require.Equal(t, "Along the lake", days(t, e, id)[0]["label"])

		// add_waypoint answers no version; the version held stays good.
		detour := call(t, e, "add_waypoint", map[string]any{"id": id, "stageId": ds[0]["id"], "waypointLat": 0.002, "waypointLon": 0.3})
		require.NotContains(t, detour, "version")
		require.Equal(t, true, detour["approximate"], "the default router draws straight lines and says so")
		require.Contains(t, detour["note"], "still good")

		// Choose where to sleep: a camp site near the first day's end.
		end := call(t, e, "get_stage", map[string]any{"id": id, "stageId": ds[0]["id"]})["endPoint"].(map[string]any)
		campsiteAt(t, a, end["lat"].(float64)+0.001, end["lon"].(float64))
		a.WaitSettled(t, e.token, id) // the edits re-ran the terrain analysis; analyze_trip refuses while one runs
		call(t, e, "analyze_trip", map[string]any{"id": id})
		a.WaitSettled(t, e.token, id)
		stage := apptest.Call(t, e.mcp, "get_stage", map[string]any{"id": id, "stageId": ds[0]["id"]})
		require.Contains(t, stage.Text, "third parties", "third-party names are marked as data")
		cands := stage.Structured["accommodations"].([]any)
		require.NotEmpty(t, cands)
		c := cands[0].(map[string]any)
		choice := map[string]any{"id": id, "stageId": ds[0]["id"], "version": v, "accommodationId": c["id"]}
		chosen := call(t, e, "choose_accommodation", choice)
		require.Equal(t, v+1, version(chosen))
		again := apptest.Call(t, e.mcp, "choose_accommodation", choice)
		require.True(t, again.IsError, "a repeat is refused: the version moved")
		require.EqualValues(t, http.StatusPreconditionFailed, again.Structured["status"])
		require.Equal(t, "Camping du Lac", days(t, e, id)[0]["accommodation"])

		// Share: a public address and a GPX link that need no token.
		shared := call(t, e, "share_trip", map[string]any{"id": id})
		require.Len(t, shared["shortCode"], 8)
		require.True(t, strings.HasPrefix(shared["url"].(string), a.URL+"/s/"), "an absolute address: %v", shared["url"])
		require.Equal(t, http.StatusOK, a.Do(t, "GET", strings.TrimPrefix(shared["url"].(string), a.URL), "", nil).Status)
		gpxFile := a.Do(t, "GET", strings.TrimPrefix(shared["gpxUrl"].(string), a.URL), "", nil)
		require.Equal(t, http.StatusOK, gpxFile.Status)
		require.Contains(t, string(gpxFile.Body), "<gpx")
		require.True(t, apptest.Call(t, e.mcp, "share_trip", map[string]any{"id": id}).IsError, "one active share at a time")

		// Unshare and delete, each through its confirmation.
		confirm := func(tool string) {
			ask := call(t, e, tool, map[string]any{"id": id})
			token := ask["confirmation"].(map[string]any)["confirmationToken"]
			call(t, e, tool, map[string]any{"id": id, "confirmationToken": token})
		}
		confirm("unshare_trip")
		require.Equal(t, http.StatusNotFound, a.Do(t, "GET", strings.TrimPrefix(shared["url"].(string), a.URL), "", nil).Status, "revocation is immediate")
		confirm("delete_trip")
		gone := apptest.Call(t, e.mcp, "get_trip", map[string]any{"id": id})
		require.True(t, gone.IsError)
		require.EqualValues(t, http.StatusNotFound, gone.Structured["status"])
	})
}

// TestAppSession is the same flow over HTTP, as an app drives it.
func TestAppSession(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		res := a.Do(t, "POST", "/trips", e.token, map[string]any{"sourceUrl": plannertest.StravaRoute(240),
			"startDate": day(20), "endDate": day(22), "maxDistancePerDay": 120}, operations.HeaderIdempotencyKey, key())
		require.Equal(t, http.StatusAccepted, res.Status)
		id := res.JSON(t)["id"].(string)
		a.WaitSettled(t, e.token, id)
		detail := a.Do(t, "GET", "/trips/"+id+"/detail", e.token, nil)
		etag := detail.Header.Get("ETag")
		first := detail.JSON(t)["days"].([]any)[0].(map[string]any)["id"].(string)

		step := func(method, path string, body any, want int) *apptest.Response {
			r := a.Do(t, method, path, e.token, body, "If-Match", etag)
			require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
			if tag := r.Header.Get("ETag"); tag != "" {
				etag = tag
			}
			return r
		}
		step("PATCH", "/trips/"+id+"/stages/"+first, map[string]any{"label": "Along the lake"}, http.StatusAccepted)
		added := step("POST", "/trips/"+id+"/stages", map[string]any{"startPoint": map[string]any{"lat": 0, "lon": 2.16}, "endPoint": map[string]any{"lat": 0, "lon": 2.3}}, http.StatusAccepted)
		newDay := added.JSON(t)["stage"].(map[string]any)["id"].(string)
		step("PATCH", "/trips/"+id+"/stages/"+newDay+"/move", map[string]any{"toIndex": 0}, http.StatusAccepted)
		rest := step("POST", "/trips/"+id+"/stages/"+first+"/rest-day", nil, http.StatusAccepted)
		step("DELETE", "/trips/"+id+"/stages/"+rest.JSON(t)["stage"].(map[string]any)["id"].(string), nil, http.StatusNoContent)
		step("DELETE", "/trips/"+id+"/stages/"+newDay, nil, http.StatusNoContent)
		step("POST", "/trips/"+id+"/stages/"+first+"/poi-waypoint", map[string]any{"waypointLat": 0.002, "waypointLon": 0.3}, http.StatusOK)

		share := a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil)
		require.Equal(t, http.StatusCreated, share.Status)
		require.Equal(t, http.StatusConflict, a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil).Status)
		code := share.JSON(t)["shortCode"].(string)
		require.Equal(t, http.StatusOK, a.Do(t, "GET", "/s/"+code+".fit", "", nil).Status)
		ask := a.Do(t, "DELETE", "/trips/"+id+"/share", e.token, nil)
		require.Equal(t, http.StatusConflict, ask.Status)
		require.Equal(t, http.StatusNoContent, a.Do(t, "DELETE", "/trips/"+id+"/share", e.token, nil,
			operations.HeaderConfirmationToken, ask.Header.Get(operations.HeaderConfirmationToken)).Status)
		require.Equal(t, http.StatusNotFound, a.Do(t, "GET", "/s/"+code, "", nil).Status)
		require.Equal(t, http.StatusCreated, a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil).Status, "a new share after a revocation")
	})
}
