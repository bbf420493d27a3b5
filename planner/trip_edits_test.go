package planner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/planner/plannertest"
)

// ifMatch is the If-Match header naming version v.
func ifMatch(v float64) []string { return []string{"If-Match", fmt.Sprintf(`"%d"`, int64(v))} }

// stageOf reads one day in full over MCP.
func stageOf(t *testing.T, e env, id, stageID string) map[string]any {
	t.Helper()
	return call(t, e, "get_stage", map[string]any{"id": id, "stageId": stageID})
}

// pointOf reads a published coordinate.
func pointOf(m any) geo.Point {
	p := m.(map[string]any)
	return geo.Point{Lat: p["lat"].(float64), Lon: p["lon"].(float64)}
}

// daysComputing are the statuses a settings change leaves until the
// pipeline has cut the days again: a state a test can hold (with status)
// for as long as it needs.
var daysComputing = statusJSON("done", "pending", "pending")

// TestStageEditWhileDaysAreComputed: an edit of days that are about to be
// replaced is refused, with what to call next in each face's words, and
// nothing moves.
func TestStageEditWhileDaysAreComputed(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, ids, v := e.days(t, 200, nil)
	a.WaitSettled(t, e.token, id)
	status(t, a, id, daysComputing)

	res := a.Do(t, "POST", "/trips/"+id+"/stages/"+ids[0]+"/rest-day", e.token, nil, ifMatch(float64(*v))...)
	require.Equal(t, http.StatusConflict, res.Status, string(res.Body))
	body := res.JSON(t)
	require.Equal(t, "days_computing", body["code"])
	require.Contains(t, body["detail"], "GET /trips/", "HTTP says which request comes next")
	require.NotContains(t, body["detail"], "get_trip", "HTTP never names a tool")

	for _, args := range []map[string]any{
		{"action": "rest_day", "stageId": ids[0]},
		{"action": "add", "startPoint": map[string]any{"lat": 0, "lon": 1}, "endPoint": map[string]any{"lat": 0, "lon": 1.1}},
		{"action": "update", "stageId": ids[0], "label": "x"},
	} {
		args["id"], args["version"] = id, *v
		r := apptest.Call(t, e.mcp, "edit_stages", args)
		require.True(t, r.IsError, "%v: refused", args["action"])
		require.Equal(t, "days_computing", r.Structured["code"], args["action"])
		require.Contains(t, r.Text, "get_trip", "MCP says which tool comes next")
	}
	require.Equal(t, *v, *e.version(t, id), "nothing moved")
}

// TestDayCountMovesTheEndDate: adding a rest day or deleting a day moves
// the end date (one calendar day per day), and the answer says so.
func TestDayCountMovesTheEndDate(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, ids, v := e.days(t, 200, map[string]any{"startDate": day(30)})
	require.Len(t, ids, 3)
	a.WaitSettled(t, e.token, id)

	// HTTP: a rest day makes four days.
	res := a.Do(t, "POST", "/trips/"+id+"/stages/"+ids[0]+"/rest-day", e.token, nil, ifMatch(float64(*v))...)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	body := res.JSON(t)
	require.Equal(t, day(33), body["endDate"], "four days from the start")
	require.Equal(t, true, body["endDateMoved"])
	require.Contains(t, body["next"], day(33), "the words say where the end date went")

	// MCP: deleting a day makes three again.
	a.WaitSettled(t, e.token, id)
	out := call(t, e, "edit_stages", map[string]any{"id": id, "version": body["version"], "action": "delete", "stageId": ids[2]})
	require.Equal(t, day(32), out["endDate"])
	require.Equal(t, true, out["endDateMoved"])
	require.Contains(t, out["next"], day(32))

	// A label leaves the dates alone, and says nothing of them.
	a.WaitSettled(t, e.token, id)
	same := call(t, e, "edit_stages", map[string]any{"id": id, "version": out["version"], "action": "update", "stageId": ids[0], "label": "Lakes"})
	require.Equal(t, false, same["endDateMoved"])
	require.NotContains(t, same["next"], "end date")
}

// TestEditsKeepTheChainOfDays: choosing where to sleep and inserting a rest
// day after that day, in either order, leaves every day starting where the
// one before ended (the rest day included), so the server raises no
// continuity gap of its own making.
func TestEditsKeepTheChainOfDays(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	for _, restFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("rest day first: %v", restFirst), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, a)
			id, ids, v := e.days(t, 200, nil)
			a.WaitSettled(t, e.token, id)
			end := pointOf(stageOf(t, e, id, ids[0])["endPoint"])
			campsiteAt(t, a, end.Lat+0.01, end.Lon) // about 1.1 km from the day's end
			call(t, e, "analyze_trip", map[string]any{"id": id})
			a.WaitSettled(t, e.token, id)
			cur := float64(*v)

			restDay := func() {
				out := call(t, e, "edit_stages", map[string]any{"id": id, "version": cur, "action": "rest_day", "stageId": ids[0]})
				cur = version(out)
				a.WaitSettled(t, e.token, id)
			}
			choose := func() {
				st := stageOf(t, e, id, ids[0])
				cand := st["accommodations"].([]any)[0].(map[string]any)
				out := call(t, e, "choose_accommodation", map[string]any{"id": id, "stageId": ids[0],
					"version": cur, "accommodationId": cand["id"]})
				cur = version(out)
				a.WaitSettled(t, e.token, id)
			}
			if restFirst {
				restDay()
				choose()
			} else {
				choose()
				restDay()
			}

			ds := days(t, e, id)
			require.Len(t, ds, 4)
			require.Equal(t, true, ds[1]["isRestDay"])
			var prevEnd *geo.Point
			for i, d := range ds {
				s := stageOf(t, e, id, d["id"].(string))
				if prevEnd != nil {
					gap := geo.Distance(*prevEnd, pointOf(s["startPoint"]))
					require.Less(t, gap, 1.0, "day %d starts where day %d ended (%.0f m apart)", i+1, i, gap)
				}
				p := pointOf(s["endPoint"])
				prevEnd = &p
				for _, al := range s["alertDetails"].([]any) {
					require.NotContains(t, al.(map[string]any)["code"], "continuity_gap", "day %d: no gap the server made", i+1)
				}
			}
		})
	}
}

// TestSettingsConfirmOnlyWhatLoses: a change that loses nothing goes
// through without a token on both faces; a start date of today names the
// lock it sets; a started trip refuses with 423 before judging values.
func TestSettingsConfirmOnlyWhatLoses(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id := e.trip(t, map[string]any{"startDate": day(30)})
	a.WaitSettled(t, e.token, id)

	// A title loses nothing: it goes through at once, on both faces.
	res := a.Do(t, "PATCH", "/trips/"+id, e.token, map[string]any{"title": "Loire"}, "If-Match", `"1"`)
	require.Equal(t, http.StatusOK, res.Status, "no confirmation for a title, and 200: nothing is left to compute: %s", res.Body)
	require.Equal(t, `"2"`, res.Header.Get("ETag"))
	out := call(t, e, "update_trip_settings", map[string]any{"id": id, "version": 2, "title": "Loire valley"})
	require.NotContains(t, out, "confirmation")
	require.EqualValues(t, 3, out["version"])

	// A start date of today locks the trip for good: the impact says so.
	ask := a.Do(t, "PATCH", "/trips/"+id, e.token, map[string]any{"startDate": day(0)}, "If-Match", `"3"`)
	require.Equal(t, http.StatusConflict, ask.Status, string(ask.Body))
	require.Contains(t, strings.Join(strs(ask.JSON(t)["impact"].(map[string]any)["loses"]), " "), "locked")
	q := call(t, e, "update_trip_settings", map[string]any{"id": id, "version": 3, "startDate": day(-2)})
	loses := strs(q["confirmation"].(map[string]any)["impact"].(map[string]any)["loses"])
	require.Contains(t, strings.Join(loses, " "), "locked", "MCP names the lock too")

	// A started trip: 423 is the true refusal, whatever the values.
	started := e.trip(t, map[string]any{"startDate": day(-1)})
	bad := map[string]any{"endDate": day(-3)} // well formed, but before the start date: 422 on an open trip
	require.Equal(t, http.StatusLocked, a.Do(t, "PATCH", "/trips/"+started, e.token, bad, "If-Match", `"1"`).Status)
	r := apptest.Call(t, e.mcp, "update_trip_settings", map[string]any{"id": started, "version": 1, "endDate": day(-3)})
	require.EqualValues(t, http.StatusLocked, r.Structured["status"], r.Text)
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestChooseAccommodationByID: candidates carry an id in get_stage, the
// choice names it on both faces, and coordinates are not a way to choose.
func TestChooseAccommodationByID(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, ids, _ := e.days(t, 200, nil)
	a.WaitSettled(t, e.token, id)
	end := pointOf(stageOf(t, e, id, ids[0])["endPoint"])
	campsiteAt(t, a, end.Lat+0.001, end.Lon)
	call(t, e, "analyze_trip", map[string]any{"id": id})
	a.WaitSettled(t, e.token, id)

	st := stageOf(t, e, id, ids[0])
	cand := st["accommodations"].([]any)[0].(map[string]any)
	require.NotEmpty(t, cand["id"], "get_stage shows each candidate's id")
	v := version(st["trip"].(map[string]any))

	byCoords := apptest.Call(t, e.mcp, "choose_accommodation", map[string]any{"id": id, "stageId": ids[0], "version": v,
		"selectedAccommodationLat": cand["lat"], "selectedAccommodationLon": cand["lon"]})
	require.True(t, byCoords.IsError, "coordinates do not choose")

	res := a.Do(t, "PATCH", "/trips/"+id+"/stages/"+ids[0]+"/accommodation", e.token,
		map[string]any{"accommodationId": cand["id"]}, ifMatch(v)...)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.Equal(t, "Camping du Lac", days(t, e, id)[0]["accommodation"])
	v = res.JSON(t)["version"].(float64)

	a.WaitSettled(t, e.token, id)
	off := call(t, e, "choose_accommodation", map[string]any{"id": id, "stageId": ids[0], "version": v, "accommodationId": nil})
	require.Equal(t, v+1, version(off), "deselecting a choice is a change")
	require.NotContains(t, days(t, e, id)[0], "accommodation")
	unknown := apptest.Call(t, e.mcp, "choose_accommodation", map[string]any{"id": id, "stageId": ids[0], "version": v + 1, "accommodationId": "osm:node:1"})
	require.True(t, unknown.IsError)
	require.Equal(t, "not_a_candidate", unknown.Structured["code"])
}

// TestNoCandidatesSaysWhy: a day without candidates says why and what
// fixes it, instead of sending the caller back to read it again.
func TestNoCandidatesSaysWhy(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, ids, v := e.days(t, 200, nil)
	a.WaitSettled(t, e.token, id)

	st := stageOf(t, e, id, ids[0])
	require.Empty(t, st["accommodations"])
	why, _ := st["accommodationsNote"].(string)
	require.Contains(t, why, "place store", "names the cause: nothing imported")
	require.Contains(t, why, "overpass_url", "and what fixes it")

	r := apptest.Call(t, e.mcp, "choose_accommodation", map[string]any{"id": id, "stageId": ids[0], "version": *v, "accommodationId": "osm:node:1"})
	require.True(t, r.IsError)
	require.Contains(t, r.Text, "place store")
	require.NotContains(t, r.Text, "choose again", "no loop")
	res := a.Do(t, "PATCH", "/trips/"+id+"/stages/"+ids[0]+"/accommodation", e.token, map[string]any{"accommodationId": "osm:node:1"}, ifMatch(float64(*v))...)
	require.Equal(t, http.StatusConflict, res.Status, string(res.Body))
	require.Contains(t, res.JSON(t)["detail"], "place store")
}

// TestEditValuesAreChecked: a distance past the route's end is refused by
// name; an edit that changes nothing, or a deselection with nothing
// chosen, leaves the version where it is; a detour says what it measures.
func TestEditValuesAreChecked(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, ids, v := e.days(t, 200, nil)
	a.WaitSettled(t, e.token, id)

	long := a.Do(t, "PATCH", "/trips/"+id+"/stages/"+ids[0], e.token, map[string]any{"distance": 500}, ifMatch(float64(*v))...)
	require.Equal(t, http.StatusUnprocessableEntity, long.Status, string(long.Body))
	require.Contains(t, fields(long.JSON(t)), "distance")
	r := apptest.Call(t, e.mcp, "edit_stages", map[string]any{"id": id, "version": *v, "action": "update", "stageId": ids[1], "distance": 300})
	require.True(t, r.IsError)
	require.Contains(t, fields(r.Structured), "distance")

	// The same label twice: the second changes nothing.
	first := call(t, e, "edit_stages", map[string]any{"id": id, "version": *v, "action": "update", "stageId": ids[0], "label": "Lakes"})
	a.WaitSettled(t, e.token, id)
	again := call(t, e, "edit_stages", map[string]any{"id": id, "version": first["version"], "action": "update", "stageId": ids[0], "label": "Lakes"})
	require.Equal(t, version(first), version(again), "a no-op edit keeps the version")
	res := a.Do(t, "PATCH", "/trips/"+id+"/stages/"+ids[0], e.token, map[string]any{"label": "Lakes"}, ifMatch(version(first))...)
	require.Equal(t, http.StatusOK, res.Status, "finished at once: %s", res.Body)
	require.EqualValues(t, version(first), res.JSON(t)["version"])

	// Deselecting with nothing chosen changes nothing either.
	off := call(t, e, "choose_accommodation", map[string]any{"id": id, "stageId": ids[1], "version": first["version"], "accommodationId": nil})
	require.Equal(t, version(first), version(off))

	// A detour measures the day ridden through the point, along its line.
	day0 := stageOf(t, e, id, ids[0])
	detour := call(t, e, "add_waypoint", map[string]any{"id": id, "stageId": ids[0], "waypointLat": 0.02, "waypointLon": 0.3})
	require.NotContains(t, detour, "distance", "no bare distance that says nothing of what it measures")
	require.GreaterOrEqual(t, detour["routeDistance"].(float64), day0["distance"].(float64), "a detour is never shorter than the day")
	require.InDelta(t, 2.2, detour["distanceFromRoute"].(float64), 0.3, "0.02° north of a line on the equator")
}

// TestNoParameterDescribedByItsOwnName: every argument and path parameter
// says what it names ("Id of the id." says nothing).
func TestNoParameterDescribedByItsOwnName(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	tools, err := e.mcp.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range tools.Tools {
		raw, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		require.NotContains(t, string(raw), "Id of the id", tool.Name)
	}
	doc := a.Do(t, "GET", "/openapi.json", "", nil)
	require.NotContains(t, string(doc.Body), "Id of the id")
}

// TestManualAccommodationByCoordinates: a place entered by hand may be
// placed by its coordinates (no list names it); the day ends there, the
// next riding day starts there, and its id is shown like a candidate's.
func TestManualAccommodationByCoordinates(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, ids, v := e.days(t, 200, nil)
	end := pointOf(stageOf(t, e, id, ids[0])["endPoint"])
	at := map[string]any{"name": "Chez Marie", "address": "Rue du Lac", "lat": end.Lat + 0.01, "lon": end.Lon}
	res := a.Do(t, "POST", "/trips/"+id+"/stages/"+ids[0]+"/accommodations/manual", e.token, at, ifMatch(float64(*v))...)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))

	st := stageOf(t, e, id, ids[0])
	sel := st["selectedAccommodation"].(map[string]any)
	require.True(t, strings.HasPrefix(sel["id"].(string), "manual:"), "%v", sel["id"])
	require.InDelta(t, end.Lat+0.01, pointOf(st["endPoint"]).Lat, 1e-6, "the day ends at the place")
	require.InDelta(t, end.Lat+0.01, pointOf(stageOf(t, e, id, ids[1])["startPoint"]).Lat, 1e-6, "the next day starts there")

	half := map[string]any{"name": "Chez Marie", "address": "Rue du Lac", "lat": 1.0}
	bad := a.Do(t, "POST", "/trips/"+id+"/stages/"+ids[1]+"/accommodations/manual", e.token, half, ifMatch(float64(*v+1))...)
	require.Equal(t, http.StatusUnprocessableEntity, bad.Status, string(bad.Body))
	require.Contains(t, fields(bad.JSON(t)), "lon")
}

// chainOf reads every day in full and fails on a day that does not start
// where the day before it ended, rest days included.
func chainOf(t *testing.T, e env, id, after string) []map[string]any {
	t.Helper()
	var out []map[string]any
	var prevEnd *geo.Point
	for i, d := range days(t, e, id) {
		s := stageOf(t, e, id, d["id"].(string))
		if prevEnd != nil {
			gap := geo.Distance(*prevEnd, pointOf(s["startPoint"]))
			require.Less(t, gap, 1.0, "after %s: day %d starts %.0f m from where day %d ended", after, i+1, gap, i)
		}
		if s["isRestDay"] == true {
			require.Less(t, geo.Distance(pointOf(s["startPoint"]), pointOf(s["endPoint"])), 1.0, "after %s: rest day %d stays put", after, i+1)
		}
		p := pointOf(s["endPoint"])
		prevEnd = &p
		out = append(out, s)
	}
	return out
}

// TestEveryEditKeepsTheChain: moving a day's end, recutting a day followed
// by a rest day, and deleting a day beside one each keep every day
// starting where the one before it ended.
func TestEveryEditKeepsTheChain(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, ids, v := e.days(t, 240, nil)
	cur := float64(*v)
	edit := func(name string, args map[string]any) map[string]any {
		args["id"], args["version"] = id, cur
		out := call(t, e, "edit_stages", args)
		cur = version(out)
		chainOf(t, e, id, name)
		return out
	}
	edit("a rest day", map[string]any{"action": "rest_day", "stageId": ids[0]})
	end := pointOf(stageOf(t, e, id, ids[0])["endPoint"])
	edit("a new end", map[string]any{"action": "update", "stageId": ids[0],
		"endPoint": map[string]any{"lat": end.Lat + 0.01, "lon": end.Lon}})
	edit("a recut", map[string]any{"action": "update", "stageId": ids[0], "distance": 60})
	edit("a deletion before a rest day", map[string]any{"action": "delete", "stageId": ids[0]})
	ds := chainOf(t, e, id, "all")
	require.Equal(t, true, ds[0]["isRestDay"], "the rest day stays, where the trip starts")
	require.Equal(t, 0.0, ds[0]["distance"])
}

// TestALabelEditRecomputesNothing: renaming a day moves no line, end or
// date, so every computation stays settled and the day keeps its
// candidates; moving a day's end re-runs the enrichments.
func TestALabelEditRecomputesNothing(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, ids, _ := e.days(t, 200, nil)
	a.WaitSettled(t, e.token, id)
	v := e.version(t, id) // the enrichments moved it on
	before := stageOf(t, e, id, ids[0])

	res := a.Do(t, "PATCH", "/trips/"+id+"/stages/"+ids[0], e.token, map[string]any{"label": "Along the lake"}, ifMatch(float64(*v))...)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	for name, s := range res.JSON(t)["computationStatus"].(map[string]any) {
		require.NotContains(t, []string{"pending", "running"}, s, "%s runs again after a label edit", name)
	}
	after := stageOf(t, e, id, ids[0])
	require.Equal(t, "Along the lake", after["label"])
	require.Equal(t, before["accommodations"], after["accommodations"], "the day keeps its candidates")

	v = e.version(t, id)
	moved := a.Do(t, "PATCH", "/trips/"+id+"/stages/"+ids[0], e.token, map[string]any{"endPoint": map[string]any{"lat": 0, "lon": 0.5}}, ifMatch(float64(*v))...)
	require.Equal(t, http.StatusAccepted, moved.Status, string(moved.Body))
	pending := 0
	for _, s := range moved.JSON(t)["computationStatus"].(map[string]any) {
		if s == "pending" {
			pending++
		}
	}
	require.Positive(t, pending, "a day whose end moved is computed again")
}
